// credit/runtime/FormPolicy.h -- the kernel forms, and which one runs at a shape.
//
// Every rule is stated in the kernel's geometry (WorkloadGeometry, slice widths, SMEM
// footprints) and the device's figures (SMEM per SM and per block); the launchers,
// the T_B measurement and the compiler evaluate the same functions. Constexpr and
// CREDIT_HD, as SmemLayout.h.
#ifndef CREDIT_RUNTIME_FORM_POLICY_H
#define CREDIT_RUNTIME_FORM_POLICY_H

#include "credit/runtime/Ring.h"
#include "credit/runtime/SmemLayout.h"

namespace credit {

// The kernel forms a generated file may carry (one kernel per form and vector width).
enum class Form : int {
  ClusterSync, ClusterMbarrier,              // P CTAs per row, kept slices in SMEM
  ClusterRegsSync, ClusterRegsMbarrier,      // ... kept slices in registers
  ClusterWideSync, ClusterWideMbarrier,      // ... the twin with twice the threads
  ClusterPartialSync, ClusterPartialMbarrier,  // every kept input but one in SMEM
  Persistent, PersistentHalves,              // many rows per cluster, a ring of bulk copies
  PersistentClaims, PersistentHalvesClaims,  // ... rows claimed at run time
  Staged, StagedRegs, StagedRegsWide,        // one CTA per row
  StagedWide, StagedRegsWideWide, StagedRegsDeepWide,  // ... the twins with twice the threads
  Reread,                                    // one CTA per row, every pass from global memory
  ControlSync, ControlMbarrier,              // the cluster grid and barriers, no memory work
};
inline constexpr int kNumForms = static_cast<int>(Form::ControlMbarrier) + 1;

// ---------------------------------------------------------------------------
// Rows and slices in registers.
// ---------------------------------------------------------------------------
// Elements per thread and kept input of the register forms: the narrow form holds
// rows of up to regsMaxN(threads), the wide one up to regsWideMaxN(threads) with
// twice the registers (fewer CTAs per SM); the cluster register form holds slices
// of up to regsWideMaxN(threads).
inline constexpr int kRegsElemsPerThread = 16;
inline constexpr int kRegsWideElemsPerThread = 32;
CREDIT_HD constexpr long long regsMaxN(int threads) { return (long long)kRegsElemsPerThread * threads; }
CREDIT_HD constexpr long long regsWideMaxN(int threads) { return (long long)kRegsWideElemsPerThread * threads; }
// The one-CTA-per-SM twin holds up to kTwinDataRegs row registers per thread: two
// kept inputs at 32 elements, or one kept input at 64 (the deep form, rows of up to
// regsDeepMaxN(twin threads)).
inline constexpr int kTwinDataRegs = 64;
inline constexpr int kRegsDeepElemsPerThread = 64;
CREDIT_HD constexpr long long regsDeepMaxN(int threads) { return (long long)kRegsDeepElemsPerThread * threads; }
// The vector kernels hold a kept row's loaded words (two 16-bit or four byte elements
// a register), the scalar ones a register per element and kept input: the deep form's
// scalar kernel exists where its kept inputs fit the twin's data registers unpacked
// (elsewhere it would spill, and the scalar launches take the SMEM twin).
CREDIT_HD constexpr bool hasScalarDeepRegisterForm(int keptInputs) {
  return keptInputs >= 1 && keptInputs * kRegsDeepElemsPerThread <= kTwinDataRegs;
}

// Whether a register form also loads the inputs only h reads at entry, so that their
// latency hides behind the stage passes: where the row's data registers per thread,
// (kept + h-only arrays) x elements per thread, stay within kPrefetchDataRegs in the
// forms that run several CTAs per SM (the registers must not cost one of them), twice
// that in the one-CTA-per-SM twin.
inline constexpr int kPrefetchDataRegs = 48;
CREDIT_HD constexpr bool prefetchInputsOfH(long long keptArrays, long long hOnlyArrays, int elemsPerThread,
                                           bool oneCtaPerSmTwin) {
  // keptArrays > 0: the loads ride along with the kept row's.
  return keptArrays > 0 && hOnlyArrays > 0 &&
         (keptArrays + hOnlyArrays) * elemsPerThread <= (oneCtaPerSmTwin ? 2 : 1) * kPrefetchDataRegs;
}

// Which forms a file generated for `threads` per CTA carries: the register forms up
// to 512 threads (at 1024, 64 registers per thread, they spill), twins with twice
// the threads up to 512 of them (0: none).
CREDIT_HD constexpr bool hasRegisterForms(int threads) { return threads <= 512; }
CREDIT_HD constexpr int wideCtaThreads(int threads) { return threads * 2 <= 512 ? threads * 2 : 0; }

// ---------------------------------------------------------------------------
// Twins, partial retention, cluster placement.
// ---------------------------------------------------------------------------
// Where a kernel's SMEM footprint lets only one CTA reside per SM, its twin with
// twice the threads (when generated, and legal with its own scratch) runs instead:
// the SM then has twice the warps to overlap the passes with.
CREDIT_HD constexpr bool useWideCta(int wideThreads, long long smemBytes, long long wideSmemBytes,
                                    long long smemPerSm, long long smemOptin) {
  return wideThreads > 0 && smemPerSm > 0 && ctasPerSmBySmem(smemBytes, smemPerSm) <= 1 && wideSmemBytes <= smemOptin;
}

// The partial form (two or more kept inputs) keeps one input fewer and
// reads it again from global memory, where it is still in L2 (a cluster's slices of
// a row are read moments apart). It runs instead of the full form and its twin where
// the full form is legal but fits one CTA per SM, the partial one fits two or more,
// and either the dropped input is first read after the first pass (the full form
// would hold its slice idle through the earlier passes) or the clusters are of
// kPartialRetentionMinP CTAs, where one CTA per SM leaves whole SMs without a
// cluster. Elsewhere the second read costs more than the occupancy gains.
inline constexpr int kPartialRetentionMinP = 16;
CREDIT_HD constexpr bool usePartialRetention(long long smemBytes, long long partialSmemBytes, int P,
                                             bool droppedReadLate, long long smemPerSm, long long smemOptin) {
  return partialSmemBytes > 0 && partialSmemBytes < smemBytes && smemPerSm > 0 && smemBytes <= smemOptin &&
         ctasPerSmBySmem(smemBytes, smemPerSm) <= 1 && ctasPerSmBySmem(partialSmemBytes, smemPerSm) >= 2 &&
         (droppedReadLate || P >= kPartialRetentionMinP);
}

// Whether a cluster launch asks for cudaClusterSchedulingPolicyLoadBalancing (the
// hardware may place several CTAs of a cluster on one SM) instead of the default
// spread: it balances the CTAs over the SMs for the forms that keep every kept
// input; the partial form keeps the default.
CREDIT_HD constexpr bool clusterLoadBalancing(bool partialRetentionForm) { return !partialRetentionForm; }

// ---------------------------------------------------------------------------
// The staged launcher's form.
// ---------------------------------------------------------------------------
enum class StagedForm : int {
  Registers,             // Form::StagedRegs: N <= regsMaxN(threads)
  WideRegisters,         // Form::StagedRegsWide: N <= regsWideMaxN(threads)
  Smem,                  // Form::Staged: the row in SMEM (Eq. 3)
  WideCtaRegisters,      // Form::StagedRegsWideWide: N <= regsWideMaxN(2 threads)
  WideCtaSmem,           // Form::StagedWide
  WideCtaDeepRegisters,  // Form::StagedRegsDeepWide: one kept input, N <= regsDeepMaxN(2 threads)
  LightWideCtaRegisters,  // Form::StagedRegsWideWide where the SMEM form fits several CTAs per SM
};
// A light row: its data registers per thread in the twin's register form, (kept +
// h-only arrays) x kRegsWideElemsPerThread, stay within kLightRowDataRegs, so the twin
// keeps kLightTwinCtasPerSm CTAs per SM by registers and skips the SMEM round trip.
// It runs where the SMEM form holds fewer threads per SM than those twin CTAs
// (otherwise the SMEM form hides latency as well and needs no idle lanes).
// numKeptArrays counts 4-byte arrays: two 16-bit kept inputs (two f32 register arrays here) count as one.
inline constexpr int kLightRowDataRegs = 32;
inline constexpr int kLightTwinCtasPerSm = 2;
CREDIT_HD constexpr bool isLightRegisterRow(WorkloadGeometry g) {
  return g.keepBytesPerElem > 0 &&
         (numKeptArrays(g) + g.hOnlyArrays) * kRegsWideElemsPerThread <= kLightRowDataRegs;
}
CREDIT_HD constexpr bool useLightTwin(WorkloadGeometry g, long long N, long long smemPerSm) {
  const int wide = wideCtaThreads(g.threads);
  return hasRegisterForms(g.threads) && wide > 0 && smemPerSm > 0 && isLightRegisterRow(g) &&
         N > regsWideMaxN(g.threads) && N <= regsWideMaxN(wide) &&
         ctasPerSmBySmem(smemBytes(g, N, 1, Protocol::Sync), smemPerSm) * g.threads < kLightTwinCtasPerSm * wide;
}
// The forms that run one CTA per SM (the twins): where the model measures T_slice.
CREDIT_HD constexpr bool isOneCtaPerSmForm(StagedForm f) {
  return f == StagedForm::WideCtaRegisters || f == StagedForm::WideCtaDeepRegisters || f == StagedForm::WideCtaSmem;
}
// Whether a file carries the deep register twin: twins exist and the kept inputs'
// registers at kRegsDeepElemsPerThread fit kTwinDataRegs.
CREDIT_HD constexpr bool hasDeepRegisterForm(WorkloadGeometry g) {
  return hasRegisterForms(g.threads) && wideCtaThreads(g.threads) > 0 && g.keepBytesPerElem > 0 &&
         numKeptArrays(g) * kRegsDeepElemsPerThread <= kTwinDataRegs;
}
// The staged kernel at row width N (`registersOk` false: the SMEM form at every N),
// on a device with `smemPerSm` / `smemOptin` bytes of SMEM per SM / per block
// (0: unknown, no twin). The launcher and the T_B measurement both use it.
CREDIT_HD constexpr StagedForm stagedForm(WorkloadGeometry g, long long N, bool registersOk, long long smemPerSm,
                                          long long smemOptin) {
  if (registersOk && hasRegisterForms(g.threads) && N >= 1 && N <= regsWideMaxN(g.threads))
    return N <= regsMaxN(g.threads) ? StagedForm::Registers : StagedForm::WideRegisters;
  const int wide = wideCtaThreads(g.threads);
  WorkloadGeometry wideGeometry = g;
  wideGeometry.threads = wide;
  if (N >= 1 && useWideCta(wide, smemBytes(g, N, 1, Protocol::Sync), smemBytes(wideGeometry, N, 1, Protocol::Sync),
                           smemPerSm, smemOptin)) {
    if (registersOk && N <= regsWideMaxN(wide)) return StagedForm::WideCtaRegisters;
    if (registersOk && hasDeepRegisterForm(g) && N <= regsDeepMaxN(wide)) return StagedForm::WideCtaDeepRegisters;
    return StagedForm::WideCtaSmem;
  }
  // Device sizes known and the twin rule did not apply: the SMEM form fits several CTAs per SM.
  if (registersOk && useLightTwin(g, N, smemPerSm)) return StagedForm::LightWideCtaRegisters;
  return StagedForm::Smem;
}

// Whether the model's T_slice(P) is measured: the staged kernel runs one CTA per SM
// at N on this device and the cluster kernel of P is Eq. 3-legal (either protocol).
CREDIT_HD constexpr bool measuresSlice(WorkloadGeometry g, long long N, int P, long long smemPerSm, long long smemOptin) {
  return isOneCtaPerSmForm(stagedForm(g, N, true, smemPerSm, smemOptin)) &&
         (isLegal(g, N, P, Protocol::Sync, smemOptin) || isLegal(g, N, P, Protocol::Mbarrier, smemOptin));
}

// ---------------------------------------------------------------------------
// The persistent form (Ring.h).
// ---------------------------------------------------------------------------
// Whether it can run at (N, P): the file has it (kept inputs, a twin with register
// forms; `g` is the twin's geometry), P >= 2, the slice needs the twin's sweeps (more
// than regsWideMaxN(narrow threads), at most regsWideMaxN(twin threads)) and the ring
// fits (`halves` as for persistentRing).
CREDIT_HD constexpr bool persistentFits(WorkloadGeometry g, int narrowThreads, long long N, int P, long long smemOptin,
                                        bool halves = true) {
  return g.keepBytesPerElem > 0 && hasRegisterForms(narrowThreads) && wideCtaThreads(narrowThreads) == g.threads &&
         g.threads > 0 && P >= 2 && N >= 1 && sliceElems(N, P) > regsWideMaxN(narrowThreads) &&
         sliceElems(N, P) <= regsWideMaxN(g.threads) && persistentRing(g, N, P, smemOptin, halves).units > 0;
}
// Whether the cluster launcher (mbarrier protocol) runs it: where it fits and either
// there are broadcast inputs only h reads (`hoistedArrays`), which it loads once per
// CTA instead of once per row, or the one-row form fits one CTA per SM anyway. The
// persistent form runs one CTA per SM (its ring fills the SMEM); where the one-row
// form fits several, its clusters reach more SMs, which is worth more.
CREDIT_HD constexpr bool usePersistent(WorkloadGeometry g, int hoistedArrays, int narrowThreads, long long N, int P,
                                       long long smemPerSm, long long smemOptin, bool halves = true) {
  return persistentFits(g, narrowThreads, N, P, smemOptin, halves) &&
         (hoistedArrays > 0 || (smemPerSm > 0 && ctasPerSmBySmem(smemBytes(g, N, P, Protocol::Mbarrier), smemPerSm) <= 1));
}
// Whether a persistent launch of P-CTA clusters claims rows at run time (faster
// clusters take more rows) or takes the static rows: up to clusters of 8; at 16 each
// claim and its exchange hold up sixteen CTAs, more than the balance gains.
CREDIT_HD constexpr bool useRowClaims(int P) { return P <= 8; }

}  // namespace credit

#endif  // CREDIT_RUNTIME_FORM_POLICY_H
