// The rmsnorm_residual_f16 fixture (an f32 kept row; an f16 broadcast input and a bf16
// row input only h reads: hoisted, prefetched into L2 and loaded at entry; an f16 row
// output; every form, the persistent ones too) on the GPU.
#include "device/fixtures/rmsnorm_residual_f16.cu"
#include "library/LibraryTests.h"

namespace {
void reference(credit_test::HostRows& h) {
  const long long N = h.N;
  for (long long r = 0; r < h.R; ++r) {
    const float* x = h.in[0].data() + r * N;
    const float* res = h.in[2].data() + r * N;
    double sq = 0;
    for (long long i = 0; i < N; ++i) sq += double(x[i]) * x[i];
    const double rstd = 1.0 / std::sqrt(sq / N + 1e-6);
    for (long long i = 0; i < N; ++i) h.out[0][r * N + i] = x[i] * rstd * h.in[1][i] + res[i];
  }
}
const credit_test::Spec kSpec{"rmsnorm_residual_f16", credit_rmsnorm_residual_f16::kWorkload, 3, reference, {},
                              credit_test::elemsOf<credit_rmsnorm_residual_f16::Workload>()};
}  // namespace

CREDIT_LIBRARY_GPU_TESTS("rmsnorm_residual_f16", kSpec)
