//===- StageStructure.cpp - Dependences of statistics, the stage plan -----===//
//
// The dependence analysis over statistics, the recognition of a sum of
// exponentials relative to a max and of a centred sum of squares, and the plan
// credit-merge-stages carries out: the earliest stage of every statistic
// (StageStructure.h).
//
//===----------------------------------------------------------------------===//
#include "credit/Dialect/Credit/Transforms/StageStructure.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::credit;

namespace {

bool isReductionOp(Operation *op) {
  return llvm::isa<ReduceOp, ReduceSumExpOp, ReduceMomentsOp, SelectOp>(op);
}

/// Ops of `block` from which `root` is computed, in block order (values
/// defined outside the block end the walk).
llvm::SmallVector<Operation *> sliceInBlock(Block &block, Value root) {
  llvm::SetVector<Operation *> ops;
  llvm::SmallVector<Value> work{root};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != &block || !ops.insert(def))
      continue;
    for (Value operand : def->getOperands())
      work.push_back(operand);
  }
  llvm::SmallVector<Operation *> sorted(ops.begin(), ops.end());
  llvm::sort(sorted, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return sorted;
}

/// Statistics `v` is computed from, through row-level math and the operands
/// of reductions; stops at stage results.
void collectStatistics(Value v, const StatisticDependences &deps, llvm::DenseSet<Value> &seen,
                       llvm::SmallVectorImpl<unsigned> &out) {
  if (!seen.insert(v).second)
    return;
  int index = deps.indexOf(v);
  if (index >= 0) {
    if (!llvm::is_contained(out, static_cast<unsigned>(index)))
      out.push_back(static_cast<unsigned>(index));
    return;
  }
  if (Operation *def = v.getDefiningOp())
    for (Value operand : def->getOperands())
      collectStatistics(operand, deps, seen, out);
}

/// Whether `v`, inside an element region, is computed from block argument
/// `arg`.
bool usesArg(Value v, BlockArgument arg) {
  llvm::SmallVector<Value> work{v};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value cur = work.pop_back_val();
    if (cur == arg)
      return true;
    if (!seen.insert(cur).second)
      continue;
    if (Operation *def = cur.getDefiningOp())
      for (Value operand : def->getOperands())
        work.push_back(operand);
  }
  return false;
}

using ExprMemo = llvm::DenseMap<std::pair<Value, Value>, bool>;

bool sameElementExpr(Value a, ElementRegionOpInterface ra, Value b, ElementRegionOpInterface rb,
                     ExprMemo &memo);

/// One step of sameElementExpr: a and b are the same argument, or the same op
/// over operands that are the same expressions.
bool sameElementStep(Value a, ElementRegionOpInterface ra, Value b, ElementRegionOpInterface rb,
                     ExprMemo &memo) {
  auto argA = llvm::dyn_cast<BlockArgument>(a);
  auto argB = llvm::dyn_cast<BlockArgument>(b);
  if (argA || argB) {
    if (!argA || !argB || argA.getOwner() != &ra.getBodyBlock() ||
        argB.getOwner() != &rb.getBodyBlock())
      return false;
    return ra.getInputForArg(argA) == rb.getInputForArg(argB);
  }
  Operation *da = a.getDefiningOp();
  Operation *db = b.getDefiningOp();
  if (!da || !db || da->getName() != db->getName() ||
      da->getAttrDictionary() != db->getAttrDictionary() ||
      da->getNumOperands() != db->getNumOperands() || da->getNumRegions() || db->getNumRegions() ||
      da->getResultTypes() != db->getResultTypes() ||
      llvm::cast<OpResult>(a).getResultNumber() != llvm::cast<OpResult>(b).getResultNumber())
    return false;
  for (auto [x, y] : llvm::zip(da->getOperands(), db->getOperands()))
    if (!sameElementExpr(x, ra, y, rb, memo))
      return false;
  return true;
}

/// The same element expression: the same ops with the same attributes over
/// the same outer operands (block arguments standing for the same value).
/// Expressions are DAGs: `memo` keeps the pairs already compared.
bool sameElementExpr(Value a, ElementRegionOpInterface ra, Value b, ElementRegionOpInterface rb,
                     ExprMemo &memo) {
  auto known = memo.find({a, b});
  if (known != memo.end())
    return known->second;
  bool same = sameElementStep(a, ra, b, rb, memo);
  memo[{a, b}] = same;
  return same;
}

} // namespace

