// credit/device/ptx.cuh -- inline-PTX wrappers (sm_90+, PTX ISA 8.1): cluster
// barriers and rank, DSMEM addresses and stores, mbarriers, bulk copies, the L2
// prefetch and the proxy fence.
//
// Rule 0 of DSMEM (CUDA Programming Guide): no CTA may touch a peer's shared memory
// before every CTA of the cluster has started. The exchanges (exchange.cuh) keep it
// with a split cluster barrier at kernel entry whose wait comes before the first push.
#ifndef CREDIT_DEVICE_PTX_CUH
#define CREDIT_DEVICE_PTX_CUH

#include "credit/device/config.cuh"

namespace credit {
namespace device {
namespace ptx {

CREDIT_DEVICE uint32_t cluster_ctarank() {
  uint32_t r;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
CREDIT_DEVICE uint32_t cluster_nctarank() {
  uint32_t r;
  asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
  return r;
}

// The split halves of cluster.sync(). Every thread of every CTA of the cluster
// executes them (.aligned). arrive.release orders this thread's prior local and
// remote SMEM writes before the arrival; after wait.acquire, the writes released by
// every arrival of the phase are visible.
CREDIT_DEVICE void cluster_arrive() { asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory"); }
CREDIT_DEVICE void cluster_wait() { asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory"); }
// An arrival that publishes nothing: rule 0 only (every CTA has started).
CREDIT_DEVICE void cluster_arrive_relaxed() { asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory"); }
// cluster.sync(): a cluster-wide __syncthreads with release/acquire semantics.
CREDIT_DEVICE void cluster_sync() {
  asm volatile(
      "barrier.cluster.arrive.release.aligned;\n\t"
      "barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// The base of this CTA's dynamic shared memory, 128-byte aligned (the kept slices
// start at a kSliceAlign offset). Declared inside a function so that every kernel
// of a file shares one declaration.
CREDIT_DEVICE unsigned char* dynamic_smem() {
  extern __shared__ __align__(128) unsigned char credit_dynamic_smem_base[];
  return credit_dynamic_smem_base;
}

// The 32-bit shared::cta address of a generic pointer into this CTA's SMEM.
CREDIT_DEVICE uint32_t smem_addr(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

// The shared::cluster address of the same SMEM offset in CTA `rank`.
CREDIT_DEVICE uint32_t mapa(uint32_t smem_addr, uint32_t rank) {
  uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(smem_addr), "r"(rank));
  return r;
}

// A plain (weak) DSMEM store, ordered and made visible by the next cluster barrier.
CREDIT_DEVICE void st_cluster_f32(uint32_t addr, float v) {
  asm volatile("st.shared::cluster.f32 [%0], %1;" ::"r"(addr), "f"(v) : "memory");
}

// An asynchronous 4-byte DSMEM store whose completion performs complete_tx(4) on the
// mbarrier at `remote_bar`, in the same CTA as `remote_addr` (both shared::cluster).
CREDIT_DEVICE void st_async_f32(uint32_t remote_addr, float v, uint32_t remote_bar) {
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];" ::"r"(remote_addr),
               "r"(__float_as_uint(v)), "r"(remote_bar)
               : "memory");
}

// ---------------------------------------------------------------------------
// mbarriers. `bar` is the shared::cta address of an 8-byte aligned word.
// ---------------------------------------------------------------------------
CREDIT_DEVICE void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
// Makes this thread's prior mbarrier.init visible to the cluster (peers' complete_tx)
// and to the async proxy (bulk copies). A peer may signal the mbarrier only after a
// cluster barrier that follows it.
CREDIT_DEVICE void fence_mbarrier_init_cluster() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
// One arrival plus expect_tx(bytes) on the current phase.
CREDIT_DEVICE void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
// complete_tx(bytes) on this CTA's own mbarrier, releasing this thread's prior SMEM
// writes (fence.acq_rel.cta, then a relaxed complete_tx).
CREDIT_DEVICE void mbar_complete_tx_local(uint32_t bar, uint32_t bytes) {
  asm volatile(
      "fence.acq_rel.cta;\n\t"
      "mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(bytes)
      : "memory");
}
// Spins until the phase of parity `phase` has completed. Cluster-scope acquire: the
// data of the peers' st.async that completed the phase is visible afterwards.
CREDIT_DEVICE void mbar_wait(uint32_t bar, uint32_t phase) {
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

// ---------------------------------------------------------------------------
// Bulk copies (TMA, one dimension) and L2.
// ---------------------------------------------------------------------------
// Copies `bytes` bytes from global `src` into this CTA's SMEM at `dst` (shared::cta),
// completing `bytes` transactions on this CTA's mbarrier `bar`. `bytes` a multiple of
// 16, both addresses 16-byte aligned. One thread issues it; every thread that waits
// on `bar`'s phase sees the data. A shared::cta address of the executing CTA is a
// valid shared::cluster address, also without a cluster launch.
CREDIT_DEVICE void bulk_load(uint32_t dst, const void* src, uint32_t bytes, uint32_t bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
               "l"(src), "r"(bytes), "r"(bar)
               : "memory");
}
// Asks L2 for `bytes` bytes at global `src` (a hint, nothing to wait for). `bytes` a
// multiple of 16, `src` 16-byte aligned.
CREDIT_DEVICE void bulk_prefetch_l2(const void* src, uint32_t bytes) {
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(src), "r"(bytes) : "memory");
}
// Orders this thread's view of prior generic-proxy accesses to this CTA's SMEM (every
// thread's reads of a buffer, made visible to it by __syncthreads) before its later
// async-proxy accesses (a bulk copy into the same buffer).
CREDIT_DEVICE void fence_proxy_async_smem() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

}  // namespace ptx
}  // namespace device
}  // namespace credit

#endif  // CREDIT_DEVICE_PTX_CUH
