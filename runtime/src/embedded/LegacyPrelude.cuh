// The device prelude of the files the previous emitter generated (one template per
// kernel, helpers named credit_*), as those files expect it: their lit tests read its
// text. The embedded text credit::embedded::kDevicePreludeCuh is this file; the device
// library (credit/device/) supersedes it. Not installed.
#ifndef CREDIT_DEVICE_CUH
#define CREDIT_DEVICE_CUH

// NVRTC has no <stdint.h>. These aliases are exactly CCCL's NVRTC definitions
// (cuda/std/cstdint), so a later #include <cuda/std/cstdint> is compatible.
#ifndef CREDIT_INT_TYPES_DEFINED
#define CREDIT_INT_TYPES_DEFINED
#if defined(__CUDACC_RTC__)
using int32_t = signed int;
using int64_t = signed long long;
using uint32_t = unsigned int;
using uint64_t = unsigned long long;
#else
#include <stdint.h>
#endif
#endif

// static: internal linkage (the prelude is pasted into every generated file);
// unused: no nvcc #177 "declared but never referenced" for the helpers a
// given kernel does not use.
#define CREDIT_DEVICE_INLINE static __device__ __forceinline__ __attribute__((unused))

#define CREDIT_SUM 0
#define CREDIT_MAX 1
#define CREDIT_MIN 2

// ---------------------------------------------------------------------------
// Reductions.
// ---------------------------------------------------------------------------
template <int K>
CREDIT_DEVICE_INLINE float credit_identity() {
  return K == CREDIT_SUM   ? 0.0f
         : K == CREDIT_MAX ? __int_as_float(0xff800000)   // -INFINITY
                           : __int_as_float(0x7f800000);  // +INFINITY
}

template <int K>
CREDIT_DEVICE_INLINE float credit_combine(float a, float b) {
  return K == CREDIT_SUM ? a + b : K == CREDIT_MAX ? fmaxf(a, b) : fminf(a, b);
}

// Butterfly (xor) reduction over the full warp: every lane gets the result, and
// because a (+) b == b (+) a bit-exactly, all 32 lanes hold the same bits.
// All 32 lanes must call it.
template <int K>
CREDIT_DEVICE_INLINE float credit_warp_reduce(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = credit_combine<K>(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// ---------------------------------------------------------------------------
// Cluster primitives (sm_90+).
// ---------------------------------------------------------------------------
CREDIT_DEVICE_INLINE uint32_t credit_cluster_ctarank() {
  uint32_t r;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

CREDIT_DEVICE_INLINE uint32_t credit_cluster_nctarank() {
  uint32_t r;
  asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
  return r;
}

// Split halves of cluster.sync(). All threads of every CTA of the cluster must
// execute them (.aligned: warp-converged, same instruction in all threads).
// arrive.release: this thread's prior (local and remote) SMEM writes are
// ordered before the arrival; wait.acquire: after the wait, writes released by
// every arrival of the phase are visible.
CREDIT_DEVICE_INLINE void credit_cluster_arrive() {
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
}
CREDIT_DEVICE_INLINE void credit_cluster_wait() {
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}
// Arrival without memory ordering: for rule 0 (all CTAs started), where
// nothing has to be published yet.
CREDIT_DEVICE_INLINE void credit_cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}
// cluster.sync(): a cluster-wide __syncthreads with release/acquire semantics.
CREDIT_DEVICE_INLINE void credit_cluster_sync() {
  asm volatile(
      "barrier.cluster.arrive.release.aligned;\n\t"
      "barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// Base of this CTA's dynamic shared memory (16-byte aligned). Declared inside
// a function so that every kernel of a file shares one declaration (separate
// `extern __shared__` arrays with different attributes trigger nvcc #1556).
CREDIT_DEVICE_INLINE unsigned char* credit_dynamic_smem() {
  // 128-B aligned: the retained slices start at a 128-B offset (Layout.h kSliceAlign).
  extern __shared__ __align__(128) unsigned char credit_dynamic_smem_base[];
  return credit_dynamic_smem_base;
}

// 32-bit shared::cta address of a generic pointer into this CTA's SMEM.
CREDIT_DEVICE_INLINE uint32_t credit_smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// The shared::cluster address of the same SMEM offset in CTA `rank`.
CREDIT_DEVICE_INLINE uint32_t credit_mapa_shared(uint32_t smem_addr, uint32_t rank) {
  uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(smem_addr), "r"(rank));
  return r;
}

// Plain (weak) DSMEM store; ordered/visible through the next cluster barrier.
CREDIT_DEVICE_INLINE void credit_st_cluster_f32(uint32_t addr, float v) {
  asm volatile("st.shared::cluster.f32 [%0], %1;" ::"r"(addr), "f"(v) : "memory");
}

// Asynchronous DSMEM store of 4 bytes whose completion performs complete_tx(4)
// on the mbarrier at `remote_mbar_addr`, which must live in the SAME CTA as
// `remote_addr` (both shared::cluster addresses, e.g. from credit_mapa_shared).
CREDIT_DEVICE_INLINE void credit_st_async_f32(uint32_t remote_addr, float v,
                                              uint32_t remote_mbar_addr) {
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];" ::"r"(
                   remote_addr),
               "r"(__float_as_uint(v)), "r"(remote_mbar_addr)
               : "memory");
}

