//===- MergeStages.cpp - credit-merge-stages ------------------------------===//
//
// Rebuilds the stages of a kernel from planStages (StageStructure.h): every
// statistic moves to the earliest stage whose pass can compute it, stages
// left empty disappear, (option fuse-online) a sum of exponentials relative
// to a max joins the max as one credit.reduce_sumexp, and (option
// fuse-moments) a centred sum of squares joins the sum whose mean it is
// centred on as one credit.reduce_moments. Every statistic keeps its
// reductions and post-computation op for op, so its value is the same; a fused
// reduction is the two-pass value computed in one sweep.
// Records the figures as written and what moved as `credit.stage_opt`.
//
//===----------------------------------------------------------------------===//
#include "credit/Dialect/Credit/IR/StageOptRecord.h"
#include "credit/Dialect/Credit/Transforms/Analyses.h"
#include "credit/Dialect/Credit/Transforms/Passes.h"
#include "credit/Dialect/Credit/Transforms/StageStructure.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/SetVector.h"

namespace mlir::credit {
#define GEN_PASS_DEF_CREDITMERGESTAGES
#include "credit/Dialect/Credit/Transforms/Passes.h.inc"
} // namespace mlir::credit

using namespace mlir;
using namespace mlir::credit;

namespace {

/// Clones into `b` the ops of `src` that `root` is computed from, in block
/// order, through `map`; returns root's image.
Value cloneSlice(OpBuilder &b, Block &src, Value root, IRMapping &map) {
  llvm::SetVector<Operation *> ops;
  llvm::SmallVector<Value> work{root};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != &src || !ops.insert(def))
      continue;
    for (Value operand : def->getOperands())
      work.push_back(operand);
  }
  llvm::SmallVector<Operation *> sorted(ops.begin(), ops.end());
  llvm::sort(sorted, [](Operation *a, Operation *c) { return a->isBeforeInBlock(c); });
  for (Operation *op : sorted)
    b.clone(*op, map);
  return map.lookupOrDefault(root);
}

class StageBuilder {
public:
  StageBuilder(KernelOp kernel, const StagePlan &plan) : kernel(kernel), plan(plan) {}
  void run();

private:
  /// Makes `v` usable in the post-computation of new stage `k` (`local`):
  /// a statistic of stage k is its value in the body, a let known only after
  /// stage k is recomputed there.
  void prepare(Value v, unsigned k, OpBuilder &b, IRMapping &local);
  void buildOnline(const StagePlan::Fusion &f, unsigned k, OpBuilder &b, IRMapping &local);
  void buildMoments(const CentredSquares &m, unsigned k, OpBuilder &b, IRMapping &local);

  KernelOp kernel;
  const StagePlan &plan;
};

void StageBuilder::prepare(Value v, unsigned k, OpBuilder &b, IRMapping &local) {
  if (local.contains(v))
    return;
  Operation *def = v.getDefiningOp();
  if (!def || def->getBlock() != &kernel.getBodyBlock() || llvm::isa<StageOp>(def) ||
      llvm::isa<InputOp, ParamOp, RowWidthOp>(def) || plan.valueLevel.lookup(v) != k)
    return;
  for (Value operand : def->getOperands())
    prepare(operand, k, b, local);
  b.clone(*def, local);
}

void StageBuilder::buildOnline(const StagePlan::Fusion &f, unsigned k, OpBuilder &b,
                               IRMapping &local) {
  ReduceOp max = f.max;
  llvm::SmallVector<Value> operands(max.getInputs().begin(), max.getInputs().end());
  for (const SumOfExp &s : f.sums)
    for (auto [i, v] : llvm::enumerate(ReduceOp(s.sum).getInputs()))
      if (i != s.maxOperand)
        operands.push_back(v);
  for (Value &v : operands) {
    prepare(v, k, b, local);
    v = local.lookupOrDefault(v);
  }
  llvm::SmallVector<Location> locs{max.getLoc()};
  for (const SumOfExp &s : f.sums)
    locs.push_back(ReduceOp(s.sum).getLoc());
  auto online =
      b.create<ReduceSumExpOp>(FusedLoc::get(kernel.getContext(), locs), f.sums.size(), operands);
  Block &nb = online.getBodyBlock();
  OpBuilder rb = OpBuilder::atBlockEnd(&nb);
  IRMapping rm;
  unsigned next = 0;
  for (BlockArgument arg : max.getBodyBlock().getArguments())
    rm.map(arg, nb.getArgument(next++));
  for (Operation &op : max.getBodyBlock().without_terminator())
    rb.clone(op, rm);
  llvm::SmallVector<Value> yielded{rm.lookupOrDefault(max.getYieldOp().getOperand(0))};
  for (const SumOfExp &s : f.sums) {
    ReduceOp sum = s.sum;
    IRMapping sm;
    for (BlockArgument arg : sum.getBodyBlock().getArguments())
      if (arg.getArgNumber() != s.maxOperand)
        sm.map(arg, nb.getArgument(next++));
    if (s.weight)
      yielded.push_back(cloneSlice(rb, sum.getBodyBlock(), s.weight, sm));
    else
      yielded.push_back(rb.create<arith::ConstantOp>(sum.getLoc(), rb.getF32FloatAttr(1.0f)));
  }
  rb.create<YieldOp>(max.getLoc(), yielded);
  local.map(max.getResult(), online.getMax());
  for (auto [j, s] : llvm::enumerate(f.sums))
    local.map(s.sum.getResult(), online.getSums()[j]);
}

