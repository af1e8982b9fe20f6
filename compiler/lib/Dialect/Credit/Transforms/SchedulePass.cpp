//===- SchedulePass.cpp - credit-schedule ---------------------------------===//
//
// Runs computeSchedule on a kernel the classification accepted and records it
// (writeSchedule). Rejected kernels get no schedule: nothing is generated for
// them.
//
//===----------------------------------------------------------------------===//
#include "credit/Dialect/Credit/Transforms/Passes.h"
#include "credit/Dialect/Credit/Transforms/Schedule.h"

namespace mlir::credit {
#define GEN_PASS_DEF_CREDITSCHEDULE
#include "credit/Dialect/Credit/Transforms/Passes.h.inc"
} // namespace mlir::credit

using namespace mlir;
using namespace mlir::credit;

namespace {
struct CreditSchedulePass : public mlir::credit::impl::CreditScheduleBase<CreditSchedulePass> {
  using CreditScheduleBase::CreditScheduleBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    std::vector<std::string> names(variants.begin(), variants.end());
    std::string bad;
    FailureOr<VariantSet> subset = VariantSet::parse(names, bad);
    if (failed(subset)) {
      kernel.emitError() << "unknown variant '" << bad
                         << "' (expected cluster, staged, reread or control)";
      return signalPassFailure();
    }
    kernel->removeAttr("credit.schedule");
    if (auto c = kernel->getAttrOfType<DictionaryAttr>("credit.classification")) {
      auto category = c.getAs<StringAttr>("category");
      const bool onePass = category && category.getValue() == "one-pass";
      if (onePass && onePassReread) {
        *subset = VariantSet{false, false, true, false};
      } else if (!category || category.getValue() != "accepted") {
        markAllAnalysesPreserved();
        return;
      }
    }
    FailureOr<KernelSchedule> s = computeSchedule(kernel, threads, *subset);
    if (failed(s))
      return signalPassFailure();
    writeSchedule(kernel, *s);
    markAllAnalysesPreserved();
  }
};
} // namespace
