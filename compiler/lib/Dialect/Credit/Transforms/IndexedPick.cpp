//===- IndexedPick.cpp - Sums that one column decides ---------------------===//
//
// sum(where(i == u, v, 0)) with u the same for the whole row (a per-row input, a
// param, an earlier statistic) is v at column u, or 0 where no column is u: one
// element's term, not a compare, a select and an add per element. The code
// generator evaluates it at that column (docs/codegen.md, "Indexed picks").
//
//===----------------------------------------------------------------------===//
#include "credit/Dialect/Credit/Transforms/Analyses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::credit;

/// Whether `v`, inside the reduction's body, is the same for every element:
/// no element argument bound to a row, and no `i`, reaches it.
static bool isRowUniform(ReduceOp reduce, Value v) {
  if (auto arg = llvm::dyn_cast<BlockArgument>(v)) {
    if (arg.getOwner() != &reduce.getBodyBlock())
      return true;
    return !isRowValue(reduce->getOperand(arg.getArgNumber()));
  }
  Operation *def = v.getDefiningOp();
  if (!def || !reduce->isProperAncestor(def))
    return true;
  if (llvm::isa<IndexOp>(def) || def->getNumRegions() != 0)
    return false;
  return llvm::all_of(def->getOperands(), [&](Value o) { return isRowUniform(reduce, o); });
}

static bool isPositiveZero(Value v) {
  auto c = v.getDefiningOp<arith::ConstantOp>();
  auto f = c ? llvm::dyn_cast<FloatAttr>(c.getValue()) : FloatAttr();
  return f && f.getValue().isPosZero();
}

std::optional<IndexedPick> mlir::credit::matchIndexedPick(ReduceOp reduce) {
  if (reduce.getKind() != ReduceKind::sum)
    return std::nullopt;
  auto select = reduce.getYieldOp().getOperand(0).getDefiningOp<arith::SelectOp>();
  if (!select || !isPositiveZero(select.getFalseValue()))
    return std::nullopt;
  auto cmp = select.getCondition().getDefiningOp<arith::CmpFOp>();
  if (!cmp || cmp.getPredicate() != arith::CmpFPredicate::OEQ)
    return std::nullopt;
  for (auto [index, column] : {std::pair{cmp.getLhs(), cmp.getRhs()}, std::pair{cmp.getRhs(), cmp.getLhs()}})
    if (index.getDefiningOp<IndexOp>() && isRowUniform(reduce, column))
      return IndexedPick{column, select.getTrueValue()};
  return std::nullopt;
}