void StageBuilder::buildMoments(const CentredSquares &m, unsigned k, OpBuilder &b,
                                IRMapping &local) {
  ReduceOp sum = m.sum;
  llvm::SmallVector<Value> operands(sum.getInputs().begin(), sum.getInputs().end());
  for (Value &v : operands) {
    prepare(v, k, b, local);
    v = local.lookupOrDefault(v);
  }
  Location loc = FusedLoc::get(kernel.getContext(), {sum.getLoc(), ReduceOp(m.squares).getLoc()});
  auto moments = b.create<ReduceMomentsOp>(loc, operands);
  Block &nb = moments.getBodyBlock();
  OpBuilder rb = OpBuilder::atBlockEnd(&nb);
  IRMapping rm;
  for (auto [from, to] : llvm::zip(sum.getBodyBlock().getArguments(), nb.getArguments()))
    rm.map(from, to);
  for (Operation &op : sum.getBodyBlock().without_terminator())
    rb.clone(op, rm);
  rb.create<YieldOp>(sum.getLoc(), ValueRange{rm.lookupOrDefault(sum.getYieldOp().getOperand(0))});
  local.map(sum.getResult(), moments.getSum());
  local.map(ReduceOp(m.squares).getResult(), moments.getM2());
}

void StageBuilder::run() {
  Block &block = kernel.getBodyBlock();
  llvm::SmallVector<StageOp> old(kernel.getStageOps());
  const auto &stats = plan.deps.statistics;
  OpBuilder b(kernel.getContext());
  b.setInsertionPoint(old.front());
  llvm::DenseMap<Operation *, unsigned> newStageLevel;
  for (unsigned k = 1; k <= plan.numStages; ++k) {
    llvm::SmallVector<unsigned> members;
    for (unsigned i = 0; i < stats.size(); ++i)
      if (plan.level[i] == k)
        members.push_back(i);
    llvm::SmallVector<llvm::StringRef> names;
    for (unsigned i : members)
      names.push_back(stats[i].name);
    auto stage = b.create<StageOp>(stats[members.front()].stage.getLoc(), names);
    newStageLevel[stage] = k;
    OpBuilder sb = OpBuilder::atBlockEnd(&stage.getBodyBlock());
    IRMapping local;
    for (StageOp from : old) {
      for (Operation &op : from.getBodyBlock().without_terminator()) {
        if (plan.opStage.lookup(&op) != k || plan.fusedSum(&op) || plan.fusedSquares(&op))
          continue;
        if (const StagePlan::Fusion *f = plan.fusionOf(&op)) {
          buildOnline(*f, k, sb, local);
          continue;
        }
        if (const CentredSquares *m = plan.momentsOf(&op)) {
          buildMoments(*m, k, sb, local);
          continue;
        }
        for (Value operand : op.getOperands())
          prepare(operand, k, sb, local);
        sb.clone(op, local);
      }
      // The statistics of `from` computed here, for later post-computation.
      for (unsigned i : members)
        if (stats[i].stage == from)
          local.map(from.getResult(stats[i].result),
                    local.lookupOrDefault(from.getYieldOp().getOperand(stats[i].result)));
    }
    llvm::SmallVector<Value> yielded;
    for (unsigned i : members) {
      Value v = stats[i].stage.getYieldOp().getOperand(stats[i].result);
      prepare(v, k, sb, local);
      yielded.push_back(local.lookupOrDefault(v));
    }
    sb.create<YieldOp>(stage.getLoc(), yielded);
    for (auto [j, i] : llvm::enumerate(members))
      stats[i].stage.getResult(stats[i].result).replaceAllUsesWith(stage.getResult(j));
  }
  for (StageOp s : llvm::reverse(old))
    s.erase();

  // Kernel-level order: inputs and what needs no statistic, then each new
  // stage followed by the row-level math known after it, then h and the
  // outputs.
  unsigned last = plan.numStages + 1;
  llvm::SmallVector<std::tuple<unsigned, unsigned, unsigned, Operation *>> order;
  unsigned position = 0;
  for (Operation &op : block) {
    unsigned slot = 0, sub = 0;
    if (auto it = newStageLevel.find(&op); it != newStageLevel.end())
      slot = it->second;
    else if (llvm::isa<ApplyOp, OutputOp>(op))
      slot = last;
    else if (!llvm::isa<InputOp, ParamOp, RowWidthOp>(op) && op.getNumResults()) {
      slot = plan.valueLevel.lookup(op.getResult(0));
      sub = 1;
    }
    order.emplace_back(slot, sub, position++, &op);
  }
  llvm::sort(order);
  for (auto &entry : order)
    std::get<3>(entry)->moveBefore(&block, block.end());
}

