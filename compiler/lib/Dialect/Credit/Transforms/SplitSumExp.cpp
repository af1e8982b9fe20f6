//===- SplitSumExp.cpp - credit-split-sumexp ------------------------------===//
//
// The two-pass form of credit.reduce_sumexp, for consumers that do not compute
// the online statistic: a new stage right before computes m = max(p), and in
// the op's stage each s_j becomes sum(w_j * exp(p - m)) (sum(exp(p - m)) for a
// weight of 1). That is the statistic's definition, so the values are the
// same.
//
//===----------------------------------------------------------------------===//
#include "credit/Dialect/Credit/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/DenseSet.h"

namespace mlir::credit {
#define GEN_PASS_DEF_CREDITSPLITSUMEXP
#include "credit/Dialect/Credit/Transforms/Passes.h.inc"
} // namespace mlir::credit

using namespace mlir;
using namespace mlir::credit;

namespace {

bool isOne(Value v) {
  auto c = v.getDefiningOp<arith::ConstantOp>();
  auto f = c ? llvm::dyn_cast<FloatAttr>(c.getValue()) : FloatAttr();
  return f && f.getValueAsDouble() == 1.0;
}

/// Clones the element region of `from` into the empty block of `to` (one
/// argument per operand of `from`, in order); returns the mapping.
IRMapping cloneBody(ReduceSumExpOp from, Block &to) {
  IRMapping map;
  for (auto [a, b] : llvm::zip(from.getBodyBlock().getArguments(), to.getArguments()))
    map.map(a, b);
  OpBuilder rb = OpBuilder::atBlockEnd(&to);
  for (Operation &op : from.getBodyBlock().without_terminator())
    rb.clone(op, map);
  return map;
}

/// Whether `v`, in the body of a stage, is computed from an op of `op`.
bool computedFrom(Value v, Operation *op) {
  llvm::SmallVector<Value> work{v};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value cur = work.pop_back_val();
    Operation *def = cur.getDefiningOp();
    if (!seen.insert(cur).second || !def || def->getBlock() != op->getBlock())
      continue;
    if (def == op)
      return true;
    for (Value operand : def->getOperands())
      work.push_back(operand);
  }
  return false;
}

void split(ReduceSumExpOp online) {
  auto stage = llvm::cast<StageOp>(online->getParentOp());
  YieldOp stageYield = stage.getYieldOp();
  // The max's statistic: the one yielding it directly, else named after the
  // first statistic computed from the op (`l.max` for l = logsumexp(x)).
  std::string name;
  for (auto [i, v] : llvm::enumerate(stageYield.getOperands()))
    if (v == online.getMax()) {
      name = stage.getResultName(i).str();
      break;
    }
  for (auto [i, v] : llvm::enumerate(stageYield.getOperands()))
    if (name.empty() && computedFrom(v, online))
      name = (stage.getResultName(i) + ".max").str();
  if (name.empty())
    name = (stage.getResultName(0) + ".max").str();

  OpBuilder b(stage);
  Location loc = online.getLoc();
  auto maxStage = b.create<StageOp>(stage.getLoc(), llvm::ArrayRef<llvm::StringRef>{name});
  {
    OpBuilder sb = OpBuilder::atBlockEnd(&maxStage.getBodyBlock());
    auto max = sb.create<ReduceOp>(loc, ReduceKind::max, online.getInputs());
    IRMapping map = cloneBody(online, max.getBodyBlock());
    OpBuilder rb = OpBuilder::atBlockEnd(&max.getBodyBlock());
    rb.create<YieldOp>(loc, map.lookupOrDefault(online.getPivot()));
    sb.create<YieldOp>(loc, max.getResult());
  }
  Value m = maxStage.getResult(0);

  OpBuilder sb(online);
  llvm::SmallVector<Value> operands(online.getInputs().begin(), online.getInputs().end());
  operands.push_back(m);
  for (unsigned j = 0; j < online.getNumSums(); ++j) {
    auto sum = sb.create<ReduceOp>(loc, ReduceKind::sum, operands);
    Block &body = sum.getBodyBlock();
    IRMapping map = cloneBody(online, body);
    OpBuilder rb = OpBuilder::atBlockEnd(&body);
    Value pivot = map.lookupOrDefault(online.getPivot());
    Value e = rb.create<math::ExpOp>(loc, rb.create<arith::SubFOp>(loc, pivot, body.getArguments().back()));
    Value w = online.getWeight(j);
    Value g = isOne(w) ? e : rb.create<arith::MulFOp>(loc, map.lookupOrDefault(w), e).getResult();
    rb.create<YieldOp>(loc, g);
    online.getSums()[j].replaceAllUsesWith(sum.getResult());
  }
  online.getMax().replaceAllUsesWith(m);
  online.erase();
  // A statistic that was the max itself is now the new stage's.
  for (auto [i, v] : llvm::enumerate(stageYield.getOperands()))
    if (v == m)
      stage.getResult(i).replaceAllUsesWith(m);
}

struct CreditSplitSumExpPass
    : public mlir::credit::impl::CreditSplitSumExpBase<CreditSplitSumExpPass> {
  void runOnOperation() override {
    llvm::SmallVector<ReduceSumExpOp> ops;
    getOperation().walk([&](ReduceSumExpOp op) { ops.push_back(op); });
    if (ops.empty())
      return;
    for (ReduceSumExpOp op : ops)
      split(op);
    // Drop the statistics the new stages took over.
    OpPassManager cleanup(KernelOp::getOperationName());
    buildCanonicalizationPipeline(cleanup);
    if (failed(runPipeline(cleanup, getOperation())))
      signalPassFailure();
  }
};

} // namespace
