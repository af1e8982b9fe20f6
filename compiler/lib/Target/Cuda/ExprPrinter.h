//===- ExprPrinter.h - arith/math ops as C++ expressions --------*- C++ -*-===//
//
// Private to the CUDA emitter. An ExprPrinter prints the values of one scope
// of generated code (one function: a pass's element terms, a stage's row-level
// math) as C++ expressions, or, for the header comment, as formulas.
//
// Common subexpressions are emitted once: the ops of every block added to the
// scope are value-numbered (same op, same attributes, same operands: one
// value), and a value used more than once, or the root of a source `let`,
// is bound to a named `const` temporary where it is first defined; every
// other value is inlined into its single user. A chain of lets, each using
// the previous one twice, therefore stays linear in size.
//
// The printed expression performs exactly the ops of the IR, with the IR's
// association (parentheses where C++ would associate otherwise).
//
//===----------------------------------------------------------------------===//
#ifndef CREDIT_LIB_TARGET_CUDA_EXPRPRINTER_H
#define CREDIT_LIB_TARGET_CUDA_EXPRPRINTER_H

#include "NameSupply.h"

#include "credit/Dialect/Credit/IR/CreditDialect.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <optional>
#include <string>

namespace credit::cuda {

enum class ExprStyle {
  Cuda,     // generated code: expf, fmaxf, 1e-05f
  CudaFast, // Cuda with --fast-math at element level: fast_exp, __logf, __fdividef(a, b)
  Math,     // the header comment: exp, max, 1e-05, i8(...)
};

/// Shortest decimal that reads back as the same float ("1e-05", "127", "0.1");
/// "inf", "-inf", "nan" for the non-finite values.
std::string shortestFloat(float f);
/// A C++ float literal of `f` that is a constant expression on host and
/// device, with nvcc and NVRTC: "1e-05f", "127.0f"; the non-finite values
/// through cuda::std::numeric_limits (<cuda/std/limits>; see isNonFinite).
std::string cudaFloatLiteral(float f);

/// Whether `op` is a constant that cudaFloatLiteral prints through
/// cuda::std::numeric_limits.
bool isNonFiniteConstant(mlir::Operation *op);

class ExprPrinter {
public:
  /// `names`: the scope that temporaries are named in.
  /// Claims every function the style may call in `names`, so that no local
  /// declared later hides one.
  ExprPrinter(ExprStyle style, NameSupply &names);

  /// `v` prints as `text` (a name or a literal) from now on.
  void bind(mlir::Value v, std::string text);
  /// `v` prints as `target` does (a region's block argument as its operand).
  void alias(mlir::Value v, mlir::Value target) { aliases[v] = target; }
  bool isBound(mlir::Value v) const { return bound.count(v) != 0; }
  /// What i8(a) calls (Cuda styles): a qualified name.
  void setI8Conversion(std::string fn) { i8Conversion = std::move(fn); }

  /// Adds `ops` to the scope: value numbering of the expression ops, and the
  /// uses of every op's operands (terminators included). Bind the block
  /// arguments and outer values they use first.
  void scan(llvm::ArrayRef<mlir::Operation *> ops);
  /// Called for each op of a block that declare() reaches: returns true if it
  /// printed (and bound) the op itself.
  using Hook = std::function<bool(mlir::Operation *, llvm::raw_ostream &)>;
  using LetFn = std::function<std::optional<std::string>(mlir::Operation *)>;
  /// Prints `const T name = expr;` on `os`, in op order, for every expression
  /// op of `ops` (scanned) that is shared or the root of a let (`letName`),
  /// and binds it. Math style: lets, and shared values too long to inline.
  void declare(llvm::ArrayRef<mlir::Operation *> ops, llvm::raw_ostream &os, const LetFn &letName,
               const Hook &hook = nullptr);
  /// The ops of a block, terminator included.
  static llvm::SmallVector<mlir::Operation *> opsOf(mlir::Block &block);
  /// Prints `const T name = expr;` (Math style: `name = expr`) for `op` with
  /// a fresh name from `base`, binds its result and returns the name.
  std::string declareAs(mlir::Operation *op, llvm::StringRef base, llvm::raw_ostream &os);

  /// The expression of `v`: its binding, else its defining op's.
  std::string ref(mlir::Value v) { return print(v).text; }
  /// The same as the operand of a binary operator of precedence `minPrec` (1:
  /// + and -, 2: * and /): in parentheses where it binds less tightly.
  std::string ref(mlir::Value v, int minPrec) {
    Printed p = print(v);
    return p.prec >= minPrec ? p.text : "(" + p.text + ")";
  }
  /// The expression of `op`'s result from its operands (ignoring a binding).
  std::string expr(mlir::Operation *op) { return printOp(op).text; }
  /// Whether the value's defining op is shared in the scope (used more than once).
  bool isShared(mlir::Value v) const;

  bool ok() const { return failedOp == nullptr && !failedValue; }
  mlir::Operation *failure() const { return failedOp; }
  const std::string &failureReason() const { return reason; }

  /// The pure element/row-level ops the printer understands.
  static bool isExprOp(mlir::Operation *op);
  /// The C++ type of a value ("float", "int8_t", "bool").
  static llvm::StringRef cudaType(mlir::Type t);

private:
  static constexpr int kAtom = 4;
  // Below + - (1), * / (2) and unary (3), as in C: comparisons, &&, ||, ?:.
  static constexpr int kComparePrec = 0, kAndPrec = -1, kOrPrec = -2, kSelectPrec = -3;
  /// Math style: a shared value longer than this gets a name of its own.
  static constexpr size_t kMathInlineLimit = 40;
  struct Printed {
    std::string text;
    int prec;
  };
  Printed print(mlir::Value v);
  Printed printOp(mlir::Operation *op);
  Printed fail(mlir::Operation *op, const std::string &why);
  std::string key(mlir::Operation *op);
  mlir::Operation *leader(mlir::Operation *op) const;
  std::string fn(llvm::StringRef name);

  ExprStyle style;
  NameSupply &names;
  std::string i8Conversion = "credit_f32_to_i8";
  llvm::DenseMap<mlir::Value, Printed> bound;
  llvm::DenseMap<mlir::Value, mlir::Value> aliases;
  llvm::DenseMap<mlir::Operation *, mlir::Operation *> leaders; // op -> first op of its class
  llvm::StringMap<mlir::Operation *> classes;                   // key -> first op
  llvm::DenseMap<mlir::Operation *, std::string> keys;
  llvm::DenseMap<mlir::Operation *, int> uses; // leader -> uses in the scope
  int counter = 0;
  mlir::Operation *failedOp = nullptr;
  bool failedValue = false;
  std::string reason;
};

} // namespace credit::cuda

#endif // CREDIT_LIB_TARGET_CUDA_EXPRPRINTER_H