int StatisticDependences::indexOf(Value stageResult) const {
  auto res = llvm::dyn_cast<OpResult>(stageResult);
  if (!res || !llvm::isa<StageOp>(res.getOwner()))
    return -1;
  for (auto [i, s] : llvm::enumerate(statistics))
    if (StageOp(s.stage).getOperation() == res.getOwner() && s.result == res.getResultNumber())
      return static_cast<int>(i);
  return -1;
}

StatisticDependences mlir::credit::computeStatisticDependences(KernelOp kernel) {
  StatisticDependences deps;
  unsigned stageNo = 0;
  for (StageOp stage : kernel.getStageOps()) {
    ++stageNo;
    for (unsigned i = 0; i < stage.getNumResults(); ++i) {
      Statistic s{stage, i, stageNo, stage.getResultName(i), stage.getLoc(), {}};
      for (Operation *op : sliceInBlock(stage.getBodyBlock(), stage.getYieldOp().getOperand(i)))
        if (isReductionOp(op)) {
          s.loc = op->getLoc();
          break;
        }
      deps.statistics.push_back(s);
    }
  }
  for (Statistic &s : deps.statistics) {
    llvm::DenseSet<Value> seen;
    collectStatistics(s.stage.getYieldOp().getOperand(s.result), deps, seen, s.dependsOn);
    llvm::sort(s.dependsOn);
  }
  ApplyOp apply = kernel.getApplyOp();
  for (OutputOp out : kernel.getOutputOps()) {
    OutputDependence d{out, {}};
    llvm::DenseSet<Value> seen;
    Value v = out.getValue();
    auto res = llvm::dyn_cast<OpResult>(v);
    if (apply && res && res.getOwner() == apply.getOperation()) {
      // Only the operands this output's element expression reads.
      Block &body = apply.getBodyBlock();
      Value yielded = apply.getYieldOp().getOperand(res.getResultNumber());
      for (BlockArgument arg : body.getArguments())
        if (usesArg(yielded, arg))
          collectStatistics(apply.getInputForArg(arg), deps, seen, d.dependsOn);
    } else {
      collectStatistics(v, deps, seen, d.dependsOn);
    }
    llvm::sort(d.dependsOn);
    deps.outputs.push_back(std::move(d));
  }
  return deps;
}

std::optional<SumOfExp> mlir::credit::matchSumOfExp(ReduceOp sum) {
  if (sum.getKind() != ReduceKind::sum)
    return std::nullopt;
  Block &body = sum.getBodyBlock();
  // exp(p - m), m an element argument standing for a row-level value.
  auto matchExp = [&](Value e) -> std::optional<std::pair<Value, BlockArgument>> {
    auto exp = e.getDefiningOp<math::ExpOp>();
    auto sub = exp ? exp.getOperand().getDefiningOp<arith::SubFOp>() : arith::SubFOp();
    auto m = sub ? llvm::dyn_cast<BlockArgument>(sub.getRhs()) : BlockArgument();
    if (!m || m.getOwner() != &body || sum.isRowInput(m.getArgNumber()))
      return std::nullopt;
    return std::make_pair(sub.getLhs(), m);
  };
  Value g = sum.getYieldOp().getOperand(0);
  Value weight;
  auto e = matchExp(g);
  if (!e)
    if (auto mul = g.getDefiningOp<arith::MulFOp>()) {
      if ((e = matchExp(mul.getLhs())))
        weight = mul.getRhs();
      else if ((e = matchExp(mul.getRhs())))
        weight = mul.getLhs();
    }
  if (!e)
    return std::nullopt;
  auto [pivot, mArg] = *e;
  if (weight && usesArg(weight, mArg))
    return std::nullopt;
  // m is a statistic that is exactly the max of a reduction of an earlier stage.
  Value m = sum.getInputForArg(mArg);
  auto res = llvm::dyn_cast<OpResult>(m);
  auto stage = res ? llvm::dyn_cast<StageOp>(res.getOwner()) : StageOp();
  if (!stage || stage == sum->getParentOp())
    return std::nullopt;
  auto max = stage.getYieldOp().getOperand(res.getResultNumber()).getDefiningOp<ReduceOp>();
  if (!max || max.getKind() != ReduceKind::max)
    return std::nullopt;
  auto rmax = llvm::cast<ElementRegionOpInterface>(max.getOperation());
  auto rsum = llvm::cast<ElementRegionOpInterface>(sum.getOperation());
  ExprMemo memo;
  if (!sameElementExpr(max.getYieldOp().getOperand(0), rmax, pivot, rsum, memo))
    return std::nullopt;
  return SumOfExp{sum, max, weight, mArg.getArgNumber()};
}

