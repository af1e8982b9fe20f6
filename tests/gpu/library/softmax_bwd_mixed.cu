// The softmax_bwd_mixed fixture (an f16 and an f32 row kept on chip side by side, the
// f32 slice 8-byte aligned only; the partial form; a bf16 row output) on the GPU. The
// reference sees x as the kernels do, rounded to f16.
#include "device/fixtures/softmax_bwd_mixed.cu"
#include "library/LibraryTests.h"

namespace {
void reference(credit_test::HostRows& h) {
  const long long N = h.N;
  for (long long r = 0; r < h.R; ++r) {
    const float* x = h.in[0].data() + r * N;
    const float* dy = h.in[1].data() + r * N;
    double m = -INFINITY, s = 0, d = 0;
    for (long long i = 0; i < N; ++i) m = std::max(m, double(x[i]));
    for (long long i = 0; i < N; ++i) s += std::exp(x[i] - m);
    for (long long i = 0; i < N; ++i) d += dy[i] * std::exp(x[i] - m) / s;
    for (long long i = 0; i < N; ++i) h.out[0][r * N + i] = std::exp(x[i] - m) / s * (dy[i] - d);
  }
}
const credit_test::Spec kSpec{"softmax_bwd_mixed", credit_softmax_bwd_mixed::kWorkload, 2, reference, {},
                              credit_test::elemsOf<credit_softmax_bwd_mixed::Workload>()};
}  // namespace

CREDIT_LIBRARY_GPU_TESTS("softmax_bwd_mixed", kSpec)
