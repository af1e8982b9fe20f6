// The device prelude of the files the previous emitter generated (one template per
// kernel, helpers named credit_*): those names over the device library, so that such
// files compile against this runtime. The embedded text credit::embedded::
// kDevicePreludeCuh is the library's headers followed by this file. Not installed.
#ifndef CREDIT_DEVICE_CUH
#define CREDIT_DEVICE_CUH

#include "credit/device/exchange.cuh"
#include "credit/device/ptx.cuh"
#include "credit/device/reduce.cuh"
#include "credit/device/row_claims.cuh"

#define CREDIT_DEVICE_INLINE static __device__ __forceinline__ __attribute__((unused))
#define CREDIT_SUM 0
#define CREDIT_MAX 1
#define CREDIT_MIN 2

template <int K>
CREDIT_DEVICE_INLINE float credit_identity() {
  return credit::device::identity<static_cast<credit::device::Reduce>(K)>();
}
template <int K>
CREDIT_DEVICE_INLINE float credit_combine(float a, float b) {
  return credit::device::combine<static_cast<credit::device::Reduce>(K)>(a, b);
}
template <int K>
CREDIT_DEVICE_INLINE float credit_warp_reduce(float v) {
  return credit::device::warp_reduce<static_cast<credit::device::Reduce>(K)>(v);
}
CREDIT_DEVICE_INLINE uint32_t credit_cluster_ctarank() { return credit::device::ptx::cluster_ctarank(); }
CREDIT_DEVICE_INLINE uint32_t credit_cluster_nctarank() { return credit::device::ptx::cluster_nctarank(); }
CREDIT_DEVICE_INLINE void credit_cluster_arrive() { credit::device::ptx::cluster_arrive(); }
CREDIT_DEVICE_INLINE void credit_cluster_wait() { credit::device::ptx::cluster_wait(); }
CREDIT_DEVICE_INLINE void credit_cluster_arrive_relaxed() { credit::device::ptx::cluster_arrive_relaxed(); }
CREDIT_DEVICE_INLINE void credit_cluster_sync() { credit::device::ptx::cluster_sync(); }
CREDIT_DEVICE_INLINE unsigned char* credit_dynamic_smem() { return credit::device::ptx::dynamic_smem(); }
CREDIT_DEVICE_INLINE uint32_t credit_smem_addr(const void* p) { return credit::device::ptx::smem_addr(p); }
CREDIT_DEVICE_INLINE uint32_t credit_mapa_shared(uint32_t a, uint32_t rank) { return credit::device::ptx::mapa(a, rank); }
CREDIT_DEVICE_INLINE void credit_st_cluster_f32(uint32_t a, float v) { credit::device::ptx::st_cluster_f32(a, v); }
CREDIT_DEVICE_INLINE void credit_st_async_f32(uint32_t a, float v, uint32_t bar) {
  credit::device::ptx::st_async_f32(a, v, bar);
}
CREDIT_DEVICE_INLINE void credit_send_row_claim(unsigned* slot, uint64_t* bar, unsigned value, int P) {
  credit::device::send_row_claim(slot, bar, value, P);
}
CREDIT_DEVICE_INLINE void credit_mbar_init(uint32_t bar, uint32_t count) { credit::device::ptx::mbar_init(bar, count); }
CREDIT_DEVICE_INLINE void credit_fence_mbarrier_init_cluster() { credit::device::ptx::fence_mbarrier_init_cluster(); }
CREDIT_DEVICE_INLINE void credit_mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
  credit::device::ptx::mbar_arrive_expect_tx(bar, bytes);
}
CREDIT_DEVICE_INLINE void credit_mbar_complete_tx_local(uint32_t bar, uint32_t bytes) {
  credit::device::ptx::mbar_complete_tx_local(bar, bytes);
}
CREDIT_DEVICE_INLINE void credit_mbar_wait(uint32_t bar, uint32_t phase) { credit::device::ptx::mbar_wait(bar, phase); }
CREDIT_DEVICE_INLINE void credit_bulk_load(uint32_t dst, const void* src, uint32_t bytes, uint32_t bar) {
  credit::device::ptx::bulk_load(dst, src, bytes, bar);
}
CREDIT_DEVICE_INLINE void credit_bulk_prefetch_l2(const void* src, uint32_t bytes) {
  credit::device::ptx::bulk_prefetch_l2(src, bytes);
}
CREDIT_DEVICE_INLINE void credit_fence_proxy_async_smem() { credit::device::ptx::fence_proxy_async_smem(); }
template <int Q>
CREDIT_DEVICE_INLINE void credit_push_sync(const float* cta_partial, float* slots, int P) {
  credit::device::push_sync<Q>(cta_partial, slots, P);
}
template <int Q>
CREDIT_DEVICE_INLINE void credit_push_async(const float* cta_partial, float* slots, uint64_t* bar, int P) {
  credit::device::push_async<Q>(cta_partial, slots, bar, P);
}
template <int K, int kP>
CREDIT_DEVICE_INLINE float credit_combine_slots_tree(const float* slots, int j, int Q) {
  return credit::device::combine_slots_tree<static_cast<credit::device::Reduce>(K), kP>(slots, j, Q);
}
template <int kP>
CREDIT_DEVICE_INLINE float credit_sum_slots_lanes(const float* slots, int j, int Q) {
  return credit::device::sum_slots_lanes<kP>(slots, j, Q);
}
template <int K>
CREDIT_DEVICE_INLINE float credit_combine_slots(const float* slots, int j, int Q, int P) {
  return credit::device::combine_slots<static_cast<credit::device::Reduce>(K)>(slots, j, Q, P);
}

#endif  // CREDIT_DEVICE_CUH