std::string statisticOf(const StagePlan &plan, Operation *reduction) {
  for (const Statistic &s : plan.deps.statistics) {
    Value v = s.stage.getYieldOp().getOperand(s.result);
    if (v.getDefiningOp() == reduction)
      return s.name.str();
  }
  // The statistic whose post-computation uses it (log(sum(...)) + m).
  for (const Statistic &s : plan.deps.statistics) {
    if (reduction->getParentOp() != s.stage.getOperation())
      continue;
    llvm::SmallVector<Value> work{s.stage.getYieldOp().getOperand(s.result)};
    llvm::DenseSet<Value> seen;
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (!seen.insert(v).second)
        continue;
      Operation *def = v.getDefiningOp();
      if (def == reduction)
        return s.name.str();
      if (def && def->getParentOp() == s.stage.getOperation())
        for (Value operand : def->getOperands())
          work.push_back(operand);
    }
  }
  return "?";
}

/// The figures as written, the statistics that moved and the fusions.
StageOptRecord describe(const StagePlan &plan, const Traffic &t, const Barriers &k) {
  StageOptRecord r;
  StageOptRecord::AsWritten &w = r.asWritten;
  w.L = t.L;
  w.q.assign(t.q.begin(), t.q.end());
  w.baseline = t.baseline;
  w.cluster = t.cluster;
  w.reread = t.reread;
  w.keep = t.keep;
  for (InputOp in : t.kept)
    w.kept.push_back(in.getName().str());
  w.ceiling = t.ceiling;
  w.Ksync = k.sync;
  w.Kmbarrier = k.mbarrier;
  for (auto [i, s] : llvm::enumerate(plan.deps.statistics))
    if (plan.level[i] != s.writtenStage)
      r.moved.push_back({s.name.str(), s.writtenStage, plan.level[i], LocationAttr(s.loc)});
  for (const StagePlan::Fusion &f : plan.fusions) {
    StageOptRecord::Fusion fusion;
    fusion.anchor = statisticOf(plan, f.max);
    for (const SumOfExp &s : f.sums) {
      fusion.sums.push_back(statisticOf(plan, s.sum));
      fusion.sumLocations.push_back(LocationAttr(s.sum.getLoc()));
    }
    fusion.stage = plan.opStage.lookup(f.max);
    fusion.location = LocationAttr(f.max.getLoc());
    r.fused.push_back(std::move(fusion));
  }
  for (const CentredSquares &m : plan.moments) {
    StageOptRecord::Fusion fusion;
    fusion.kind = StageOptRecord::Fusion::Kind::Moments;
    fusion.anchor = statisticOf(plan, m.sum);
    fusion.sums = {statisticOf(plan, m.squares)};
    fusion.stage = plan.opStage.lookup(m.sum);
    fusion.location = LocationAttr(ReduceOp(m.sum).getLoc());
    fusion.sumLocations = {LocationAttr(ReduceOp(m.squares).getLoc())};
    r.fused.push_back(std::move(fusion));
  }
  return r;
}

/// The stages with fuse-moments and the pairs it would fuse, where it is off.
MomentsAvailable momentsAvailable(const StagePlan &with) {
  MomentsAvailable m;
  m.L = with.numStages;
  for (const CentredSquares &c : with.moments)
    m.pairs.emplace_back(statisticOf(with, c.sum), statisticOf(with, c.squares));
  return m;
}

struct CreditMergeStagesPass
    : public mlir::credit::impl::CreditMergeStagesBase<CreditMergeStagesPass> {
  using CreditMergeStagesBase::CreditMergeStagesBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    Traffic t = computeTraffic(kernel);
    Barriers k = computeBarriers(kernel);
    StagePlan plan = planStages(kernel, fuseOnline, fuseMoments);
    writeStageOpt(kernel, describe(plan, t, k));
    // What fuse-moments would save where it is off: the report says so.
    if (!fuseMoments) {
      StagePlan with = planStages(kernel, fuseOnline, /*fuseMoments=*/true);
      if (!with.moments.empty() && with.numStages < plan.numStages)
        writeMomentsAvailable(kernel, momentsAvailable(with));
    }
    if (!plan.changesStructure())
      return;
    StageBuilder(kernel, plan).run();
    // Identical reductions now in one stage are one statistic.
    OpPassManager cleanup(KernelOp::getOperationName());
    buildCanonicalizationPipeline(cleanup);
    if (failed(runPipeline(cleanup, kernel)))
      signalPassFailure();
  }
};

} // namespace
