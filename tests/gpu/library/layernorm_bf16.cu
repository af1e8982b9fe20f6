// The layernorm_bf16 fixture (a bf16 row kept on chip as bf16, an f16 broadcast input,
// a bf16 row output and an f32 per-row output) on the GPU. The reference sees the
// inputs as the kernels do, rounded to their storage types.
#include "device/fixtures/layernorm_bf16.cu"
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
  }
}
const credit_test::Spec kSpec{"layernorm_bf16", credit_layernorm_bf16::kWorkload, 3, reference, {},
                              credit_test::elemsOf<credit_layernorm_bf16::Workload>()};
}  // namespace

CREDIT_LIBRARY_GPU_TESTS("layernorm_bf16", kSpec)
