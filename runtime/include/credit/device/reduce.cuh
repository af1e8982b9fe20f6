// credit/device/reduce.cuh -- the reductions (+) of the statistics: identity,
// combine, and their warp and block reductions.
#ifndef CREDIT_DEVICE_REDUCE_CUH
#define CREDIT_DEVICE_REDUCE_CUH

#include "credit/device/workload.cuh"

namespace credit {
namespace device {

template <Reduce K>
CREDIT_DEVICE float identity() {
  return K == Reduce::Sum   ? 0.0f
         : K == Reduce::Max ? __int_as_float(0xff800000)   // -INFINITY
                            : __int_as_float(0x7f800000);  // +INFINITY
}

// fmaxf / fminf are IEEE maxNum / minNum (a NaN operand loses).
template <Reduce K>
CREDIT_DEVICE float combine(float a, float b) {
  return K == Reduce::Sum ? a + b : K == Reduce::Max ? fmaxf(a, b) : fminf(a, b);
}

// Butterfly (xor) reduction over the full warp: every lane gets the result, and since
// a (+) b == b (+) a bit for bit, all 32 lanes hold the same bits. All 32 lanes call it.
template <Reduce K>
CREDIT_DEVICE float warp_reduce(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = combine<K>(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// The CTA's partials of one stage's statistics, one kind (+) each: every warp
// reduces its threads' partials, lane 0 writes them to warp_partials[warp][QMAX],
// warp 0 combines the WARPS warp partials into cta_partial[]. The first
// __syncthreads orders the warp partials before warp 0 reads them; the second
// orders cta_partial before anyone pushes or reads it, and frees warp_partials for
// the next stage. Every thread of the CTA calls it.
template <int WARPS, int QMAX, Reduce... K>
struct BlockReduce {
  static constexpr int Q = static_cast<int>(sizeof...(K));

  template <int... J>
  CREDIT_DEVICE static void run(IntSeq<J...>, float (&acc)[Q], float* warp_partials, float* cta_partial,
                                unsigned warp, unsigned lane) {
    ((acc[J] = warp_reduce<K>(acc[J])), ...);
    if (lane == 0) {
      ((warp_partials[warp * QMAX + J] = acc[J]), ...);
    }
    __syncthreads();  // warp partials written before warp 0 reads them
    if (warp == 0) {
      ((acc[J] = lane < WARPS ? warp_partials[lane * QMAX + J] : identity<K>(), acc[J] = warp_reduce<K>(acc[J])), ...);
      if (lane == 0) {
        ((cta_partial[J] = acc[J]), ...);
      }
    }
    __syncthreads();  // the CTA partial written before it is pushed or read; warp partials free again
  }
  CREDIT_DEVICE static void run(float (&acc)[Q], float* warp_partials, float* cta_partial, unsigned warp,
                                unsigned lane) {
    run(Indices<Q>{}, acc, warp_partials, cta_partial, warp, lane);
  }
};

}  // namespace device
}  // namespace credit

#endif  // CREDIT_DEVICE_REDUCE_CUH
