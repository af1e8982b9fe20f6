//===- Analyses.h - Dataflow facts the credit passes compute -----*- C++ -*-===//
//
// The computations behind the analysis passes, callable from C++ (the report,
// the CUDA emitter) without re-running a pass. Each pass in this folder calls
// one of these and records the result as attributes on `credit.kernel`.
//
//===----------------------------------------------------------------------===//
#ifndef CREDIT_DIALECT_CREDIT_TRANSFORMS_ANALYSES_H
#define CREDIT_DIALECT_CREDIT_TRANSFORMS_ANALYSES_H

#include "credit/Dialect/Credit/IR/CreditDialect.h"
#include "credit/runtime/Layout.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace mlir::credit {

/// One pass over the row in the global-reread schedule: a stage (all of its
/// reductions are computed in one sweep) or the final elementwise h.
struct PassAccess {
  std::string name;      // "stage 1", ..., "h"
  Operation *op;         // StageOp or ApplyOp
  llvm::SmallVector<InputOp> rowInputs;       // row-varying inputs read (dataflow)
  llvm::SmallVector<InputOp> broadcastInputs; // broadcast vectors read
  llvm::SmallVector<InputOp> scalarInputs;    // per-row scalars read
  /// Row and broadcast inputs a sum that one column decides reads at that
  /// column, once per row (matchIndexedPick), not in the sweep; one entry per
  /// element read.
  llvm::SmallVector<InputOp, 0> pickedInputs;
  /// For the first stage only: per-element outputs that depend on no
  /// statistic and are written in this pass (see computePassAccess).
  llvm::SmallVector<OutputOp, 0> firstPassOutputs;
};

/// Which inputs each pass reads. Follows the dataflow: an input counts for a
/// pass only if a value derived from it reaches the pass's results; what a sum
/// that one column decides reads at its column is pickedInputs, not a read.
/// Per-element outputs that depend on no statistic can be written in the
/// first pass; where that leaves no row input read by two passes (the row
/// needs one read), they are: the first stage lists them and reads their
/// inputs, and h keeps the outputs that need a statistic (no h pass when
/// none does). Otherwise every per-element output is h's, as generated.
llvm::SmallVector<PassAccess, 4> computePassAccess(KernelOp kernel);

/// Bytes of an element of `t` (f32: 4, i8: 1).
unsigned elementBytes(Type t);

/// Per-element HBM traffic of the two schedules (docs/report.md).
struct Traffic {
  unsigned L = 0;
  llvm::SmallVector<int> q;        // statistics per stage
  int64_t baseline = 0;            // global-reread schedule, bytes per element
  int64_t cluster = 0;             // every row input crosses HBM once
  int64_t reread = 0;              // baseline - cluster
  int64_t keep = 0;                // retained in shared memory
  int64_t outputBytes = 0;         // per-element outputs (in both schedules)
  int64_t fixedBroadcastPerElement = 0;
  int64_t fixedPerRow = 0;
  llvm::SmallVector<InputOp> kept; // inputs read by more than one pass
  double ceiling = 1.0;            // baseline / cluster
};
Traffic computeTraffic(KernelOp kernel);

/// Whether every floating-point per-element operand of the kernel (row and
/// broadcast inputs, per-element outputs) is bf16 or f16, and there is one:
/// element math within a few f32 ulp is then exact to its data, and creditc's
/// element math is the fast form unless told otherwise (Precision.cpp).
bool hasHalfPrecisionElementData(KernelOp kernel);

/// A sum that one column decides: `sum(where(i == u, v, 0))` with u the same
/// for the whole row. Its value is v at column u, or 0 where no column is u
/// (u not integral, or outside the row), so the generated kernel evaluates v at
/// that column once per row (IndexedPick.cpp). Both values are in the body.
struct IndexedPick {
  Value column; // u
  Value value;  // v
};
std::optional<IndexedPick> matchIndexedPick(ReduceOp reduce);

/// Cluster-wide barriers per row for each exchange protocol.
struct Barriers {
  int sync = 0;     // the paper's protocol: 2 per stage
  int mbarrier = 0; // one cluster barrier at set-up; stages use mbarriers
};
Barriers computeBarriers(KernelOp kernel);

/// Default threads per CTA of every generated kernel variant (8 warps). The
/// shared-memory scratch, hence Eq. 3, depends on it, so the legality analysis
/// and the code generator take it from the same option (`--threads`).
constexpr int kThreadsPerCta = 256;
/// CTA sizes the code generator supports (whole warps, at most 32 warps so one
/// warp can combine the warp partials).
inline bool isSupportedCtaSize(int threads) {
  return threads == 128 || threads == 256 || threads == 512 || threads == 1024;
}

/// The figures the shared-memory layout depends on (runtime/Layout.h).
::credit::WorkloadGeometry computeGeometry(KernelOp kernel, int threads = kThreadsPerCta);

/// One row of the Eq. 3 legality table.
struct LegalityEntry {
  int P;
  bool portable;
  int64_t scratchSync, scratchMbarrier; // S_scratch per protocol
  int64_t maxN;                         // largest N that fits (sync protocol)
  int64_t smemAtN = -1;                 // at the requested N (sync), -1 if none
  bool legalAtN = false;
};
/// Cluster sizes 1 (the one-CTA staged kernel), 2, 4, 8 and, where the target
/// allows non-portable clusters, 16.
llvm::SmallVector<LegalityEntry> computeLegality(KernelOp kernel, const ::credit::TargetInfo &target,
                                                 int64_t N, int threads = kThreadsPerCta);

/// Structural classification (accepted or one of the rejection categories).
struct Classification {
  std::string category; // accepted, elementwise, one-pass, scan, stencil, selection
  std::string reason;
  Location location;
};
Classification classify(KernelOp kernel);

//===----------------------------------------------------------------------===//
// The results as the passes recorded them. Consumers (the cost model, the
// report) read these instead of recomputing. Each fails, with an error on the
// kernel, where its pass has not run or the attribute is malformed.
//===----------------------------------------------------------------------===//

/// credit.traffic (Traffic.cpp).
FailureOr<Traffic> readTraffic(KernelOp kernel);
/// credit.barriers (Barriers.cpp).
FailureOr<Barriers> readBarriers(KernelOp kernel);
/// credit.legality (Legality.cpp): the table and what it was computed for.
struct LegalityTable {
  ::credit::TargetInfo target{};
  int threads = kThreadsPerCta;
  int64_t N = 0; // 0: no N (no smemAtN / legalAtN)
  llvm::SmallVector<LegalityEntry> rows;
};
FailureOr<LegalityTable> readLegality(KernelOp kernel);
/// credit.classification (Classify.cpp).
FailureOr<Classification> readClassification(KernelOp kernel);
/// credit.pick (PassAccess.cpp): the sum that one column decides, where the
/// pass marked the reduction as one.
std::optional<IndexedPick> readIndexedPick(ReduceOp reduce);

} // namespace mlir::credit

#endif // CREDIT_DIALECT_CREDIT_TRANSFORMS_ANALYSES_H
