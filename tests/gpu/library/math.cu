// fast_exp (credit/device/math.cuh) against exp in double, wherever the result is a
// normal f32: as accurate as __expf (largest error at most __expf's + 0.5 ulp), and
// within the CUDA Programming Guide's bound for __expf, 2 + floor(|1.173 x|) ulp, plus
// 0.5 ulp: the hardware's ex2.approx, and so __expf itself, exceeds that bound by up to
// 0.3 ulp at a few hundred arguments of |x| < 4. Zero below 2^-126 (flushed); the
// special values.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cuda_runtime.h>
#include <vector>

#include "credit/device/math.cuh"
#include "library/Harness.h"

namespace {
__global__ void fastExpKernel(const float* x, float* y, int n, bool intrinsic) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = intrinsic ? __expf(x[i]) : credit::device::fast_exp(x[i]);
}

std::vector<float> onDevice(const std::vector<float>& x, bool intrinsic = false) {
  const int n = static_cast<int>(x.size());
  float *dx = nullptr, *dy = nullptr;
  REQUIRE(cudaMalloc(&dx, n * sizeof(float)) == cudaSuccess);
  REQUIRE(cudaMalloc(&dy, n * sizeof(float)) == cudaSuccess);
  REQUIRE(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaMemset(dy, 0xFF, n * sizeof(float)) == cudaSuccess);  // poisoned: NaN
  fastExpKernel<<<(n + 255) / 256, 256>>>(dx, dy, n, intrinsic);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  std::vector<float> y(n);
  REQUIRE(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
  cudaFree(dx);
  cudaFree(dy);
  return y;
}
}  // namespace

TEST_CASE("fast_exp: as accurate as __expf, flushed below 2^-126, special values", "[gpu][math]") {
  CREDIT_REQUIRE_GPU();
  // 2^20 points evenly over [-104, 89] (the results from subnormal to overflow),
  // and +-2^-j near zero.
  std::vector<float> x;
  const int n = 1 << 20;
  for (int k = 0; k < n; ++k) x.push_back(static_cast<float>(-104.0 + 193.0 * k / n));
  for (int j = 1; j <= 40; ++j) {
    x.push_back(std::ldexp(1.0f, -j));
    x.push_back(-std::ldexp(1.0f, -j));
  }
  const std::vector<float> y = onDevice(x);
  const std::vector<float> reference = onDevice(x, /*intrinsic=*/true);
  const double minNormal = std::ldexp(1.0, -126);
  size_t checked = 0, flushed = 0;
  double worst = 0, worstIntrinsic = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double e = std::exp(static_cast<double>(x[i]));
    if (e > 3.4028234663852886e38) {
      CHECK(std::isinf(y[i]));
      continue;
    }
    if (e < minNormal) {
      // At or below the smallest normal: 0, or the nearest normal near the edge.
      CHECK((y[i] == 0.0f || std::fabs(y[i] - e) <= 4 * std::ldexp(1.0, -149 + 23)));
      ++flushed;
      continue;
    }
    const double ulp = std::ldexp(1.0, std::ilogb(e) - 23);
    const double err = std::fabs(static_cast<double>(y[i]) - e) / ulp;
    const double bound = 2.5 + std::floor(std::fabs(1.173 * static_cast<double>(x[i])));
    INFO("x = " << x[i] << ", fast_exp = " << y[i] << ", exp = " << e << ", error " << err << " ulp");
    CHECK(err <= bound);
    worst = std::max(worst, err);
    worstIntrinsic = std::max(worstIntrinsic, std::fabs(static_cast<double>(reference[i]) - e) / ulp);
    ++checked;
  }
  CHECK(worst <= worstIntrinsic + 0.5);
  CHECK(checked > 900000);
  CHECK(flushed > 50000);
  const std::vector<float> special = onDevice({-INFINITY, INFINITY, NAN, 0.0f, -0.0f, -200.0f});
  CHECK(special[0] == 0.0f);
  CHECK(std::isinf(special[1]));
  CHECK(std::isnan(special[2]));
  CHECK(special[3] == 1.0f);
  CHECK(special[4] == 1.0f);
  CHECK(special[5] == 0.0f);
}