/// The `credit.reduce <sum>` that `c` is the mean of: a stage result
/// `sum(e) / N`, or a let `s / N` of a stage result s that is `sum(e)`.
static ReduceOp sumOfMean(Value c) {
  auto isRowWidth = [](Value n) { return n.getDefiningOp<RowWidthOp>() != nullptr; };
  auto stageValue = [](Value v) -> Value {
    auto res = llvm::dyn_cast<OpResult>(v);
    auto stage = res ? llvm::dyn_cast<StageOp>(res.getOwner()) : StageOp();
    return stage ? stage.getYieldOp().getOperand(res.getResultNumber()) : Value();
  };
  auto plainSum = [](Value v) {
    auto sum = v ? v.getDefiningOp<ReduceOp>() : ReduceOp();
    return sum && sum.getKind() == ReduceKind::sum ? sum : ReduceOp();
  };
  if (Value inStage = stageValue(c)) {
    auto div = inStage.getDefiningOp<arith::DivFOp>();
    return div && isRowWidth(div.getRhs()) ? plainSum(div.getLhs()) : ReduceOp();
  }
  auto div = c.getDefiningOp<arith::DivFOp>();
  if (!div || !isRowWidth(div.getRhs()) || llvm::isa<StageOp>(div->getParentOp()))
    return ReduceOp();
  return plainSum(stageValue(div.getLhs()));
}

std::optional<CentredSquares> mlir::credit::matchCentredSquares(ReduceOp squares) {
  if (squares.getKind() != ReduceKind::sum)
    return std::nullopt;
  Block &body = squares.getBodyBlock();
  auto mul = squares.getYieldOp().getOperand(0).getDefiningOp<arith::MulFOp>();
  if (!mul || mul.getLhs() != mul.getRhs())
    return std::nullopt;
  auto sub = mul.getLhs().getDefiningOp<arith::SubFOp>();
  if (!sub)
    return std::nullopt;
  // (e - c) or (c - e): the same square.
  auto rowLevelArg = [&](Value v) {
    auto arg = llvm::dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner() == &body && !squares.isRowInput(arg.getArgNumber()) ? arg
                                                                                       : BlockArgument();
  };
  BlockArgument cArg = rowLevelArg(sub.getRhs());
  Value term = sub.getLhs();
  if (!cArg) {
    cArg = rowLevelArg(sub.getLhs());
    term = sub.getRhs();
  }
  if (!cArg || usesArg(term, cArg))
    return std::nullopt;
  ReduceOp sum = sumOfMean(squares.getInputForArg(cArg));
  if (!sum || sum->getParentOp() == squares->getParentOp())
    return std::nullopt;
  auto rsum = llvm::cast<ElementRegionOpInterface>(sum.getOperation());
  auto rsq = llvm::cast<ElementRegionOpInterface>(squares.getOperation());
  ExprMemo memo;
  if (!sameElementExpr(sum.getYieldOp().getOperand(0), rsum, term, rsq, memo))
    return std::nullopt;
  return CentredSquares{squares, sum, cArg.getArgNumber()};
}

bool StagePlan::changesStructure() const {
  if (!fusions.empty() || !moments.empty())
    return true;
  for (auto [i, s] : llvm::enumerate(deps.statistics))
    if (level[i] != s.writtenStage)
      return true;
  return false;
}

const StagePlan::Fusion *StagePlan::fusionOf(Operation *max) const {
  for (const Fusion &f : fusions)
    if (ReduceOp(f.max).getOperation() == max)
      return &f;
  return nullptr;
}

const SumOfExp *StagePlan::fusedSum(Operation *op) const {
  for (const Fusion &f : fusions)
    for (const SumOfExp &s : f.sums)
      if (ReduceOp(s.sum).getOperation() == op)
        return &s;
  return nullptr;
}

const CentredSquares *StagePlan::momentsOf(Operation *sum) const {
  for (const CentredSquares &m : moments)
    if (ReduceOp(m.sum).getOperation() == sum)
      return &m;
  return nullptr;
}

