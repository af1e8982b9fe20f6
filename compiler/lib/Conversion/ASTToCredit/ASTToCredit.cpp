//===- ASTToCredit.cpp - AST → credit dialect -----------------------------===//
//
// Inputs, params and `N` become ops at the top of the kernel; each stage a
// credit.stage whose reductions are credit.reduce ops with isolated element
// regions; row-level lets arith/math ops in the kernel body; every per-element
// output one result of a single credit.apply at the end. Element-level lets are
// inlined (once per region) where they are used.
//
//===----------------------------------------------------------------------===//
#include "credit/Conversion/ASTToCredit.h"
#include "credit/Dialect/Credit/IR/CreditDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

using namespace credit;
using namespace credit::ast;
namespace cr = mlir::credit;

void credit::registerCreditDialects(mlir::MLIRContext &ctx) {
  ctx.loadDialect<cr::CreditDialect, mlir::arith::ArithDialect, mlir::math::MathDialect>();
}

namespace {

class KernelLowering {
public:
  KernelLowering(mlir::ModuleOp module, const Kernel &k, const KernelSymbols &syms,
                 const llvm::SourceMgr &sm, llvm::StringRef filename)
      : module(module), b(module.getContext()), k(k), syms(syms), sm(sm),
        file(mlir::StringAttr::get(module.getContext(), filename)) {}

  void run();

private:
  mlir::Location loc(llvm::SMLoc l) {
    if (!l.isValid())
      return mlir::FileLineColLoc::get(file, 0, 0);
    auto [line, col] = sm.getLineAndColumn(l);
    return mlir::FileLineColLoc::get(file, line, col);
  }
  /// The storage type of an input or a float output.
  mlir::Type storageType(ast::ElemType t) {
    switch (t) {
    case ast::ElemType::BF16: return b.getBF16Type();
    case ast::ElemType::F16: return b.getF16Type();
    case ast::ElemType::I8: return b.getIntegerType(8);
    case ast::ElemType::U8: return b.getIntegerType(8, /*isSigned=*/false);
    case ast::ElemType::Bool: return b.getI1Type();
    case ast::ElemType::I32: return b.getIntegerType(32);
    case ast::ElemType::I64: return b.getIntegerType(64);
    default: return b.getF32Type();
    }
  }

  /// Scope of an isolated element region: symbol → block argument, plus the
  /// element lets already emitted in this region.
  struct RegionScope {
    mlir::OpBuilder &b;
    llvm::DenseMap<const Symbol *, mlir::Value> args;
    llvm::DenseMap<const Symbol *, mlir::Value> lets;
  };

  void collectFree(const Expr &e, llvm::SetVector<const Symbol *> &free,
                   llvm::DenseSet<const Symbol *> &seenLets);
  mlir::Value rowValue(const Symbol *s);
  mlir::Value emitRow(const Expr &e);
  mlir::Value emitElem(const Expr &e, RegionScope &scope);
  mlir::Value emitReduction(const CallExpr &c);
  mlir::Value constant(mlir::OpBuilder &ob, mlir::Location l, double v) {
    return ob.create<mlir::arith::ConstantOp>(l, ob.getF32FloatAttr(static_cast<float>(v)));
  }
  /// Applies a math builtin or an arithmetic operator to already-emitted operands.
  mlir::Value applyBuiltin(mlir::OpBuilder &ob, mlir::Location l, Builtin bi,
                           llvm::ArrayRef<mlir::Value> a);
  mlir::Value applyUnary(mlir::OpBuilder &ob, mlir::Location l, char op, mlir::Value operand);
  mlir::Value applyBinary(mlir::OpBuilder &ob, mlir::Location l, char op, mlir::Value lhs,
                          mlir::Value rhs);
  llvm::SmallVector<mlir::Value> operandsFor(const llvm::SetVector<const Symbol *> &free);

