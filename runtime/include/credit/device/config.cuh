// credit/device/config.cuh -- what every header of the device library shares: the
// function qualifiers, fixed-width integers under NVRTC, the tuning knobs and a few
// compile-time helpers.
//
// The device library compiles with nvcc (sm_90 and later) and with NVRTC: no C++
// standard library, no cooperative_groups; cluster, DSMEM, mbarrier and bulk-copy
// operations are inline PTX (ptx.cuh).
#ifndef CREDIT_DEVICE_CONFIG_CUH
#define CREDIT_DEVICE_CONFIG_CUH

// NVRTC has no <stdint.h>: these are CCCL's NVRTC definitions (cuda/std/cstdint), so
// a later #include <cuda/std/cstdint> stays compatible.
#ifndef CREDIT_INT_TYPES_DEFINED
#define CREDIT_INT_TYPES_DEFINED
#define CREDIT_INT8_DEFINED
#if defined(__CUDACC_RTC__)
typedef signed char int8_t;
typedef unsigned char uint8_t;
using int32_t = signed int;
using int64_t = signed long long;
using uint32_t = unsigned int;
using uint64_t = unsigned long long;
#else
#include <stdint.h>
#endif
#endif

// Device functions of the library: always inlined into the kernel (the pass loops
// index register arrays with constants only once everything is inlined).
#define CREDIT_DEVICE __device__ __forceinline__

#ifndef CREDIT_HD
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define CREDIT_HD __host__ __device__
#else
#define CREDIT_HD
#endif
#endif

// Arithmetic shared with host code (moments.cuh): inlined on the device like
// CREDIT_DEVICE, plain inline functions in a host compiler, whose loops it unrolls
// with CREDIT_PRAGMA_UNROLL (nothing on the host, where the pragma is unknown).
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define CREDIT_HD_INLINE __host__ __device__ __forceinline__
#define CREDIT_PRAGMA_UNROLL _Pragma("unroll")
#else
#define CREDIT_HD_INLINE inline
#define CREDIT_PRAGMA_UNROLL
#endif

// Namespaces of a generated file have hidden visibility: a shared library built from
// it exports its extern "C" API only, so several such libraries (other CTA sizes,
// options or versions of one kernel) can live in one process.
#ifndef CREDIT_LOCAL
#if defined(__GNUC__) && !defined(__CUDACC_RTC__)
#define CREDIT_LOCAL __attribute__((visibility("hidden")))
#else
#define CREDIT_LOCAL
#endif
#endif

// ---------------------------------------------------------------------------
// Tuning knobs (-D on the nvcc or NVRTC command line).
// ---------------------------------------------------------------------------
// Loads in flight per thread and input in every pass (the batch depth of the element
// loops): runs of 4 elements, runs of 8 (the same elements a batch, in half the
// accesses; in the reread form, whose passes all load from global memory, twice that:
// 64 bytes a thread, as a float4 batch moves), scalar accesses, and the persistent
// form, whose hoisted inputs live in registers next to the batch.
#ifndef CREDIT_UNROLL_VEC4
#define CREDIT_UNROLL_VEC4 4
#endif
#ifndef CREDIT_UNROLL_VEC8
#define CREDIT_UNROLL_VEC8 2
#endif
#ifndef CREDIT_UNROLL_VEC8_REREAD
#define CREDIT_UNROLL_VEC8_REREAD 4
#endif
#ifndef CREDIT_UNROLL_VEC1
#define CREDIT_UNROLL_VEC1 8
#endif
#ifndef CREDIT_UNROLL_PERSISTENT
#define CREDIT_UNROLL_PERSISTENT 2
#endif
// The share of every cluster's rows, in percent, that the persistent form claims at
// run time (the last ones; the rest are static).
#ifndef CREDIT_ROW_CLAIM_SHARE
#define CREDIT_ROW_CLAIM_SHARE 100
#endif
static_assert(CREDIT_UNROLL_VEC4 >= 1 && CREDIT_UNROLL_VEC8 >= 1 && CREDIT_UNROLL_VEC8_REREAD >= 1 && CREDIT_UNROLL_VEC1 >= 1 && CREDIT_UNROLL_PERSISTENT >= 1, "unroll depth");
static_assert(CREDIT_ROW_CLAIM_SHARE >= 0 && CREDIT_ROW_CLAIM_SHARE <= 100, "a percentage");

namespace credit {
namespace device {

// The minimum CTAs per SM promised to ptxas (__launch_bounds__), which caps the
// registers per thread: CREDIT_MIN_CTAS_PER_SM for the narrow forms (default: 768
// threads' worth; 1536 in the SMEM forms with runs of 8, form.cuh),
// CREDIT_MIN_CTAS_PER_SM_WIDE_REGS for the forms holding 32 elements per thread and
// kept input (512 threads' worth), CREDIT_MIN_CTAS_PER_SM_WIDE_CTA for the twins with
// twice the threads (1). 0: the default.
#ifdef CREDIT_MIN_CTAS_PER_SM
inline constexpr int kMinCtasKnob = CREDIT_MIN_CTAS_PER_SM;
#else
inline constexpr int kMinCtasKnob = 0;
#endif
#ifdef CREDIT_MIN_CTAS_PER_SM_WIDE_REGS
inline constexpr int kMinCtasWideRegsKnob = CREDIT_MIN_CTAS_PER_SM_WIDE_REGS;
#else
inline constexpr int kMinCtasWideRegsKnob = 0;
#endif
#ifdef CREDIT_MIN_CTAS_PER_SM_WIDE_CTA
inline constexpr int kMinCtasWideCtaKnob = CREDIT_MIN_CTAS_PER_SM_WIDE_CTA;
#else
inline constexpr int kMinCtasWideCtaKnob = 1;
#endif

// ---------------------------------------------------------------------------
// Compile-time helpers (no <type_traits> under NVRTC).
// ---------------------------------------------------------------------------
template <int N>
struct Int {
  static constexpr int value = N;
};
template <int... I>
struct IntSeq {};
template <int N, int... I>
struct MakeSeq : MakeSeq<N - 1, N - 1, I...> {};
template <int... I>
struct MakeSeq<0, I...> {
  using type = IntSeq<I...>;
};
// IntSeq<0, 1, ..., N - 1>: the indices a fold expression walks at compile time.
template <int N>
using Indices = typename MakeSeq<N>::type;

template <bool B, class T, class F>
struct Select {
  using type = T;
};
template <class T, class F>
struct Select<false, T, F> {
  using type = F;
};
template <class A, class B>
struct IsSame {
  static constexpr bool value = false;
};
template <class A>
struct IsSame<A, A> {
  static constexpr bool value = true;
};

CREDIT_HD constexpr int popcount(unsigned m) { return m == 0 ? 0 : static_cast<int>(m & 1u) + popcount(m >> 1); }
CREDIT_HD constexpr bool hasBit(unsigned m, int i) { return ((m >> i) & 1u) != 0; }

}  // namespace device
}  // namespace credit

#endif  // CREDIT_DEVICE_CONFIG_CUH
