//===- LetNames.h - the source names of row- and element-level lets -*- C++ -*-===//
//
// Private to the CUDA emitter. The IR keeps no name for a `let`: its root op
// carries the location of the let's line. LetNames reads that line of the
// .credit source text it is given (never the file again) and recovers NAME
// from `let NAME = ...`; without the text, lets print unnamed.
//
//===----------------------------------------------------------------------===//
#ifndef CREDIT_LIB_TARGET_CUDA_LETNAMES_H
#define CREDIT_LIB_TARGET_CUDA_LETNAMES_H

#include "mlir/IR/Operation.h"

#include "llvm/ADT/StringMap.h"

#include <optional>
#include <string>
#include <vector>

namespace credit::cuda {

class LetNames {
public:
  LetNames() = default;
  /// The text of source `file` (its locations' file name), e.g. stdin's.
  LetNames(llvm::StringRef file, llvm::StringRef text);
  /// NAME if `op` is the root of `let NAME = ...` (its line starts with the
  /// let and no user of its value sits on that line).
  std::optional<std::string> lookup(mlir::Operation *op);

private:
  std::optional<llvm::StringRef> line(llvm::StringRef file, unsigned lineNo);
  llvm::StringMap<std::vector<std::string>> files;
};

} // namespace credit::cuda

#endif // CREDIT_LIB_TARGET_CUDA_LETNAMES_H
