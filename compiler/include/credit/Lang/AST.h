//===- AST.h - Abstract syntax of the .credit language -----------*- C++ -*-===//
//
// The parser builds this tree; Sema (Sema.h) resolves names and annotates every
// expression with its level (constant, row, element) and element type. MLIRGen
// lowers the annotated tree to the `credit` dialect.
//
//===----------------------------------------------------------------------===//
#ifndef CREDIT_LANG_AST_H
#define CREDIT_LANG_AST_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/SMLoc.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace credit {
struct Symbol; // Sema.h
}

namespace credit::ast {

/// Storage types, and Bool: also the type of a comparison, `&&`, `||`, `!`.
/// U8, I32, I64 are input storage only (their values are f32).
enum class ElemType { F32, I8, F16, BF16, Bool, U8, I32, I64 };
llvm::StringRef elemTypeName(ElemType t);
unsigned elemTypeBytes(ElemType t);
/// f32, bf16, f16: stored in that type, computed in f32 (loads convert exactly,
/// stores round to nearest even).
inline bool isFloatStorage(ElemType t) {
  return t == ElemType::F32 || t == ElemType::BF16 || t == ElemType::F16;
}
/// i8, u8, bool: a per-element input of one byte (data or a mask).
inline bool isByteStorage(ElemType t) {
  return t == ElemType::I8 || t == ElemType::U8 || t == ElemType::Bool;
}
/// i32, i64: a per-row input (a class index, a limit).
inline bool isIndexStorage(ElemType t) { return t == ElemType::I32 || t == ElemType::I64; }

/// `f32`, `f32[N]`.
struct TypeRef {
  ElemType elem = ElemType::F32;
  bool perElement = false; // has [N]
  llvm::SMLoc loc;
};

/// How a value varies, from least to most: a compile-time constant, one value
/// per row, one value per element of the row.
enum class Level { Const = 0, Row = 1, Element = 2 };

class Expr {
public:
  enum Kind { Number, Name, Unary, Binary, Call, Index };
  Expr(Kind k, llvm::SMLoc loc) : kind(k), loc(loc) {}
  virtual ~Expr() = default;
  Kind getKind() const { return kind; }

  const Kind kind;
  llvm::SMLoc loc;
  // Filled in by Sema.
  Level level = Level::Const;
  ElemType type = ElemType::F32;
  /// Nesting depth of this subtree (1 for a leaf); bounded by the parser.
  unsigned depth = 1;
};
using ExprPtr = std::unique_ptr<Expr>;

class NumberExpr : public Expr {
public:
  NumberExpr(llvm::SMLoc loc, double v, std::string spelling)
      : Expr(Number, loc), value(v), spelling(std::move(spelling)) {}
  static bool classof(const Expr *e) { return e->kind == Number; }
  double value;
  std::string spelling;
};

class NameExpr : public Expr {
public:
  NameExpr(llvm::SMLoc loc, std::string name) : Expr(Name, loc), name(std::move(name)) {}
  static bool classof(const Expr *e) { return e->kind == Name; }
  std::string name;
  const credit::Symbol *symbol = nullptr; // resolved by Sema
};

class UnaryExpr : public Expr {
public:
  UnaryExpr(llvm::SMLoc loc, char op, ExprPtr operand)
      : Expr(Unary, loc), op(op), operand(std::move(operand)) {}
  static bool classof(const Expr *e) { return e->kind == Unary; }
  char op; // '-', or '!' (logical not)
  ExprPtr operand;
};

class BinaryExpr : public Expr {
public:
  BinaryExpr(llvm::SMLoc loc, char op, ExprPtr lhs, ExprPtr rhs)
      : Expr(Binary, loc), op(op), lhs(std::move(lhs)), rhs(std::move(rhs)) {}
  static bool classof(const Expr *e) { return e->kind == Binary; }
  /// + - * /; comparisons < > and 'l' (<=), 'g' (>=), '=' (==), '!' (!=);
  /// logic '&' (&&), '|' (||).
  char op;
  ExprPtr lhs, rhs;
};

/// The source spelling of a BinaryExpr or UnaryExpr operator ("<=", "&&", ...).
llvm::StringRef opSpelling(char op);
/// Whether `op` compares two f32 values into a bool.
inline bool isComparisonOp(char op) {
  return op == '<' || op == '>' || op == 'l' || op == 'g' || op == '=' || op == '!';
}
/// Whether `op` combines two bools (&&, ||).
inline bool isLogicOp(char op) { return op == '&' || op == '|'; }

/// Every call-shaped construct: reductions (sum max min with one argument),
/// math (exp, max(a, b), clamp, ...), casts (i8(x), f32(x)), scans, selections.
/// Sema decides which one it is (`builtin`).
class CallExpr : public Expr {
public:
  CallExpr(llvm::SMLoc loc, std::string callee, std::vector<ExprPtr> args)
      : Expr(Call, loc), callee(std::move(callee)), args(std::move(args)) {}
  static bool classof(const Expr *e) { return e->kind == Call; }
  std::string callee;
  std::vector<ExprPtr> args;
  int builtin = -1; // a credit::Builtin, set by Sema
};

/// Neighbour access `x[i+k]` (a stencil); `x[i]` is offset 0.
class IndexExpr : public Expr {
public:
  IndexExpr(llvm::SMLoc loc, std::string base, llvm::SMLoc baseLoc, long long offset)
      : Expr(Index, loc), base(std::move(base)), baseLoc(baseLoc), offset(offset) {}
  static bool classof(const Expr *e) { return e->kind == Index; }
  std::string base;
  llvm::SMLoc baseLoc;
  long long offset;
  const credit::Symbol *symbol = nullptr;
};

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

/// `name = expr` inside a stage (a statistic) or at kernel level (an output).
struct Assign {
  std::string name;
  llvm::SMLoc loc;
  ExprPtr value;
};

struct InputDecl {
  std::string name;
  llvm::SMLoc loc;
  TypeRef type;
  bool broadcast = false;
  llvm::SMLoc broadcastLoc;
};

struct ParamDecl {
  std::string name;
  llvm::SMLoc loc;
  TypeRef type;
  /// The compile-time value; none: a runtime scalar (a launch argument).
  std::optional<double> value;
  llvm::SMLoc valueLoc;
};

struct OutputDecl {
  std::string name;
  llvm::SMLoc loc;
  TypeRef type;
};

struct StageDecl {
  llvm::SMLoc loc;
  std::vector<Assign> stats;
};

struct LetDecl {
  std::string name;
  llvm::SMLoc loc;
  ExprPtr value;
};

struct Stmt {
  enum Kind { Input, Param, Output, Stage, Let, OutputAssign } kind;
  // Exactly one of these is meaningful, selected by `kind`.
  InputDecl input;
  ParamDecl param;
  OutputDecl output;
  StageDecl stage;
  LetDecl let;
  Assign assign;
};

struct Kernel {
  std::string name;
  llvm::SMLoc loc;
  std::vector<Stmt> body; // program order
};

struct Module {
  std::vector<Kernel> kernels;
};

} // namespace credit::ast

#endif // CREDIT_LANG_AST_H
