//===- Passes.h - credit analysis passes ------------------------*- C++ -*-===//

#ifndef CREDIT_DIALECT_CREDIT_TRANSFORMS_PASSES_H
#define CREDIT_DIALECT_CREDIT_TRANSFORMS_PASSES_H

#include "credit/Dialect/Credit/IR/CreditDialect.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

#include <memory>

namespace mlir::credit {

// Pass declarations (create<Name>() / <Name>Options) for every pass in
// Passes.td.
#define GEN_PASS_DECL
#include "credit/Dialect/Credit/Transforms/Passes.h.inc"

// registerCreditPasses(): registers every pass in Passes.td (for credit-opt).
#define GEN_PASS_REGISTRATION
#include "credit/Dialect/Credit/Transforms/Passes.h.inc"

struct AnalysisPipelineOptions : public PassPipelineOptions<AnalysisPipelineOptions> {
  Option<std::string> target{*this, "target", llvm::cl::desc("sm_90, sm_100 or sm_120"),
                             llvm::cl::init("sm_90")};
  Option<int64_t> N{*this, "N", llvm::cl::desc("Row width for the legality table (0: none)"),
                    llvm::cl::init(0)};
  Option<int> threads{*this, "threads", llvm::cl::desc("Threads per CTA (128, 256, 512, 1024)"),
                      llvm::cl::init(256)};
  Option<bool> stageOpt{*this, "stage-opt",
                        llvm::cl::desc("Run credit-merge-stages before the analyses"),
                        llvm::cl::init(true)};
  Option<bool> online{*this, "online",
                      llvm::cl::desc("Keep and create online statistics (credit.reduce_sumexp); "
                                     "false: split them into their two-pass form"),
                      llvm::cl::init(true)};
  Option<bool> moments{*this, "moments",
                       llvm::cl::desc("Fuse a sum and the centred sum of squares around its "
                                      "mean into credit.reduce_moments"),
                       llvm::cl::init(false)};
  ListOption<std::string> variants{
      *this, "variants",
      llvm::cl::desc("Kernel families the schedule lists: cluster, staged, reread, control (default all)")};
  Option<bool> onePassReread{*this, "one-pass-reread",
                             llvm::cl::desc("Also schedule a kernel rejected as one-pass, its reread forms only"),
                             llvm::cl::init(false)};
};

/// canonicalize, cse, canonicalize: what `--emit=mlir` prints after.
void buildCanonicalizationPipeline(OpPassManager &pm);
/// The stage structure, nested on every credit.kernel: credit-split-sumexp
/// unless `online` (the consumer computes credit.reduce_sumexp), then, with
/// `stageOpt`, credit-merge-stages (fusing max / sum-of-exp pairs if
/// `online`, sums and centred sums of squares if `moments`).
void buildStagePipeline(OpPassManager &pm, bool stageOpt, bool online, bool moments = false);
/// The analysis passes, in order, then credit-schedule, nested on every
/// credit.kernel.
void buildAnalysisPipeline(OpPassManager &pm, const AnalysisPipelineOptions &opts);
/// Registers `credit-analyze` (both of the above) for credit-opt.
void registerCreditPipelines();

} // namespace mlir::credit

#endif // CREDIT_DIALECT_CREDIT_TRANSFORMS_PASSES_H