const CentredSquares *StagePlan::fusedSquares(Operation *op) const {
  for (const CentredSquares &m : moments)
    if (ReduceOp(m.squares).getOperation() == op)
      return &m;
  return nullptr;
}

namespace {
/// planStages with the reductions of `apart` never fused.
StagePlan planStagesApart(KernelOp kernel, bool fuseOnline, bool fuseMoments,
                          const llvm::DenseSet<Operation *> &apart) {
  StagePlan plan;
  plan.deps = computeStatisticDependences(kernel);
  plan.level.assign(plan.deps.statistics.size(), 0);
  auto levelOf = [&](Value v) {
    auto it = plan.valueLevel.find(v);
    return it == plan.valueLevel.end() ? 0u : it->second;
  };
  // The identity plan, kept where the kernel is outside what the rewrite
  // handles (a statistic without a reduction, a reduction reading a value of
  // its own stage): only hand-written IR can be like that.
  auto identity = [&] {
    for (auto [i, s] : llvm::enumerate(plan.deps.statistics))
      plan.level[i] = s.writtenStage;
    plan.fusions.clear();
    plan.moments.clear();
    plan.numStages = plan.writtenStages;
    return plan;
  };
  llvm::DenseMap<Operation *, unsigned> place; // reduction -> its stage after the rewrite
  unsigned statBase = 0;
  for (Operation &op : kernel.getBodyBlock()) {
    auto stage = llvm::dyn_cast<StageOp>(op);
    if (!stage) {
      if (llvm::isa<InputOp, ParamOp, RowWidthOp, ApplyOp, OutputOp>(op))
        continue;
      unsigned l = 0;
      for (Value operand : op.getOperands())
        l = std::max(l, levelOf(operand));
      for (Value result : op.getResults())
        plan.valueLevel[result] = l;
      continue;
    }
    ++plan.writtenStages;
    Block &body = stage.getBodyBlock();
    YieldOp yield = stage.getYieldOp();
    unsigned n = stage.getNumResults();
    // Statistics sharing an op of the stage body move together.
    llvm::EquivalenceClasses<unsigned> groups;
    llvm::DenseMap<Operation *, unsigned> owner;
    for (unsigned i = 0; i < n; ++i) {
      groups.insert(i);
      bool hasReduction = false;
      for (Operation *inner : sliceInBlock(body, yield.getOperand(i))) {
        hasReduction |= isReductionOp(inner);
        auto [it, inserted] = owner.try_emplace(inner, i);
        if (!inserted)
          groups.unionSets(it->second, i);
      }
      if (!hasReduction)
        return identity();
    }
    for (Operation &inner : body.without_terminator())
      if (isReductionOp(&inner))
        for (Value operand : inner.getOperands())
          if (operand.getParentBlock() == &body)
            return identity();
    // Sums of exponentials relative to a max of an earlier stage, centred
    // sums of squares around the mean of a sum of an earlier stage: each
    // joins that reduction (its anchor) in the anchor's stage.
    struct Candidate {
      Operation *anchor;
      unsigned statOperand; // the operand that is the anchor's statistic
      std::optional<SumOfExp> exp;
      std::optional<CentredSquares> squares;
    };
    llvm::DenseMap<Operation *, Candidate> candidates;
    for (ElementRegionOpInterface red : stage.getReductions()) {
      auto sum = llvm::dyn_cast<ReduceOp>(red.getOperation());
      if (!sum || !owner.count(sum) || apart.contains(sum))
        continue;
      if (std::optional<SumOfExp> match = fuseOnline ? matchSumOfExp(sum) : std::nullopt) {
        if (place.count(match->max))
          candidates[sum] = {match->max, match->maxOperand, match, std::nullopt};
      } else if (std::optional<CentredSquares> sq =
                     fuseMoments ? matchCentredSquares(sum) : std::nullopt) {
        // The anchor stays a plain sum: not itself fused, nor joined twice.
        bool joined = plan.fusedSum(sq->sum) || plan.momentsOf(sq->sum) ||
                      llvm::any_of(candidates, [&](auto &c) { return c.second.anchor == sq->sum; });
        if (place.count(sq->sum) && !joined)
          candidates[sum] = {sq->sum, sq->meanOperand, std::nullopt, sq};
      }
    }
    llvm::DenseSet<Operation *> refused;
    llvm::DenseMap<unsigned, unsigned> groupLevel; // by leader
    llvm::DenseMap<Operation *, unsigned> opLevel;
    while (true) {
      opLevel.clear();
      for (Operation &inner : body.without_terminator()) {
        unsigned l = 0;
        if (isReductionOp(&inner)) {
          auto cand = candidates.find(&inner);
          bool fuse = cand != candidates.end() && !refused.contains(&inner);
          unsigned others = 0, all = 0;
          for (auto [i, operand] : llvm::enumerate(inner.getOperands())) {
            all = std::max(all, levelOf(operand));
            if (!fuse || i != cand->second.statOperand)
              others = std::max(others, levelOf(operand));
          }
          // Fused, the reduction runs in its anchor's pass: its other
          // operands must be known before that pass.
          unsigned anchorStage = fuse ? place.lookup(cand->second.anchor) : 0;
          if (fuse && others < anchorStage)
            l = anchorStage;
          else {
            if (fuse)
              refused.insert(&inner);
            l = 1 + all;
          }
        } else {
          for (Value operand : inner.getOperands())
            l = std::max(l, levelOf(operand));
        }
        opLevel[&inner] = l;
        for (Value result : inner.getResults())
          plan.valueLevel[result] = l;
      }
      groupLevel.clear();
      for (auto &[inner, stat] : owner) {
        unsigned &g = groupLevel[groups.getLeaderValue(stat)];
        g = std::max({g, 1u, opLevel.lookup(inner)});
      }
      // A fused reduction whose statistics must wait for a later stage would
      // be needed from the anchor's stage by a later one: leave it unfused.
      bool again = false;
      for (auto &[sum, match] : candidates)
        if (!refused.contains(sum) &&
            groupLevel[groups.getLeaderValue(owner.lookup(sum))] != place.lookup(match.anchor)) {
          refused.insert(sum);
          again = true;
        }
      if (!again)
        break;
    }
    for (auto &[inner, stat] : owner) {
      unsigned l = groupLevel[groups.getLeaderValue(stat)];
      plan.opStage[inner] = l;
      if (isReductionOp(inner))
        place[inner] = l;
    }
    for (unsigned i = 0; i < n; ++i) {
      unsigned l = groupLevel[groups.getLeaderValue(i)];
      plan.valueLevel[stage.getResult(i)] = l;
      plan.level[statBase + i] = l;
      plan.numStages = std::max(plan.numStages, l);
    }
    statBase += n;
    for (ElementRegionOpInterface red : stage.getReductions()) {
      auto it = candidates.find(red.getOperation());
      if (it == candidates.end() || refused.contains(red.getOperation()))
        continue;
      if (it->second.squares) {
        plan.moments.push_back(*it->second.squares);
        continue;
      }
      const SumOfExp &match = *it->second.exp;
      auto f = llvm::find_if(plan.fusions, [&](const StagePlan::Fusion &x) {
        return x.max == match.max;
      });
      if (f == plan.fusions.end()) {
        plan.fusions.push_back({match.max, {}});
        f = std::prev(plan.fusions.end());
      }
      f->sums.push_back(match);
    }
  }
  // A rewrite that removes no stage saves no pass and no barrier round; it only
  // changes which pass first reads an input (earlier, with less to overlap the
  // exchange with where the row is kept on chip). It is not made.
  if (plan.numStages >= plan.writtenStages)
    return identity();
  return plan;
}
} // namespace

StagePlan mlir::credit::planStages(KernelOp kernel, bool fuseOnline, bool fuseMoments) {
  llvm::DenseSet<Operation *> apart;
  StagePlan plan = planStagesApart(kernel, fuseOnline, fuseMoments, apart);
  // A fusion costs work per element (an exp and a rescale, the centred square's
  // update) and a partial per stage: it is kept only where it removes a stage
  // that the plan without it has.
  llvm::SmallVector<Operation *> fused;
  for (const StagePlan::Fusion &f : plan.fusions)
    for (const SumOfExp &e : f.sums)
      fused.push_back(e.sum);
  for (const CentredSquares &m : plan.moments)
    fused.push_back(m.squares);
  for (Operation *op : fused) {
    apart.insert(op);
    StagePlan without = planStagesApart(kernel, fuseOnline, fuseMoments, apart);
    if (without.numStages <= plan.numStages)
      plan = std::move(without);
    else
      apart.erase(op);
  }
  return plan;
}
