// credit/device/moments.cuh -- the arithmetic of the moments statistic (creditc's
// reduce_moments): over the terms g of a row, (n, s, M2) = (count, sum g,
// sum (g - s / n)^2), the two-pass definition's mean and centred sum of squares in one
// sweep. Host and device (CREDIT_HD_INLINE): reduce.cuh runs it in the kernels, and
// the host tests check its exactness and accuracy without a GPU.
//
// Two operations, both Chan et al.'s pairwise update
//   (n1, s1, M1) (+) (n2, s2, M2) = (n1 + n2, s1 + s2, M1 + M2 + d^2 n1 n2 / (n1 + n2)),
//   d = s2 / n2 - s1 / n1, an operand with n = 0 the identity (0, 0, 0):
// - combine: two partials (the trees of the block reduction and of the exchange);
// - merge_run: one thread's VEC terms of a batch position into its running (n, s, M2).
// Neither subtracts two large sums, so a large common offset of the terms costs little
// precision (E[g^2] - E[g]^2 loses it all); the sum stays a plain sum, so the mean is as
// exact as a two-stage form's. An infinite term makes s infinite and M2 NaN, as the
// two-pass form's sum (g - inf)^2; a NaN term makes both NaN.
#ifndef CREDIT_DEVICE_MOMENTS_CUH
#define CREDIT_DEVICE_MOMENTS_CUH

#include "credit/device/config.cuh"

#if !defined(__CUDACC_RTC__)
#include <cmath>
#endif

namespace credit {
namespace device {
namespace moments {

// Each operation rounded on its own: no contraction into an fma, which would depend
// on the operands' order and break the combine's bitwise commutativity.
CREDIT_HD_INLINE float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
CREDIT_HD_INLINE float add_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
CREDIT_HD_INLINE float sub_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}
CREDIT_HD_INLINE float fma_rn(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

// 1 / c of a count or a product of counts (1 <= c < 2^126). On the device rcp.approx,
// within an ulp, one instruction where a correctly rounded reciprocal takes several and
// a branch; only weights and a difference's scale use it, never a value that must come
// out exact.
CREDIT_HD_INLINE float count_rcp(float c) {
#if defined(__CUDA_ARCH__)
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(c));
  return r;
#else
  return 1.0f / c;
#endif
}

// n2 s1 - n1 s2 (= n1 n2 (s1/n1 - s2/n2)) with its products' rounding errors recovered
// exactly (fma): 0 exactly where both means are the same value, and negated exactly
// where the operands swap (each subtraction is, and p, e swap with them).
CREDIT_HD_INLINE float cross(float n1, float s1, float n2, float s2) {
  const float p1 = mul_rn(n2, s1), p2 = mul_rn(n1, s2);
  const float e1 = fma_rn(n2, s1, -p1), e2 = fma_rn(n1, s2, -p2);
  return add_rn(sub_rn(p1, p2), sub_rn(e1, e2));
}

// a (+) b into a, d = cross / (n1 n2). Commutative bit for bit: swapping the operands
// negates d exactly, so d * d is the same, and every other operation is commutative.
// Counts are exact below 2^24 terms.
CREDIT_HD_INLINE void combine(float (&a)[3], const float (&b)[3]) {
  if (a[0] == 0.0f) {
    a[0] = b[0];
    a[1] = b[1];
    a[2] = b[2];
  } else if (b[0] != 0.0f) {
    const float n12 = mul_rn(a[0], b[0]), n = add_rn(a[0], b[0]);
    const float d = mul_rn(cross(a[0], a[1], b[0], b[1]), count_rcp(n12));
    a[2] = add_rn(add_rn(a[2], b[2]), mul_rn(mul_rn(d, d), mul_rn(n12, count_rcp(n))));
    a[1] = add_rn(a[1], b[1]);
    a[0] = n;
  }
}

// A thread's running (n, s, M2), starting at the identity, and the VEC terms g of its
// next batch position as one operand (VEC, a, q): a their sum, q = sum (g - a / VEC)^2.
// The combine with the operand's count fixed: M2 += q + d^2 VEC n / (n + VEC),
// d = (n a / VEC - s) / n, the numerator one fma (0 exactly where the position's mean is
// the running one: a constant row's M2 stays 0); two reciprocals per position and none
// per element. Every form visits a thread's positions in the same order, so the same
// sums, bit for bit. An infinite term makes its position's q NaN (inf - inf).
template <int VEC>
CREDIT_HD_INLINE void merge_run(float& n, float& s, float& m2, const float (&g)[VEC]) {
  static_assert(VEC >= 1 && (VEC & (VEC - 1)) == 0, "a power of two: a / VEC is exact");
  float a = g[0];
CREDIT_PRAGMA_UNROLL
  for (int vi = 1; vi < VEC; ++vi) a += g[vi];
  const float mean = a * (1.0f / VEC);
  float q = 0.0f;
CREDIT_PRAGMA_UNROLL
  for (int vi = 0; vi < VEC; ++vi) {
    const float d = g[vi] - mean;
    q = fma_rn(d, d, q);
  }
  const float d = n > 0.0f ? mul_rn(fma_rn(n, mean, -s), count_rcp(n)) : 0.0f;
  const float w = mul_rn(n * VEC, count_rcp(n + VEC));  // n VEC / (n + VEC); 0 for the first position
  m2 = add_rn(m2, fma_rn(d * d, w, q));
  s = add_rn(s, a);
  n = add_rn(n, static_cast<float>(VEC));
}

}  // namespace moments
}  // namespace device
}  // namespace credit

#endif  // CREDIT_DEVICE_MOMENTS_CUH
