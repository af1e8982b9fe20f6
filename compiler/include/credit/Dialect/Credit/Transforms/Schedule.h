//===- Schedule.h - The schedule of a kernel, as data ------------*- C++ -*-===//
//
// `credit-schedule` decides how an accepted kernel runs and records it as the
// `credit.schedule` attribute of `credit.kernel` (printed by --emit=mlir,
// pinned by lit). The report, the cost model, `creditc predict` and the CUDA
// emitter read it through readSchedule(); none of them decides again.
//
//===----------------------------------------------------------------------===//
#ifndef CREDIT_DIALECT_CREDIT_TRANSFORMS_SCHEDULE_H
#define CREDIT_DIALECT_CREDIT_TRANSFORMS_SCHEDULE_H

#include "credit/Dialect/Credit/IR/CreditDialect.h"
#include "credit/runtime/Layout.h"

#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir::credit {

/// The kernel forms the emitter may instantiate (one extern "C" kernel per
/// form and vector width). The names are the kernels' suffixes.
enum class Form {
  ClusterSync, ClusterMbarrier,                 // P CTAs per row, kept slices in SMEM
  ClusterRegsSync, ClusterRegsMbarrier,         // ... kept slices in registers
  ClusterWideSync, ClusterWideMbarrier,         // the wide-CTA twin (wideThreads)
  ClusterPartialSync, ClusterPartialMbarrier,   // every kept input but `partialDrop` in SMEM
  Persistent, PersistentHalves,                 // many rows per cluster, a ring of bulk copies
  PersistentClaims, PersistentHalvesClaims,     // ... rows claimed at run time
  Staged, StagedRegs, StagedRegsWide,           // one CTA per row
  StagedWide, StagedRegsWideWide, StagedRegsDeepWide,
  Reread,                                       // one CTA per row, every pass from HBM
  ControlSync, ControlMbarrier,                 // the cluster grid and barriers, no memory work
};
/// "cluster_sync", "persistent_halves_claims", ...
llvm::StringRef formName(Form f);

/// A kept input whose every read after its first pass goes through the same
/// element expression T(x, row-level values): pass `storePass` computes T(x)
/// and stores it over x; later passes read T(x) from the retained slice. In
/// every pass that uses it, the op computing T carries the discardable
/// attribute `credit.materialized = <input name>`.
struct Materialization {
  unsigned input = 0;   // index into the kernel's inputs
  int storePass = -1;   // 0-based pass (stages first, h last)
};

struct SchedulePass {
  Operation *op = nullptr;          // StageOp or ApplyOp
  int stage = -1;                   // 0-based stage, -1 for h
  llvm::SmallVector<unsigned> reads; // row and broadcast inputs read (input indices, declaration order)
};

struct KernelSchedule {
  llvm::SmallVector<SchedulePass> passes;   // the L stages, then h (if any)
  /// Row inputs read by more than one pass, in the order the passes first
  /// read them (the bulk copies' and the persistent ring's order).
  llvm::SmallVector<unsigned> kept;
  /// The SMEM array of each kept input (parallel to `kept`): first-read order,
  /// except that the partial form's dropped input is last.
  llvm::SmallVector<unsigned> smemSlot;
  llvm::SmallVector<Materialization> materialized;
  int partialDrop = -1;                 // index into `kept`; -1: no partial form
  bool partialDropReadLate = false;     // first read after the first pass
  bool keptReadLate = false;            // some kept input is first read after the first pass
  llvm::SmallVector<unsigned> hoisted;  // broadcast inputs only h reads (persistent: once per CTA)
  llvm::SmallVector<unsigned> prefetchL2; // row inputs only h reads (persistent: L2 prefetch)
  llvm::SmallVector<unsigned> onlyH;    // inputs (row or broadcast) only h reads
  int threads = 256;                    // CTA size of the narrow forms
  int wideThreads = 0;                  // the wide-CTA twins' (0: none)
  llvm::SmallVector<Form> forms;        // every form the emitter instantiates
  ::credit::WorkloadGeometry geometry{}, wideGeometry{}, partialGeometry{};

  bool has(Form f) const;
};

/// Computes the schedule of an analysed, accepted kernel. Errors are emitted on
/// the offending op. `threads`: the narrow forms' CTA size.
FailureOr<KernelSchedule> computeSchedule(KernelOp kernel, int threads);

/// Reads the `credit.schedule` attribute (and the ops' `credit.materialized`)
/// written by the credit-schedule pass. Fails, with an error on the kernel, if
/// the pass has not run or the attribute is malformed.
FailureOr<KernelSchedule> readSchedule(KernelOp kernel);

} // namespace mlir::credit

#endif // CREDIT_DIALECT_CREDIT_TRANSFORMS_SCHEDULE_H
