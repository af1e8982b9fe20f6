//===- Schedule.h - The schedule of a kernel, as data ------------*- C++ -*-===//
//
// `credit-schedule` decides how an accepted kernel runs and records it as the
// `credit.schedule` attribute of `credit.kernel` (printed by --emit=mlir,
// pinned by lit). The report, the cost model, `creditc predict` and the CUDA
// emitter read it through readSchedule(); none of them decides again.
//
// Inputs are referred to by their index among the kernel's `credit.input` ops
// (declaration order); passes by their 0-based index (the stages, then h).
//
// For the code generator: every decision below is final. The forms map to
// today's extern "C" kernels as credit_<kernel>_<stem>_v<vectorWidth> / _v1, where the
// stem is formName without the twin's "wide" (cluster_wide_sync ->
// cluster_sync, staged_wide -> staged, staged_regs_wide_wide ->
// staged_regs_wide, staged_regs_deep_wide -> staged_regs_deep; the persistent
// forms are cluster_persistent*, float4 only), with `_cta<wideThreads>` where
// isWideCtaForm holds; the control forms have no vector width.
//
//===----------------------------------------------------------------------===//
#ifndef CREDIT_DIALECT_CREDIT_TRANSFORMS_SCHEDULE_H
#define CREDIT_DIALECT_CREDIT_TRANSFORMS_SCHEDULE_H

#include "credit/Dialect/Credit/IR/CreditDialect.h"
#include "credit/runtime/Layout.h"

#include "llvm/ADT/SmallVector.h"

#include <string>
#include <vector>

namespace mlir::credit {

// `Form` (the kernel forms the emitter may instantiate: one extern "C" kernel
// per form and vector width) is generated from CreditOps.td, with
// stringifyForm / symbolizeForm for its keywords; isWideCtaForm(f)
// (CreditDialect.h) says whether it runs at the wide-CTA twin's threads.

/// "cluster_sync", "persistent_halves_claims", ... (the attribute's keywords).
llvm::StringRef formName(Form f);

/// The kernel families `creditc --variant` selects; a schedule lists the forms
/// of the selected ones only.
struct VariantSet {
  bool cluster = true; // cluster_*, persistent_*
  bool staged = true;  // staged_*
  bool reread = true;
  bool control = true; // control_*
  /// Parses "cluster", "staged", "reread", "control"; an empty list selects all.
  /// On an unknown name returns failure and sets `bad` to it.
  static FailureOr<VariantSet> parse(llvm::ArrayRef<std::string> names, std::string &bad);
};

/// A kept input whose every read after its first pass goes through the same
/// element expression T(x, row-level values), ending in a costly op (exp, log,
/// sqrt, rsqrt, tanh or a division), and which a third pass reads: pass
/// `storePass` (the second pass reading x) computes T(x) and stores it over x;
/// later passes read T(x) from the retained slice instead of recomputing it
/// (the reread form recomputes it from x). In every pass from `storePass` on,
/// the op computing T (the last op of the chain) carries the discardable
/// attribute `credit.materialized = "<input name>"`.
struct Materialization {
  unsigned input = 0;   // index into the kernel's inputs
  int storePass = -1;   // 0-based pass (stages first, h last)
  /// The op computing T(x) in each element region that reads T(x), in pass
  /// order (the ops carrying `credit.materialized`), and every op of the chain
  /// x -> T(x) in those regions (`ends` included).
  llvm::SmallVector<Operation *> ends;
  llvm::SmallVector<Operation *> chainOps;
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
  /// The SMEM array of each kept input (parallel to `kept`: smemSlot[i] is
  /// kept[i]'s array): first-read order, except that the partial form's
  /// dropped input is last, so that the partial layout is the full one without
  /// its last array.
  llvm::SmallVector<unsigned> smemSlot;
  llvm::SmallVector<Materialization> materialized; // by input declaration order
  int partialDrop = -1;                 // index into `kept`; -1: no partial form
  bool partialDropReadLate = false;     // first read after the first pass
  bool keptReadLate = false;            // some kept input is first read after the first pass
  llvm::SmallVector<unsigned> hoisted;  // broadcast inputs only h reads (persistent: once per CTA)
  llvm::SmallVector<unsigned> prefetchL2; // row inputs only h reads (persistent: L2 prefetch); empty without a persistent form
  llvm::SmallVector<unsigned> onlyH;    // inputs (row or broadcast) only h reads, declaration order
  /// Every kept input is f32. The persistent ring's units are laid out for f32
  /// slices only; narrower kept slices are filled by bulk copies where a launch's
  /// rows and slices are whole 16-byte units, else by the first pass.
  bool keptAllF32 = true;
  /// Elements per access run of the vector kernels: 8 where every per-element
  /// operand (row and broadcast inputs, row outputs) is at most 2 bytes, so that
  /// one access moves 16 bytes of bf16 or f16; else 4 (float4 for f32).
  int vectorWidth = 4;
  int threads = 256;                    // CTA size of the narrow forms
  int wideThreads = 0;                  // the wide-CTA twins' (0: none)
  llvm::SmallVector<Form> forms;        // every form the emitter instantiates, in emission order
  /// geometry: the narrow forms'; wideGeometry: the same at wideThreads (at
  /// threads where there is no twin); partialGeometry: without the dropped
  /// input's array (the full geometry where there is no partial form).
  ::credit::WorkloadGeometry geometry{}, wideGeometry{}, partialGeometry{};

