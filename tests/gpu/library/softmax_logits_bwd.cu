// The softmax_logits_bwd fixture (Max and Sum statistics, exp(x - m) materialized over
// x, two kept inputs and the partial form) on the GPU.
#include "device/fixtures/softmax_logits_bwd.cu"
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
const credit_test::Spec kSpec{"softmax_logits_bwd", credit_softmax_logits_bwd::kWorkload, 2, reference, {}};
}  // namespace

CREDIT_LIBRARY_GPU_TESTS("softmax_logits_bwd", kSpec)
