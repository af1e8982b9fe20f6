//===- NameSupply.h - C++ identifiers of the generated code -----*- C++ -*-===//
//
// Private to the CUDA emitter. Every identifier the emitter prints comes from
// a NameSupply, through one mangling scheme:
//  - an identifier the printers themselves use in a scope (a member of the
//    Workload contract, a function an expression calls, a type) is claimed
//    verbatim with claim();
//  - a source name (input, param, statistic, let) keeps its spelling where it
//    is plain: it starts with a lower-case letter, uses [A-Za-z0-9_] only, has
//    no `__` and no trailing `_`, is no keyword, no object-like macro of the C
//    library or the GNU dialects (errno, linux, ...), is not in a prefix that
//    a library owns (`credit`, `cuda`, `cu`/`nv` + upper case) and is not
//    taken in the scope. Names that start with an upper-case letter or `_`
//    are macro-shaped (INFINITY, NAN, INT_MAX, M_PI) and never kept;
//  - anything else becomes its sanitized spelling plus `_`, then `_2`, `_3`,
//    ... until it is free.
// Scopes nest: a child sees every name of its ancestors as taken.
//
//===----------------------------------------------------------------------===//
#ifndef CREDIT_LIB_TARGET_CUDA_NAMESUPPLY_H
#define CREDIT_LIB_TARGET_CUDA_NAMESUPPLY_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"

#include <string>

namespace credit::cuda {

class NameSupply {
public:
  /// A root scope, or a scope nested in `parent` (which must outlive it).
  explicit NameSupply(const NameSupply *parent = nullptr) : parent(parent) {}

  /// Claims `name` verbatim for an identifier the generated code itself uses
  /// in this scope; no source name takes it afterwards. Returns it.
  llvm::StringRef claim(llvm::StringRef name);
  /// A fresh identifier for the source-level name `base` (see the scheme
  /// above), claimed in this scope.
  std::string fresh(llvm::StringRef base);
  /// `base` with `suffix` appended ("x" + "smem" -> "x_smem"), made fresh.
  std::string derived(llvm::StringRef base, llvm::StringRef suffix);
  /// Taken in this scope or an enclosing one.
  bool isTaken(llvm::StringRef name) const;

  /// Whether a source name may be printed as it is (before scope checks).
  static bool isPlain(llvm::StringRef name);
  /// A C or C++ keyword or alternative token.
  static bool isKeyword(llvm::StringRef name);

private:
  const NameSupply *parent;
  llvm::StringSet<> taken;
};

} // namespace credit::cuda

#endif // CREDIT_LIB_TARGET_CUDA_NAMESUPPLY_H
