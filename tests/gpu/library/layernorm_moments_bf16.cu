// The layernorm_moments_bf16 fixture (mean and variance from one moments statistic,
// one sweep, over a bf16 row kept on chip as bf16; an f16 broadcast input, a bf16 row
// output, rstd and the variance per row) on the GPU. The reference sees the inputs as
// the kernels do, rounded to their storage types; the forms give the same bits.
#include "device/fixtures/layernorm_moments_bf16.cu"
#include "library/LibraryTests.h"

namespace {
void reference(credit_test::HostRows& h) {
  const long long N = h.N;
  for (long long r = 0; r < h.R; ++r) {
    const float* x = h.in[0].data() + r * N;
    double sum = 0, sq = 0;
    for (long long i = 0; i < N; ++i) sum += x[i];
    const double mean = sum / N;
    for (long long i = 0; i < N; ++i) sq += (x[i] - mean) * (x[i] - mean);
    const double rstd = 1.0 / std::sqrt(sq / N + 1e-5);
    for (long long i = 0; i < N; ++i) h.out[0][r * N + i] = (x[i] - mean) * rstd * h.in[1][i] + h.in[2][i];
    h.out[1][r] = rstd;
    h.out[2][r] = sq / N;
  }
}
const credit_test::Spec kSpec{"layernorm_moments_bf16", credit_layernorm_moments_bf16::kWorkload, 3, reference, {},
                              credit_test::elemsOf<credit_layernorm_moments_bf16::Workload>()};
}  // namespace

CREDIT_LIBRARY_GPU_TESTS("layernorm_moments_bf16", kSpec)

// A constant row: the variance exactly 0 (every partial sum of bf16 threes is exact).
// A row 1e4 + 64 U(-1, 1) rounded to bf16 (multiples of 64, its ulp there), where the
// sum-of-squares formula in f32 loses much of the variance: the variance and rstd
// within 1e-3.
TEST_CASE("layernorm_moments_bf16: special rows", "[gpu][moments]") {
  credit_test::specialRows(
      kSpec, {{"constant", 0, [](long long, long long, float) { return 3.0f; }, {-1.0, -1.0, 0.0}},
              {"offset 1e4", 0, [](long long, long long, float u) { return 1.0e4f + 64.0f * u; }, {-1.0, 1e-3, 1e-3}}});
}
