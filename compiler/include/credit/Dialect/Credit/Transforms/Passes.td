//===- Passes.td - credit analysis passes -------------------*- tablegen -*-===//
//
// Analysis passes over `credit.kernel` (docs/design.md, "Analysis results").
// Generated into Passes.h.inc (-gen-pass-decls -name Credit): GEN_PASS_DECL_*,
// GEN_PASS_DEF_* and registerCreditPasses().
//
//===----------------------------------------------------------------------===//

#ifndef CREDIT_DIALECT_CREDIT_TRANSFORMS_PASSES_TD
#define CREDIT_DIALECT_CREDIT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

// Transformations, run before the analyses.

def CreditReciprocalDiv : Pass<"credit-reciprocal-div", "::mlir::credit::KernelOp"> {
  let summary = "Per-element divisions by a row-level value become multiplications "
                "by its reciprocal, computed once per row";
  let description = [{
    Inside `credit.reduce` / `credit.select` / `credit.apply`, `arith.divf %a, %s`
    where `%s` is a row-level operand (one value per row) becomes
    `arith.mulf %a, %rs` with `%rs = arith.divf 1.0, %s` computed once per row
    at kernel level, right after `%s` is defined. The element loop then
    multiplies instead of dividing (an IEEE f32 division is a multi-instruction
    sequence with a slow path); the result differs from the rounded quotient by
    at most about one ulp. Triton and torch.compile divide with the
    approximate `div.full.f32` (2 ulp) by default. `creditc --precise-div`
    skips this pass.
  }];
  let dependentDialects = ["::mlir::credit::CreditDialect", "::mlir::arith::ArithDialect"];
}

def CreditMergeStages : Pass<"credit-merge-stages", "::mlir::credit::KernelOp"> {
  let summary = "Moves every statistic to the earliest stage that can compute "
                "it; fuses a max with a sum of exponentials relative to it, "
                "a sum with the centred sum of squares around its mean";
  let description = [{
    A statistic joins stage l when every row-level value its reduction terms
    need is known before stage l's pass (its post-computation may also use
    the statistics of stage l); the statistics of a stage that share an op
    move together, and stages left empty disappear. Each statistic keeps its
    reductions and post-computation op for op. With `fuse-online`, a sum
    `sum(exp(p - m))`, `sum(w * exp(p - m))` or `sum(exp(p - m) * w)` whose
    m is exactly `max(p)` of an earlier stage, with w known before the max's
    stage, joins the max as one `credit.reduce_sumexp`. With `fuse-moments`,
    a sum `sum((e - c) * (e - c))` whose c is exactly `sum(e) / N` of an
    earlier stage joins that sum as one `credit.reduce_moments` (count, sum,
    centred sum of squares). Records the figures as
    written, the moves and the fusions as `credit.stage_opt` on the kernel
    (docs/dsl.md, "Stage optimization").
  }];
  let options = [
    Option<"fuseOnline", "fuse-online", "bool", /*default=*/"true",
           "Fuse max / sum-of-exp stage pairs into credit.reduce_sumexp">,
    Option<"fuseMoments", "fuse-moments", "bool", /*default=*/"true",
           "Fuse a sum and the centred sum of squares around its mean into "
           "credit.reduce_moments">,
  ];
  let dependentDialects = ["::mlir::credit::CreditDialect", "::mlir::arith::ArithDialect"];
}

def CreditSplitSumExp : Pass<"credit-split-sumexp", "::mlir::credit::KernelOp"> {
  let summary = "Each credit.reduce_sumexp becomes its two-pass form: a max "
                "stage, then the sums";
  let description = [{
    For consumers that do not compute the online statistic: the max of the
    pivot moves to a new stage right before, and each sum becomes
    `credit.reduce <sum>` of `w * exp(p - m)` (`exp(p - m)` for a weight of
    1), the definition of the statistic.
  }];
  let dependentDialects = ["::mlir::credit::CreditDialect", "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

// Analysis passes, in pipeline order. Each records its result as discardable
// `credit.*` attributes on the kernel (docs/report.md).

def CreditPassAccess : Pass<"credit-pass-access", "::mlir::credit::KernelOp"> {
  let summary = "Which inputs each pass over the row reads (dataflow)";
  let description = [{
    Annotates every stage and the apply with `credit.reads` /
    `credit.reads_broadcast`, and the kernel with `credit.passes`.
  }];
  let dependentDialects = ["::mlir::credit::CreditDialect"];
}

def CreditTraffic : Pass<"credit-traffic", "::mlir::credit::KernelOp"> {
  let summary = "HBM bytes per element: baseline, cluster, reread, keep, D_fixed";
  let dependentDialects = ["::mlir::credit::CreditDialect"];
}

def CreditBarriers : Pass<"credit-barriers", "::mlir::credit::KernelOp"> {
  let summary = "Cluster-wide barriers per row (K) for each exchange protocol";
  let dependentDialects = ["::mlir::credit::CreditDialect"];
}

def CreditLegality : Pass<"credit-legality", "::mlir::credit::KernelOp"> {
  let summary = "Eq. 3 legality table: S_scratch, largest N per cluster size";
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"sm_90\"",
           "Target architecture: sm_90, sm_100 or sm_120">,
    Option<"N", "N", "int64_t", /*default=*/"0",
           "Row width to test (0: only the largest legal N per P)">,
    Option<"threads", "threads", "int", /*default=*/"256",
           "Threads per CTA of the generated kernels (128, 256, 512, 1024)">,
  ];
  let dependentDialects = ["::mlir::credit::CreditDialect"];
}

def CreditClassify : Pass<"credit-classify", "::mlir::credit::KernelOp"> {
  let summary = "Accept, or reject as elementwise / one-pass / scan / stencil / selection";
  let dependentDialects = ["::mlir::credit::CreditDialect"];
}

// The schedule, after the analyses.

def CreditSchedule : Pass<"credit-schedule", "::mlir::credit::KernelOp"> {
  let summary = "How an accepted kernel runs: #credit.schedule on the kernel";
  let description = [{
    Decides, for a kernel the classification accepted (or one not classified),
    which row inputs are kept on chip and in which order, which expression is
    stored over a kept input (`credit.materialized` on the op computing it),
    which kept input the partial-retention form re-reads, which inputs only h
    reads, the CTA sizes and every kernel form generated, and records them as
    `credit.schedule = #credit.schedule<...>` (Schedule.h). Rejected kernels
    get none.
  }];
  let options = [
    Option<"threads", "threads", "int", /*default=*/"256",
           "Threads per CTA of the narrow forms (128, 256, 512, 1024)">,
    ListOption<"variants", "variants", "std::string",
               "Kernel families whose forms are generated: cluster, staged, "
               "reread, control (default all)">,
    Option<"onePassReread", "one-pass-reread", "bool", /*default=*/"false",
           "Also schedule a kernel rejected as one-pass, its reread forms only "
           "(the reread kernel's own stages: a one-pass kernel streams the row once)">,
  ];
  let dependentDialects = ["::mlir::credit::CreditDialect"];
}

#endif // CREDIT_DIALECT_CREDIT_TRANSFORMS_PASSES_TD
