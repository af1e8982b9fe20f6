//===- CudaExpr.h - arith/math → C++ expressions, C++ names ------*- C++ -*-===//
//
// Private to the CUDA emitter. NameTable hands out C++ identifiers (source
// names kept where possible, never a keyword or an identifier the generated
// code uses itself); ExprPrinter turns the arith/math ops of a credit kernel
// into C++ (or, for the header comment, DSL-like) expressions, inlining
// single-use values and giving multi-use ones a named temporary.
//
//===----------------------------------------------------------------------===//
#ifndef CREDIT_LIB_TARGET_CUDA_CUDAEXPR_H
#define CREDIT_LIB_TARGET_CUDA_CUDAEXPR_H

#include "credit/Dialect/Credit/IR/CreditDialect.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace credit::cudaold {

/// C++ identifiers of one scope. Copy it to open a nested scope.
class NameTable {
public:
  NameTable();
  /// Marks `name` as used (no check).
  void reserve(llvm::StringRef name) { taken.insert(name); }
  bool isTaken(llvm::StringRef name) const { return taken.contains(name); }
  /// `base` made a valid identifier; if that is taken, `base_`, `base_2`, ...
  /// The result is reserved.
  std::string unique(llvm::StringRef base);

private:
  llvm::StringSet<> taken;
};

/// Shortest decimal that reads back as the same float, e.g. "1e-05", "127",
/// "0.1" (no suffix). "inf", "-inf" or "nan" for the non-finite values.
std::string shortestFloat(float f);
/// A C++ float literal for `f` ("1e-05f", "127.0f", "__int_as_float(0x7f800000)").
std::string cudaFloatLiteral(float f);

/// If the op is the root of a `let NAME = ...` definition of the .credit
/// source (its line starts with `let NAME =` and no user sits on that line),
/// returns NAME. Source files are read once and cached.
class LetNames {
public:
  std::optional<std::string> lookup(mlir::Operation *op);

private:
  std::optional<llvm::StringRef> line(llvm::StringRef file, unsigned lineNo);
  llvm::StringMap<std::vector<std::string>> files;
};

enum class ExprStyle {
  Cuda,     // C++ for the generated code: expf, fmaxf, 1e-05f, credit_f32_to_i8
  CudaFast, // Cuda with the fast intrinsics (--fast-math): __expf, __logf, __fdividef(a, b)
  Math,     // the header comment: exp, max, 1e-05, i8(...)
};

/// Prints values as expressions. Bound values print as their binding (a name
/// or a literal); other values print as the expression of their defining
/// arith/math op, recursively.
class ExprPrinter {
public:
  explicit ExprPrinter(ExprStyle style) : style(style) {}

  /// `v` prints as `text` from now on (a name, or an atom such as a literal).
  void bind(mlir::Value v, std::string text) { bound[v] = {std::move(text), kAtom}; }
  bool isBound(mlir::Value v) const { return bound.count(v) != 0; }
  /// The expression for `v`; `ok()` turns false (and the op is recorded) if
  /// `v` has neither a binding nor a printable defining op.
  std::string ref(mlir::Value v) { return print(v).text; }
  /// The expression computing `op`'s (single) result from its operands.
  std::string expr(mlir::Operation *op) { return printOp(op).text; }

  bool ok() const { return failedOp == nullptr && !failedValue; }
  mlir::Operation *failure() const { return failedOp; }
  std::string failureReason() const { return reason; }

  /// True for the pure element/row-level ops the printer understands.
  static bool isExprOp(mlir::Operation *op);
  /// The C++ type of a value of type `t` ("float" or "int8_t").
  static std::string cudaType(mlir::Type t);

private:
  static constexpr int kAtom = 4;
  struct Printed {
    std::string text;
    int prec;
  };
  Printed print(mlir::Value v);
  Printed printOp(mlir::Operation *op);
  std::string paren(const Printed &p, int minPrec);
  Printed fail(mlir::Operation *op, const std::string &why);

  ExprStyle style;
  llvm::DenseMap<mlir::Value, Printed> bound;
  mlir::Operation *failedOp = nullptr;
  bool failedValue = false;
  std::string reason;
};

/// Whether a value computed by an expression op gets a named temporary
/// instead of being inlined into its user: it has several uses (or none),
/// its user is not itself an expression op or a yield (a reduce/apply
/// operand, an output), or it is the root of a named let.
bool needsTemporary(mlir::Operation *op, bool isLetRoot);

} // namespace credit::cudaold

#endif // CREDIT_LIB_TARGET_CUDA_CUDAEXPR_H