  bool has(Form f) const;
  /// The persistent form's facts exist (kept inputs and a register-capable
  /// narrow CTA with a 512-thread twin), whether or not `forms` lists it.
  bool persistentPossible() const;
  /// Kept inputs in SMEM array order.
  llvm::SmallVector<unsigned> smemOrder() const;
  /// The materialization of input `input`, or null.
  const Materialization *materializationOf(unsigned input) const;
  /// Passes reading input `input` (0-based pass indices, ascending).
  llvm::SmallVector<int> readersOf(unsigned input) const;
  /// The partial form's dropped input (index into the kernel's inputs), or -1.
  int partialDropInput() const { return partialDrop < 0 ? -1 : static_cast<int>(kept[partialDrop]); }
};

/// Computes the schedule of an analysed, accepted kernel. Errors are emitted on
/// the offending op. `threads`: the narrow forms' CTA size (128, 256, 512 or
/// 1024); `variants`: the kernel families whose forms are listed.
FailureOr<KernelSchedule> computeSchedule(KernelOp kernel, int threads, VariantSet variants = {});

/// Reads the `credit.schedule` attribute (and the ops' `credit.materialized`,
/// and the passes' `credit.reads` / `credit.reads_broadcast`) written by the
/// credit-pass-access and credit-schedule passes; gives exactly what
/// computeSchedule gave the pass. Fails, with an error on the kernel, if the
/// passes have not run (a rejected kernel has no schedule) or the attributes
/// are malformed.
FailureOr<KernelSchedule> readSchedule(KernelOp kernel);
/// Whether credit-schedule scheduled the kernel (it does so for accepted kernels
/// only).
bool hasSchedule(KernelOp kernel);
/// KernelSchedule::vectorWidth of `kernel`: from its per-element operands' sizes.
int vectorWidthFor(KernelOp kernel);
/// Whether every input of `kept` (indices into `inputs`) is stored as f32
/// (KernelSchedule::keptAllF32).
bool keptInputsAllF32(llvm::ArrayRef<InputOp> inputs, llvm::ArrayRef<unsigned> kept);

/// Records `s` as the kernel's `credit.schedule` attribute and marks the op
/// computing T(x) of every materialization with `credit.materialized` (after
/// dropping the marks of an earlier schedule).
void writeSchedule(KernelOp kernel, const KernelSchedule &s);

//===----------------------------------------------------------------------===//
// The pieces of computeSchedule, one file each.
//===----------------------------------------------------------------------===//

/// Materialize.cpp: the materializations over the kept inputs of `s` (whose
/// passes and kept inputs are set).
llvm::SmallVector<Materialization> findMaterializations(KernelOp kernel, const KernelSchedule &s);

/// PartialRetention.cpp: sets s.partialDrop, s.partialDropReadLate and
/// s.smemSlot from the kept inputs, their readers, the materializations and the
/// element bytes of each kept input (`keptBytes`, in s.kept order).
void choosePartialRetention(KernelSchedule &s, llvm::ArrayRef<unsigned> keptBytes);

} // namespace mlir::credit

#endif // CREDIT_DIALECT_CREDIT_TRANSFORMS_SCHEDULE_H
