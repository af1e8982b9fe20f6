//===- Barriers.cpp - credit-barriers -------------------------------------===//
//
// K, the cluster-wide barriers per row, for each exchange protocol:
//   sync:     the paper's replicated all-gather: per stage one barrier after
//             the pushes (partials visible) and one before the slots are
//             reused (the last one also keeps every CTA resident until its
//             peers are done with its shared memory, as the CUDA Programming
//             Guide requires of distributed shared memory): K = 2L.
//   mbarrier: per-stage transaction mbarriers, initialised once and published
//             with one cluster barrier at set-up; stages wait on local
//             mbarriers only: K = 1 (0 without stages).
//
//===----------------------------------------------------------------------===//
#include "credit/Dialect/Credit/Transforms/Analyses.h"
#include "credit/Dialect/Credit/Transforms/Passes.h"

namespace mlir::credit {
#define GEN_PASS_DEF_CREDITBARRIERS
#include "credit/Dialect/Credit/Transforms/Passes.h.inc"
} // namespace mlir::credit

using namespace mlir;
using namespace mlir::credit;

Barriers mlir::credit::computeBarriers(KernelOp kernel) {
  unsigned L = 0;
  for (const PassAccess &p : computePassAccess(kernel))
    L += llvm::isa<StageOp>(p.op) ? 1 : 0;
  Barriers k;
  k.sync = static_cast<int>(2 * L);
  k.mbarrier = L > 0 ? 1 : 0;
  return k;
}

FailureOr<Barriers> mlir::credit::readBarriers(KernelOp kernel) {
  auto d = kernel->getAttrOfType<DictionaryAttr>("credit.barriers");
  auto sync = d ? d.getAs<IntegerAttr>("sync") : IntegerAttr();
  auto mbarrier = d ? d.getAs<IntegerAttr>("mbarrier") : IntegerAttr();
  if (!sync || !mbarrier)
    return kernel.emitError("credit.barriers is missing or malformed (run credit-barriers first)");
  Barriers k;
  k.sync = static_cast<int>(sync.getInt());
  k.mbarrier = static_cast<int>(mbarrier.getInt());
  return k;
}

namespace {
struct CreditBarriersPass : public mlir::credit::impl::CreditBarriersBase<CreditBarriersPass> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    Barriers k = computeBarriers(kernel);
    Builder b(kernel.getContext());
    kernel->setAttr("credit.barriers",
                    b.getDictionaryAttr({
                        b.getNamedAttr("sync", b.getI64IntegerAttr(k.sync)),
                        b.getNamedAttr("mbarrier", b.getI64IntegerAttr(k.mbarrier)),
                    }));
    markAllAnalysesPreserved();
  }
};
} // namespace
