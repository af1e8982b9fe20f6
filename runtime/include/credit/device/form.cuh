// credit/device/form.cuh -- the policies of the row kernel, and the named forms
// (credit::Form, FormPolicy.h) as combinations of them.
//
//   exchange   how the P CTAs of a row combine their partials: sync | mbarrier | none
//   residency  where a kept input lives between passes: smem (filled by bulk copies or
//              deposits) | registers | partial (smem but one, read again from L2) |
//              ring (the persistent form's ring of bulk copies) | reread (nowhere:
//              every pass reads global memory) | none (the control kernels: no
//              element work at all)
//   rows       one row per CTA or cluster | persistent, static rows | persistent,
//              rows claimed at run time
//   VEC 8 | 4 | 1 (elements per access run: 8 where every per-element operand is at
//   most 2 bytes, memory.cuh), THREADS, RPT (register elements per thread and kept input), PIECES
//   (copies per kept slice in the ring), MINCTAS (__launch_bounds__).
#ifndef CREDIT_DEVICE_FORM_CUH
#define CREDIT_DEVICE_FORM_CUH

#include "credit/device/exchange.cuh"
#include "credit/device/workload.cuh"
#include "credit/runtime/FormPolicy.h"

namespace credit {
namespace device {

enum class Residency : int { Smem, Registers, Partial, Ring, Reread, None };
enum class Rows : int { One, Static, Claimed };

template <Exchange X, Residency R, Rows S, int VEC_, int THREADS, int RPT_ = 0, int PIECES_ = 1, int MINCTAS = 1>
struct Policy {
  static constexpr Exchange kExchange = X;
  static constexpr Residency kResidency = R;
  static constexpr Rows kRows = S;
  static constexpr int VEC = VEC_;
  static constexpr int kThreads = THREADS;
  static constexpr int RPT = RPT_;
  static constexpr int PIECES = PIECES_;
  static constexpr int kMinCtas = MINCTAS;
  static_assert(VEC == 8 || VEC == 4 || VEC == 1, "VEC is 8, 4 or 1");
  static_assert(THREADS % 32 == 0 && THREADS > 32, "whole warps, at least two (warp 1 claims rows)");
  static_assert((R == Residency::Registers || R == Residency::Ring) == (RPT > 0),
                "register elements per thread exactly in the register and ring residencies");
  static_assert((R == Residency::Ring) == (S != Rows::One), "the ring is the persistent form's");
  static_assert(R != Residency::Ring || (X == Exchange::Mbarrier && VEC == 4), "the ring: mbarrier protocol, float4");
  static_assert(PIECES == 1 || (R == Residency::Ring && PIECES == kPersistentMaxPieces), "PIECES");
};

namespace detail {
// The launch bounds' minimum CTAs per SM (config.cuh's knobs).
CREDIT_HD constexpr int minCtas(int knob, int threadsWorth, int threads) {
  return knob > 0 ? knob : (threadsWorth / threads > 1 ? threadsWorth / threads : 1);
}
}  // namespace detail

// The policies of form F with vector width VEC for workload W.
template <class W, Form F, int VEC>
struct FormOf {
  static constexpr int kNarrow = W::kThreads, kWide = W::kWideThreads;
  static constexpr int kWideRegsCtas = detail::minCtas(kMinCtasWideRegsKnob, 512, kNarrow);
  static constexpr int kWideCtaCtas = kMinCtasWideCtaKnob;
  static constexpr Exchange kX = F == Form::ClusterSync || F == Form::ClusterRegsSync || F == Form::ClusterWideSync ||
                                         F == Form::ClusterPartialSync || F == Form::ControlSync
                                     ? Exchange::Sync
                                 : F == Form::Staged || F == Form::StagedRegs || F == Form::StagedRegsWide ||
                                         F == Form::StagedWide || F == Form::StagedRegsWideWide ||
                                         F == Form::StagedRegsDeepWide || F == Form::Reread
                                     ? Exchange::None
                                     : Exchange::Mbarrier;
  static constexpr bool kRing = F == Form::Persistent || F == Form::PersistentHalves || F == Form::PersistentClaims ||
                                F == Form::PersistentHalvesClaims;
  static constexpr Residency kR =
      kRing ? Residency::Ring
      : F == Form::ClusterRegsSync || F == Form::ClusterRegsMbarrier || F == Form::StagedRegs ||
              F == Form::StagedRegsWide || F == Form::StagedRegsWideWide || F == Form::StagedRegsDeepWide
          ? Residency::Registers
      : F == Form::ClusterPartialSync || F == Form::ClusterPartialMbarrier ? Residency::Partial
      : F == Form::Reread                                                  ? Residency::Reread
      : F == Form::ControlSync || F == Form::ControlMbarrier               ? Residency::None
                                                                           : Residency::Smem;
  // The narrow SMEM forms with runs of 8 (16-bit slices) promise 1536 threads' worth, twice
  // the others' 768: their slices take half the SMEM of f32 ones, so SMEM allows twice the
  // CTAs, and their batches hold half the registers (2 runs of 4 words against 4 float4s).
  static constexpr bool kSmemRuns8 = VEC == 8 && (kR == Residency::Smem || kR == Residency::Partial);
  static constexpr int kNarrowCtas = detail::minCtas(kMinCtasKnob, kSmemRuns8 ? 1536 : 768, kNarrow);
  static constexpr Rows kS = F == Form::PersistentClaims || F == Form::PersistentHalvesClaims ? Rows::Claimed
                             : kRing                                                        ? Rows::Static
                                                                                            : Rows::One;
  static constexpr bool kWideForm = kRing || F == Form::ClusterWideSync || F == Form::ClusterWideMbarrier ||
                                    F == Form::StagedWide || F == Form::StagedRegsWideWide ||
                                    F == Form::StagedRegsDeepWide;
  static constexpr int kRpt = F == Form::StagedRegs           ? kRegsElemsPerThread
                              : F == Form::StagedRegsDeepWide ? kRegsDeepElemsPerThread
                              : kR == Residency::Registers || kRing ? kRegsWideElemsPerThread
                                                                    : 0;
  static constexpr int kThreads = kWideForm ? kWide : kNarrow;
  static constexpr int kCtas = kWideForm ? kWideCtaCtas : kRpt == kRegsWideElemsPerThread ? kWideRegsCtas : kNarrowCtas;
  static constexpr int kPieces = F == Form::PersistentHalves || F == Form::PersistentHalvesClaims ? 2 : 1;
  static constexpr bool kCluster = kX != Exchange::None;
  static_assert(!kWideForm || kWide > 0, "a twin's form in a workload without twins");
  static_assert(!kRing || VEC == 4, "the persistent forms are float4 only");

  using type = Policy<kX, kR, kS, VEC, kThreads, kRpt, kPieces, kCtas>;
};

}  // namespace device
}  // namespace credit

#endif  // CREDIT_DEVICE_FORM_CUH