// The persistent form's row claim (Layout.h, kRowClaimWords): threads t < P of rank 0
// each send the claimed row `value` to `slot` of CTA t (itself included), the store
// completing 4 bytes on that CTA's `bar` (the stage-1 exchange mbarrier, whose
// expect_tx counts them): one store per thread, as credit_push_async sends the
// partials. With one thread sending all P stores, the claims' path cost 2-5% at P = 16
CREDIT_DEVICE_INLINE void credit_send_row_claim(unsigned* slot, uint64_t* bar, unsigned value, int P) {
  const int t = static_cast<int>(threadIdx.x);
  if (t < P)
    credit_st_async_f32(credit_mapa_shared(credit_smem_addr(slot), (uint32_t)t), __uint_as_float(value),
                        credit_mapa_shared(credit_smem_addr(bar), (uint32_t)t));
}

// ---------------------------------------------------------------------------
// mbarrier (sm_90+). `bar` is a shared::cta address (credit_smem_addr) of an
// 8-byte-aligned uint64_t in this CTA's SMEM.
// ---------------------------------------------------------------------------
CREDIT_DEVICE_INLINE void credit_mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}

// Makes prior mbarrier.init of this thread visible to the cluster (to peers'
// st.async complete_tx). Must be followed by a cluster barrier before any peer
// may signal this CTA's mbarriers.
CREDIT_DEVICE_INLINE void credit_fence_mbarrier_init_cluster() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// One arrival plus expect_tx(bytes) on the current phase (release.cta default).
CREDIT_DEVICE_INLINE void credit_mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
}

// complete_tx(bytes) on this CTA's own mbarrier, with release semantics for the
// calling thread's prior SMEM writes (fence.acq_rel.cta + relaxed complete_tx,
// the PTX fence-release pattern). Used for the P == 1 case of credit_push_async.
CREDIT_DEVICE_INLINE void credit_mbar_complete_tx_local(uint32_t bar, uint32_t bytes) {
  asm volatile(
      "fence.acq_rel.cta;\n\t"
      "mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(bytes)
      : "memory");
}

// Spins until the phase with parity `phase` has completed. Cluster-scope
// acquire: the data of peers' st.async that completed the phase is visible
// to this thread afterwards.
CREDIT_DEVICE_INLINE void credit_mbar_wait(uint32_t bar, uint32_t phase) {
  uint32_t done;
  do {
    asm volatile(
        "{\n\t"
        ".reg .pred p;\n\t"
        "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n\t"
        "selp.u32 %0, 1, 0, p;\n\t"
        "}"
        : "=r"(done)
        : "r"(bar), "r"(phase)
        : "memory");
  } while (done == 0);
}

