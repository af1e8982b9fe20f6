//===- StageStructure.h - Dependences of statistics, the stage plan -*- C++ -*-===//
//
// Which statistics each statistic and each output depends on, and the
// earliest stage every statistic can be computed in. credit-merge-stages
// rebuilds the stages from this plan; the classification asks which outputs
// depend on no statistic. docs/dsl.md, "Stage optimization".
//
// Levels: a row-level value has level 0 when no statistic is needed to
// compute it (inputs, params, N, constants), else the stage after which it is
// known. A reduction can run in the pass of stage 1 + (the largest level of its
// operands); row-level math (a stage's post-computation, a let) has the
// largest level of its operands. The statistics of one stage that share an op
// (a reduction, a sub-expression) form a group and move together.
//
//===----------------------------------------------------------------------===//
#ifndef CREDIT_DIALECT_CREDIT_TRANSFORMS_STAGESTRUCTURE_H
#define CREDIT_DIALECT_CREDIT_TRANSFORMS_STAGESTRUCTURE_H

#include "credit/Dialect/Credit/IR/CreditDialect.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::credit {

// Op handles below are `mutable`: an op handle is a pointer, and its
// accessors are not const.

/// A statistic: one named result of a `credit.stage`.
struct Statistic {
  mutable StageOp stage;
  unsigned result = 0;
  unsigned writtenStage = 0; // 1-based position of `stage` among the stages
  llvm::StringRef name;
  Location loc;              // its first reduction (the source construct)
  /// Statistics (indices into StatisticDependences::statistics) its reduction
  /// terms and its post-computation use, directly or through row-level lets,
  /// ascending.
  llvm::SmallVector<unsigned> dependsOn;
};

struct OutputDependence {
  mutable OutputOp output;
  llvm::SmallVector<unsigned> dependsOn; // statistics, ascending
};

struct StatisticDependences {
  llvm::SmallVector<Statistic> statistics; // program order
  llvm::SmallVector<OutputDependence> outputs;
  /// The statistic a stage result is, or -1.
  int indexOf(Value stageResult) const;
};

/// The dependence analysis (no rewriting).
StatisticDependences computeStatisticDependences(KernelOp kernel);

/// `sum(w * exp(p - m))`, `sum(exp(p - m) * w)` or `sum(exp(p - m))` where m
/// is, as a stage result, exactly `max(p)` of an earlier stage (the same
/// element expression p over the same operands) and w does not use m.
struct SumOfExp {
  mutable ReduceOp sum;
  mutable ReduceOp max;
  Value weight;        // in sum's region; null for a weight of 1
  unsigned maxOperand; // the operand of `sum` that is m
};
std::optional<SumOfExp> matchSumOfExp(ReduceOp sum);

/// `sum((e - c) * (e - c))` (or `(c - e)`) where c is exactly `sum(e) / N` of
/// an earlier stage (the same element expression e over the same operands, N
/// the row width), as a stage result or a let of one.
struct CentredSquares {
  mutable ReduceOp squares;
  mutable ReduceOp sum;
  unsigned meanOperand; // the operand of `squares` that is c
};
std::optional<CentredSquares> matchCentredSquares(ReduceOp squares);

/// The optimized stage structure.
struct StagePlan {
  struct Fusion {
    mutable ReduceOp max;
    llvm::SmallVector<SumOfExp> sums; // in program order
  };
  StatisticDependences deps;
  /// Per statistic (parallel to deps.statistics): its stage after the
  /// rewrite, 1-based.
  llvm::SmallVector<unsigned> level;
  /// Per op inside a stage body (reductions and post-computation) that some
  /// statistic uses: the stage it moves to.
  llvm::DenseMap<Operation *, unsigned> opStage;
  /// Level of every row-level value defined at kernel level or in a stage.
  llvm::DenseMap<Value, unsigned> valueLevel;
  llvm::SmallVector<Fusion> fusions;
  /// Sums joined by their centred sum of squares: one credit.reduce_moments.
  llvm::SmallVector<CentredSquares> moments;
  unsigned numStages = 0; // L after the rewrite
  unsigned writtenStages = 0;

  /// Whether the rewrite changes anything (a statistic moves, a fusion).
  bool changesStructure() const;
  /// The fusion whose max is `op`, or null.
  const Fusion *fusionOf(Operation *max) const;
  /// The recognised sum `op` is fused into a max, or null.
  const SumOfExp *fusedSum(Operation *op) const;
  /// The moments fusion whose sum is `op`, or null.
  const CentredSquares *momentsOf(Operation *sum) const;
  /// The centred sum of squares `op` is fused into its sum, or null.
  const CentredSquares *fusedSquares(Operation *op) const;
};

/// Plans the earliest stage of every statistic; with `fuseOnline`, a sum of
/// exponentials relative to a max (matchSumOfExp) joins the max's stage as one
/// `credit.reduce_sumexp` where its weight is known before that stage and the
/// statistics using it can move there too; with `fuseMoments`, a centred sum
/// of squares (matchCentredSquares) joins its sum's stage as one
/// `credit.reduce_moments` on the same condition.
StagePlan planStages(KernelOp kernel, bool fuseOnline, bool fuseMoments = false);

} // namespace mlir::credit

#endif // CREDIT_DIALECT_CREDIT_TRANSFORMS_STAGESTRUCTURE_H
