//===- Passes.cpp - The credit analysis pipeline --------------------------===//
//
// Each analysis pass lives in its own file in this folder; this file strings
// them and credit-schedule together (creditc runs exactly this) and registers
// the pipeline as `credit-analyze` for credit-opt.
//
//===----------------------------------------------------------------------===//
#include "credit/Dialect/Credit/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::credit::buildCanonicalizationPipeline(OpPassManager &pm) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // CSE can leave dead element arguments behind (two reductions merged):
  // canonicalize again so operand lists are exact.
  pm.addPass(createCanonicalizerPass());
}

void mlir::credit::buildStagePipeline(OpPassManager &pm, bool stageOpt, bool online,
                                      bool moments) {
  OpPassManager &kpm = pm.nest<KernelOp>();
  if (!online)
    kpm.addPass(createCreditSplitSumExp());
  if (stageOpt) {
    CreditMergeStagesOptions merge;
    merge.fuseOnline = online;
    merge.fuseMoments = moments;
    kpm.addPass(createCreditMergeStages(merge));
  }
}

void mlir::credit::buildAnalysisPipeline(OpPassManager &pm, const AnalysisPipelineOptions &opts) {
  OpPassManager &kpm = pm.nest<KernelOp>();
  kpm.addPass(createCreditPassAccess());
  kpm.addPass(createCreditTraffic());
  kpm.addPass(createCreditBarriers());
  CreditLegalityOptions legality;
  legality.target = opts.target;
  legality.N = opts.N;
  legality.threads = opts.threads;
  kpm.addPass(createCreditLegality(legality));
  kpm.addPass(createCreditClassify());
  CreditScheduleOptions schedule;
  schedule.threads = opts.threads;
  std::vector<std::string> variants(opts.variants.begin(), opts.variants.end());
  schedule.variants = variants; // copied by the pass
  schedule.onePassReread = opts.onePassReread;
  kpm.addPass(createCreditSchedule(schedule));
}

void mlir::credit::registerCreditPipelines() {
  PassPipelineRegistration<AnalysisPipelineOptions>(
      "credit-analyze",
      "Canonicalize, CSE, credit-merge-stages, then every credit analysis pass and "
      "credit-schedule (what creditc runs)",
      [](OpPassManager &pm, const AnalysisPipelineOptions &opts) {
        buildCanonicalizationPipeline(pm);
        buildStagePipeline(pm, opts.stageOpt, opts.online, opts.moments);
        buildAnalysisPipeline(pm, opts);
      });
}
