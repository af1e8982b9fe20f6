//===- ScheduleAttr.cpp - The schedule read back from the kernel ----------===//
//
// readSchedule: the schedule of a kernel as its attributes record it.
//
//===----------------------------------------------------------------------===//
#include "credit/Dialect/Credit/Transforms/Schedule.h"

using namespace mlir;
using namespace mlir::credit;

// Until the credit-schedule pass writes `credit.schedule`, the schedule is
// recomputed at the CTA size the legality pass recorded.
FailureOr<KernelSchedule> mlir::credit::readSchedule(KernelOp kernel) {
  auto legality = kernel->getAttrOfType<DictionaryAttr>("credit.legality");
  auto threads = legality ? legality.getAs<IntegerAttr>("threads") : IntegerAttr();
  if (!threads)
    return kernel.emitError("no schedule: run the credit analysis passes first");
  return computeSchedule(kernel, static_cast<int>(threads.getInt()));
}