  mlir::ModuleOp module;
  mlir::OpBuilder b;
  const Kernel &k;
  const KernelSymbols &syms;
  const llvm::SourceMgr &sm;
  mlir::StringAttr file;
  /// Row-level values and input handles visible at the current point.
  llvm::DenseMap<const Symbol *, mlir::Value> values;
};

/// Lets whose expression an element region computes itself: element-level
/// ones, and row-level bools (a region takes f32 and rows only; the comparison
/// of its row-level operands is recomputed per element, which costs a compare).
static bool inlinedInRegions(const Symbol *s) {
  return s->kind == Symbol::ElemLet || (s->kind == Symbol::RowLet && s->type == ElemType::Bool);
}

void KernelLowering::collectFree(const Expr &e, llvm::SetVector<const Symbol *> &free,
                                 llvm::DenseSet<const Symbol *> &seenLets) {
  switch (e.kind) {
  case Expr::Number:
    return;
  case Expr::Name: {
    const Symbol *s = llvm::cast<NameExpr>(e).symbol;
    if (s->kind == Symbol::ElementIndex) // made inside the region
      return;
    if (inlinedInRegions(s)) {
      if (seenLets.insert(s).second)
        collectFree(*s->value, free, seenLets);
      return;
    }
    free.insert(s);
    return;
  }
  case Expr::Index:
    free.insert(llvm::cast<IndexExpr>(e).symbol);
    return;
  case Expr::Unary:
    collectFree(*llvm::cast<UnaryExpr>(e).operand, free, seenLets);
    return;
  case Expr::Binary:
    collectFree(*llvm::cast<BinaryExpr>(e).lhs, free, seenLets);
    collectFree(*llvm::cast<BinaryExpr>(e).rhs, free, seenLets);
    return;
  case Expr::Call: {
    auto &c = llvm::cast<CallExpr>(e);
    auto bi = static_cast<Builtin>(c.builtin);
    // The second argument of quantile/topk is a literal carried as an attribute.
    size_t n = (bi == Builtin::Quantile || bi == Builtin::TopK) ? 1 : c.args.size();
    for (size_t i = 0; i < n; ++i)
      collectFree(*c.args[i], free, seenLets);
    return;
  }
  }
}

mlir::Value KernelLowering::rowValue(const Symbol *s) {
  auto it = values.find(s);
  assert(it != values.end() && "Sema guarantees definition before use");
  return it->second;
}

llvm::SmallVector<mlir::Value>
KernelLowering::operandsFor(const llvm::SetVector<const Symbol *> &free) {
  llvm::SmallVector<mlir::Value> ops;
  for (const Symbol *s : free)
    ops.push_back(rowValue(s));
  return ops;
}

mlir::Value KernelLowering::applyUnary(mlir::OpBuilder &ob, mlir::Location l, char op,
                                       mlir::Value operand) {
  if (op == '!') // not c = c xor true
    return ob.create<mlir::arith::XOrIOp>(
        l, operand, ob.create<mlir::arith::ConstantOp>(l, ob.getBoolAttr(true)));
  return ob.create<mlir::arith::NegFOp>(l, operand);
}

mlir::Value KernelLowering::applyBinary(mlir::OpBuilder &ob, mlir::Location l, char op,
                                        mlir::Value lhs, mlir::Value rhs) {
  using P = mlir::arith::CmpFPredicate;
  // C's comparisons: false when an operand is NaN, except '!=' (true).
  auto cmp = [&](P p) { return ob.create<mlir::arith::CmpFOp>(l, p, lhs, rhs); };
  switch (op) {
  case '<': return cmp(P::OLT);
  case 'l': return cmp(P::OLE);
  case '>': return cmp(P::OGT);
  case 'g': return cmp(P::OGE);
  case '=': return cmp(P::OEQ);
  case '!': return cmp(P::UNE);
  case '&': return ob.create<mlir::arith::AndIOp>(l, lhs, rhs);
  case '|': return ob.create<mlir::arith::OrIOp>(l, lhs, rhs);
  case '+': return ob.create<mlir::arith::AddFOp>(l, lhs, rhs);
  case '-': return ob.create<mlir::arith::SubFOp>(l, lhs, rhs);
  case '*': return ob.create<mlir::arith::MulFOp>(l, lhs, rhs);
  default: return ob.create<mlir::arith::DivFOp>(l, lhs, rhs);
  }
}

mlir::Value KernelLowering::applyBuiltin(mlir::OpBuilder &ob, mlir::Location l, Builtin bi,
                                         llvm::ArrayRef<mlir::Value> a) {
  using namespace mlir;
  switch (bi) {
  case Builtin::Abs: return ob.create<math::AbsFOp>(l, a[0]);
  case Builtin::Exp: return ob.create<math::ExpOp>(l, a[0]);
  case Builtin::Log: return ob.create<math::LogOp>(l, a[0]);
  case Builtin::Sqrt: return ob.create<math::SqrtOp>(l, a[0]);
  case Builtin::Rsqrt: return ob.create<math::RsqrtOp>(l, a[0]);
  case Builtin::Tanh: return ob.create<math::TanhOp>(l, a[0]);
  case Builtin::Round: return ob.create<math::RoundOp>(l, a[0]);
  case Builtin::Sigmoid: {
    // 1 / (1 + exp(-a))
    Value one = constant(ob, l, 1.0);
    Value e = ob.create<math::ExpOp>(l, ob.create<arith::NegFOp>(l, a[0]));
    return ob.create<arith::DivFOp>(l, one, ob.create<arith::AddFOp>(l, one, e));
  }
  case Builtin::Max2: return ob.create<arith::MaxNumFOp>(l, a[0], a[1]);
  case Builtin::Min2: return ob.create<arith::MinNumFOp>(l, a[0], a[1]);
  case Builtin::Clamp:
    return ob.create<arith::MinNumFOp>(l, ob.create<arith::MaxNumFOp>(l, a[0], a[1]), a[2]);
  case Builtin::CastI8:
    return ob.create<arith::FPToSIOp>(l, ob.getIntegerType(8), a[0]);
  case Builtin::CastF32:
    if (a[0].getType().isInteger(8))
      return ob.create<arith::SIToFPOp>(l, ob.getF32Type(), a[0]);
    if (a[0].getType().isInteger(1)) // true 1, false 0
      return ob.create<arith::UIToFPOp>(l, ob.getF32Type(), a[0]);
    return a[0];
  case Builtin::Where:
    return ob.create<arith::SelectOp>(l, a[0], a[1], a[2]);
  case Builtin::ScanSum:
    return ob.create<cr::ScanOp>(l, cr::ScanKind::sum, a[0]);
  case Builtin::ScanMax:
    return ob.create<cr::ScanOp>(l, cr::ScanKind::max, a[0]);
  case Builtin::ScanMin:
    return ob.create<cr::ScanOp>(l, cr::ScanKind::min, a[0]);
  case Builtin::Sort:
    return ob.create<cr::SortOp>(l, a[0]);
  default:
    llvm_unreachable("reductions and selections are lowered by emitReduction");
  }
}

mlir::Value KernelLowering::emitElem(const Expr &e, RegionScope &scope) {
  mlir::OpBuilder &ob = scope.b;
  mlir::Location l = loc(e.loc);
  switch (e.kind) {
  case Expr::Number:
    return constant(ob, l, llvm::cast<NumberExpr>(e).value);
  case Expr::Name: {
    const Symbol *s = llvm::cast<NameExpr>(e).symbol;
    if (s->kind == Symbol::ElementIndex)
      return ob.create<cr::IndexOp>(l, ob.getF32Type());
    if (inlinedInRegions(s)) {
      auto it = scope.lets.find(s);
      if (it != scope.lets.end())
        return it->second;
      mlir::Value v = emitElem(*s->value, scope);
      scope.lets[s] = v;
      return v;
    }
    return scope.args.lookup(s);
  }
  case Expr::Index: {
    auto &ix = llvm::cast<IndexExpr>(e);
    mlir::Value arg = scope.args.lookup(ix.symbol);
    if (ix.offset == 0)
      return arg;
    return ob.create<cr::NeighborOp>(l, arg, ix.offset);
  }
  case Expr::Unary: {
    auto &u = llvm::cast<UnaryExpr>(e);
    return applyUnary(ob, l, u.op, emitElem(*u.operand, scope));
  }
  case Expr::Binary: {
    auto &bin = llvm::cast<BinaryExpr>(e);
    mlir::Value lhs = emitElem(*bin.lhs, scope);
    mlir::Value rhs = emitElem(*bin.rhs, scope);
    return applyBinary(ob, l, bin.op, lhs, rhs);
  }
  case Expr::Call: {
    auto &c = llvm::cast<CallExpr>(e);
    llvm::SmallVector<mlir::Value> a;
    for (auto &arg : c.args)
      a.push_back(emitElem(*arg, scope));
    return applyBuiltin(ob, l, static_cast<Builtin>(c.builtin), a);
  }
  }
  llvm_unreachable("unknown expression");
}

mlir::Value KernelLowering::emitReduction(const CallExpr &c) {
  auto bi = static_cast<Builtin>(c.builtin);
  mlir::Location l = loc(c.loc);
  llvm::SetVector<const Symbol *> free;
  llvm::DenseSet<const Symbol *> seen;
  collectFree(*c.args[0], free, seen);
  llvm::SmallVector<mlir::Value> operands = operandsFor(free);
  auto body = [&](mlir::OpBuilder &rb, mlir::Location bl, mlir::ValueRange args) {
    RegionScope scope{rb, {}, {}};
    for (size_t i = 0; i < free.size(); ++i)
      scope.args[free[i]] = args[i];
    mlir::Value g = emitElem(*c.args[0], scope);
    rb.create<cr::YieldOp>(bl, g);
  };
  if (bi == Builtin::ReduceLogSumExp) {
    // log(s) + m of the online statistic (m, s) with pivot e and weight 1.
    auto online = b.create<cr::ReduceSumExpOp>(
        l, 1, operands, [&](mlir::OpBuilder &rb, mlir::Location bl, mlir::ValueRange args) {
          RegionScope scope{rb, {}, {}};
          for (size_t i = 0; i < free.size(); ++i)
            scope.args[free[i]] = args[i];
          mlir::Value e = emitElem(*c.args[0], scope);
          rb.create<cr::YieldOp>(bl, mlir::ValueRange{e, constant(rb, bl, 1.0)});
        });
    mlir::Value logS = b.create<mlir::math::LogOp>(l, online.getSums()[0]);
    return b.create<mlir::arith::AddFOp>(l, logS, online.getMax());
  }
  if (isReduction(bi)) {
    cr::ReduceKind kind = bi == Builtin::ReduceSum   ? cr::ReduceKind::sum
                          : bi == Builtin::ReduceMax ? cr::ReduceKind::max
                                                     : cr::ReduceKind::min;
    return b.create<cr::ReduceOp>(l, kind, operands, body).getResult();
  }
  cr::SelectKind kind = bi == Builtin::Median     ? cr::SelectKind::median
                        : bi == Builtin::Quantile ? cr::SelectKind::quantile
                                                  : cr::SelectKind::topk;
  std::optional<double> param;
  if (bi != Builtin::Median)
    param = llvm::cast<NumberExpr>(*c.args[1]).value;
  return b.create<cr::SelectOp>(l, kind, param, operands, body).getResult();
}

mlir::Value KernelLowering::emitRow(const Expr &e) {
  mlir::Location l = loc(e.loc);
  switch (e.kind) {
  case Expr::Number:
    return constant(b, l, llvm::cast<NumberExpr>(e).value);
  case Expr::Name:
    return rowValue(llvm::cast<NameExpr>(e).symbol);
  case Expr::Index:
    llvm_unreachable("neighbour access is element-level");
  case Expr::Unary: {
    auto &u = llvm::cast<UnaryExpr>(e);
    return applyUnary(b, l, u.op, emitRow(*u.operand));
  }
  case Expr::Binary: {
    auto &bin = llvm::cast<BinaryExpr>(e);
    mlir::Value lhs = emitRow(*bin.lhs);
    mlir::Value rhs = emitRow(*bin.rhs);
    return applyBinary(b, l, bin.op, lhs, rhs);
  }
  case Expr::Call: {
    auto &c = llvm::cast<CallExpr>(e);
    auto bi = static_cast<Builtin>(c.builtin);
    if (isReduction(bi) || isSelection(bi))
      return emitReduction(c);
    llvm::SmallVector<mlir::Value> a;
    for (auto &arg : c.args)
      a.push_back(emitRow(*arg));
    return applyBuiltin(b, l, bi, a);
  }
  }
  llvm_unreachable("unknown expression");
}

void KernelLowering::run() {
  b.setInsertionPointToEnd(module.getBody());
  auto kernel = b.create<cr::KernelOp>(loc(k.loc), k.name);
  b.setInsertionPointToStart(&kernel.getBodyBlock());

  // Inputs, params and N first: they are visible in the whole kernel.
  for (const Stmt &s : k.body) {
    if (s.kind == Stmt::Input) {
      const Symbol *sym = syms.byName.lookup(s.input.name);
      cr::InputKind kind = sym->kind == Symbol::RowInput         ? cr::InputKind::row
                           : sym->kind == Symbol::BroadcastInput ? cr::InputKind::broadcast
                                                                 : cr::InputKind::scalar;
      values[sym] =
          b.create<cr::InputOp>(loc(s.input.loc), s.input.name, kind, storageType(s.input.type.elem))
              .getResult();
    } else if (s.kind == Stmt::Param) {
      const Symbol *sym = syms.byName.lookup(s.param.name);
      values[sym] = (s.param.value ? b.create<cr::ParamOp>(loc(s.param.loc), s.param.name,
                                                           static_cast<float>(*s.param.value))
                                    : b.create<cr::ParamOp>(loc(s.param.loc), s.param.name))
                        .getResult();
    }
  }
  values[syms.rowWidth] = b.create<cr::RowWidthOp>(loc(k.loc)).getResult();

  struct PendingOutput {
    std::string name;
    mlir::Location l;
    mlir::Value rowValue;       // per-row outputs
    const Expr *elementExpr;    // per-element outputs (lowered into the apply)
  };
  std::vector<PendingOutput> outputs;

  for (const Stmt &s : k.body) {
    switch (s.kind) {
    case Stmt::Stage: {
      llvm::SmallVector<llvm::StringRef> names;
      for (const Assign &a : s.stage.stats)
        names.push_back(a.name);
      auto stage = b.create<cr::StageOp>(loc(s.stage.loc), names);
      {
        mlir::OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToEnd(&stage.getBodyBlock());
        llvm::SmallVector<mlir::Value> stats;
        for (const Assign &a : s.stage.stats) {
          mlir::Value v = emitRow(*a.value);
          values[syms.byName.lookup(a.name)] = v; // visible to later statistics of the stage
          stats.push_back(v);
        }
        b.create<cr::YieldOp>(loc(s.stage.loc), stats);
      }
      for (size_t i = 0; i < s.stage.stats.size(); ++i)
        values[syms.byName.lookup(s.stage.stats[i].name)] = stage.getResult(i);
      break;
    }
    case Stmt::Let: {
      const Symbol *sym = syms.byName.lookup(s.let.name);
      if (sym->kind == Symbol::RowLet)
        values[sym] = emitRow(*s.let.value);
      break; // element lets are inlined where used
    }
    case Stmt::OutputAssign: {
      const Symbol *out = syms.byName.lookup(s.assign.name);
      PendingOutput p{s.assign.name, loc(s.assign.loc), mlir::Value(), nullptr};
      if (out->perElementOutput)
        p.elementExpr = s.assign.value.get();
      else
        p.rowValue = emitRow(*s.assign.value);
      outputs.push_back(p);
      break;
    }
    default:
      break;
    }
  }

  // The final elementwise function h: one apply for every per-element output.
  llvm::SetVector<const Symbol *> free;
  llvm::DenseSet<const Symbol *> seen;
  llvm::SmallVector<const PendingOutput *> elementOutputs;
  for (const PendingOutput &p : outputs)
    if (p.elementExpr) {
      collectFree(*p.elementExpr, free, seen);
      elementOutputs.push_back(&p);
    }
  llvm::DenseMap<const PendingOutput *, mlir::Value> applyResults;
  if (!elementOutputs.empty()) {
    auto body = [&](mlir::OpBuilder &rb, mlir::Location bl, mlir::ValueRange args) {
      RegionScope scope{rb, {}, {}};
      for (size_t i = 0; i < free.size(); ++i)
        scope.args[free[i]] = args[i];
      llvm::SmallVector<mlir::Value> results;
      for (const PendingOutput *p : elementOutputs)
        results.push_back(emitElem(*p->elementExpr, scope));
      rb.create<cr::YieldOp>(bl, results);
    };
    // Each row output's storage type: a float result is rounded to it at the store.
    llvm::SmallVector<mlir::Type> storage;
    for (const PendingOutput *p : elementOutputs) {
      const Symbol *out = syms.byName.lookup(p->name);
      ast::ElemType declared = k.body[out->stmtIndex].output.type.elem;
      storage.push_back(out->type == ast::ElemType::F32 ? storageType(declared) : mlir::Type());
    }
    auto apply = b.create<cr::ApplyOp>(elementOutputs.front()->l, operandsFor(free), body, storage);
    for (size_t i = 0; i < elementOutputs.size(); ++i)
      applyResults[elementOutputs[i]] = apply.getResult(i);
  }
  // Outputs in declaration order: that is the order of every generated
  // signature (launchers, reference).
  std::vector<const PendingOutput *> ordered;
  for (const PendingOutput &p : outputs)
    ordered.push_back(&p);
  llvm::stable_sort(ordered, [&](const PendingOutput *a, const PendingOutput *b) {
    return syms.byName.lookup(a->name)->stmtIndex < syms.byName.lookup(b->name)->stmtIndex;
  });
  for (const PendingOutput *p : ordered)
    b.create<cr::OutputOp>(p->l, p->name, p->elementExpr ? applyResults[p] : p->rowValue);
}

} // namespace

void credit::lowerKernel(mlir::ModuleOp module, const Kernel &kernel, const KernelSymbols &symbols,
                         const llvm::SourceMgr &sm, llvm::StringRef filename) {
  KernelLowering(module, kernel, symbols, sm, filename).run();
}