// Bulk asynchronous copy (TMA, 1-D, sm_90+) of `bytes` bytes from global `src`
// into this CTA's SMEM at `dst` (a shared::cta address), completing `bytes`
// transactions on this CTA's mbarrier `bar`. `bytes` a multiple of 16, `src`
// and `dst` 16-byte aligned. One thread issues it; the data becomes visible to
// every thread that waits on `bar`'s phase (credit_mbar_wait). A shared::cta
// address of the executing CTA is a valid shared::cluster address (also in a
// launch without clusters: an implicit cluster of one).
CREDIT_DEVICE_INLINE void credit_bulk_load(uint32_t dst, const void* src, uint32_t bytes,
                                           uint32_t bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
          dst),
      "l"(src), "r"(bytes), "r"(bar)
      : "memory");
}

// Bulk prefetch (sm_90+) of `bytes` bytes at global `src` into L2: a hint, no
// completion to wait for. `bytes` a multiple of 16, `src` 16-byte aligned. The
// persistent form issues it for a row's inputs only h reads, which h then finds
// in L2 instead of waiting for HBM.
CREDIT_DEVICE_INLINE void credit_bulk_prefetch_l2(const void* src, uint32_t bytes) {
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(src), "r"(bytes) : "memory");
}

// Orders this thread's view of prior generic-proxy accesses to this CTA's SMEM
// (e.g. every thread's reads of a buffer, made visible to it by __syncthreads)
// before its subsequent async-proxy accesses (a bulk copy into the same buffer).
// The persistent form issues it before refilling ring units.
CREDIT_DEVICE_INLINE void credit_fence_proxy_async_smem() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// ---------------------------------------------------------------------------
// Exchange helpers used by the generated stage code. `slots` is this CTA's
// [P][Q] slot set (a pointer into its SMEM; peers use the same SMEM offsets),
// `cta_partial` this CTA's Q partials in SMEM. Call from all threads of the CTA
// (only threads 0..P-1 do work; there is no barrier inside); the caller must
// __syncthreads() between writing cta_partial and the push.
// ---------------------------------------------------------------------------

// Thread t < P maps peer t's slot buffer and writes this CTA's Q partials into
// its slots[myrank][0..Q) with st.shared::cluster. The kernel's first push
// must come after the rule-0 barrier (every CTA started). Follow with
// credit_cluster_sync() before combining (rule 1) and another one after
// combining (rule 2).
template <int Q>
CREDIT_DEVICE_INLINE void credit_push_sync(const float* cta_partial, float* slots, int P) {
  const int t = static_cast<int>(threadIdx.x);
  if (t < P) {
    const uint32_t me = credit_cluster_ctarank();
    const uint32_t remote = credit_mapa_shared(credit_smem_addr(slots + me * Q), (uint32_t)t);
#pragma unroll
    for (int j = 0; j < Q; ++j) credit_st_cluster_f32(remote + 4u * (uint32_t)j, cta_partial[j]);
  }
}

// Same as credit_push_sync with st.async: each 4-byte store completes_tx on the
// mbarrier at the same SMEM offset as `bar` in peer t. Every CTA must have
// executed arrive_expect_tx(P*Q*4) on that barrier's phase (in any order with
// the stores) and then wait on it before combining. The first push must come
// after the setup cluster barrier (mbarrier inits visible, every CTA started).
// P == 1: thread 0 stores locally and completes the Q*4 bytes itself.
template <int Q>
CREDIT_DEVICE_INLINE void credit_push_async(const float* cta_partial, float* slots, uint64_t* bar,
                                            int P) {
  const int t = static_cast<int>(threadIdx.x);
  if (P == 1) {  // no st.async in a 1-CTA cluster: local stores + local complete_tx
    if (t == 0) {
#pragma unroll
      for (int j = 0; j < Q; ++j) slots[j] = cta_partial[j];
      credit_mbar_complete_tx_local(credit_smem_addr(bar), 4u * Q);
    }
    return;
  }
  if (t < P) {
    const uint32_t me = credit_cluster_ctarank();
    const uint32_t remote = credit_mapa_shared(credit_smem_addr(slots + me * Q), (uint32_t)t);
    const uint32_t remote_bar = credit_mapa_shared(credit_smem_addr(bar), (uint32_t)t);
#pragma unroll
    for (int j = 0; j < Q; ++j)
      credit_st_async_f32(remote + 4u * (uint32_t)j, cta_partial[j], remote_bar);
  }
}

