// The softmax_fwd fixture (exp(x - m) materialized over x and read by h, a per-row
// output) on the GPU.
#include "device/fixtures/softmax_fwd.cu"
#include "library/LibraryTests.h"

namespace {
void reference(credit_test::HostRows& h) {
  const long long N = h.N;
  for (long long r = 0; r < h.R; ++r) {
    const float* x = h.in[0].data() + r * N;
    double m = -INFINITY, s = 0;
    for (long long i = 0; i < N; ++i) m = std::max(m, double(x[i]));
    for (long long i = 0; i < N; ++i) s += std::exp(x[i] - m);
    for (long long i = 0; i < N; ++i) h.out[0][r * N + i] = std::exp(x[i] - m) / s;
    h.out[1][r] = m + std::log(s);
  }
}
const credit_test::Spec kSpec{"softmax_fwd", credit_softmax_fwd::kWorkload, 1, reference, {}};
}  // namespace

CREDIT_LIBRARY_GPU_TESTS("softmax_fwd", kSpec)
