// credit/device/math.cuh -- the element math of creditc --fast-math.
//
// fast_exp(x) is e^x as 2^(x log2 e) on the special-function unit: one multiply and
// ex2.approx.ftz.f32, where expf takes eight instructions. It is __expf's formula
// (the CUDA Programming Guide bounds that by 2 + floor(|1.173 x|) ulp) without its
// subnormal handling: an argument or result below 2^-126 in magnitude flushes to
// zero. Special values: fast_exp(-inf) = +0, fast_exp(+inf) = +inf, NaN stays NaN.
#ifndef CREDIT_DEVICE_MATH_CUH
#define CREDIT_DEVICE_MATH_CUH

#include "credit/device/config.cuh"

namespace credit {
namespace device {

CREDIT_DEVICE float fast_exp(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x * 1.44269504088896341f));
  return y;
}

}  // namespace device
}  // namespace credit

#endif  // CREDIT_DEVICE_MATH_CUH