// Statistic j from the local slots, slots[0][j] (+) ... (+) slots[P-1][j], for a
// compile-time P: every slot loaded at once, then a balanced tree (pairs (0,1),
// (2,3), ..., then pairs of pairs), log2(P) combines deep.
template <int K, int kP>
CREDIT_DEVICE_INLINE float credit_combine_slots_tree(const float* slots, int j, int Q) {
  static_assert(kP >= 2 && (kP & (kP - 1)) == 0, "a power of two");
  float v[kP];
#pragma unroll
  for (int c = 0; c < kP; ++c) v[c] = slots[c * Q + j];
#pragma unroll
  for (int s = 1; s < kP; s *= 2) {
#pragma unroll
    for (int c = 0; c + s < kP; c += 2 * s) v[c] = credit_combine<K>(v[c], v[c + s]);
  }
  return v[0];
}

// The same sum and the same tree spread over the warp's lanes: lane t loads slot
// t % P, and each level adds a lane's value and its xor partner's. The partners
// add the same two operands (IEEE addition is commutative bit for bit), so every
// lane ends with the tree's bits. One load, log2(P) shuffles and adds a lane
// instead of P loads and P - 1 adds; every warp of the CTA runs this at once.
// Sums only: fmaxf / fminf of +0 and -0 may depend on the operands' order, and
// ordering them would cost the max kernels registers and occupancy.
// All 32 lanes must call it.
template <int kP>
CREDIT_DEVICE_INLINE float credit_sum_slots_lanes(const float* slots, int j, int Q) {
  static_assert(kP >= 2 && kP <= 32 && (kP & (kP - 1)) == 0, "a power of two, at most a warp");
  float v = slots[static_cast<int>(threadIdx.x & (kP - 1)) * Q + j];
#pragma unroll
  for (int s = 1; s < kP; s *= 2) v += __shfl_xor_sync(0xffffffffu, v, s);
  return v;
}

// Statistic j from the local slots: slots[0][j] (+) slots[1][j] (+) ... (+)
// slots[P-1][j]. Every thread of every CTA runs it after each exchange, with
// the rest of the CTA waiting on the result, so its cost is paid once per stage
// and row: a run-time loop is a chain of P - 1 dependent combines (at P = 16
// tree, log2(P) combines deep, spread over the lanes for sums.
// The association is a function of P alone (the tree, or left to right for
// other P), so every CTA of the cluster computes identical bits. All 32 lanes
// of every warp must call it (the generated kernels have no early return).
template <int K>
CREDIT_DEVICE_INLINE float credit_combine_slots(const float* slots, int j, int Q, int P) {
  if (K == CREDIT_SUM) {
    switch (P) {
      case 2: return credit_sum_slots_lanes<2>(slots, j, Q);
      case 4: return credit_sum_slots_lanes<4>(slots, j, Q);
      case 8: return credit_sum_slots_lanes<8>(slots, j, Q);
      case 16: return credit_sum_slots_lanes<16>(slots, j, Q);
      default: break;
    }
  } else {
    switch (P) {
      case 2: return credit_combine_slots_tree<K, 2>(slots, j, Q);
      case 4: return credit_combine_slots_tree<K, 4>(slots, j, Q);
      case 8: return credit_combine_slots_tree<K, 8>(slots, j, Q);
      case 16: return credit_combine_slots_tree<K, 16>(slots, j, Q);
      default: break;
    }
  }
  float acc = slots[j];
  for (int c = 1; c < P; ++c) acc = credit_combine<K>(acc, slots[c * Q + j]);
  return acc;
}

#endif  // CREDIT_DEVICE_CUH
