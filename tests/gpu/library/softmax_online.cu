// The softmax_online fixture (one online statistic with two sums: max x, sum exp(x - m)
// and sum w * exp(x - m), in one stage; per-row outputs from all three) on the GPU.
// Its reference is the two-pass definition in float64.
#include "device/fixtures/softmax_online.cu"
#include "library/LibraryTests.h"

namespace {
void reference(credit_test::HostRows& h) {
  const long long N = h.N;
  for (long long r = 0; r < h.R; ++r) {
    const float* x = h.in[0].data() + r * N;
    const float* w = h.in[1].data() + r * N;
    double m = -INFINITY, s = 0, sw = 0;
    for (long long i = 0; i < N; ++i) m = std::fmax(m, double(x[i]));
    for (long long i = 0; i < N; ++i) {
      s += std::exp(x[i] - m);
      sw += w[i] * std::exp(x[i] - m);
    }
    for (long long i = 0; i < N; ++i) h.out[0][r * N + i] = std::exp(x[i] - m) / s;
    h.out[1][r] = m + std::log(s);
    h.out[2][r] = sw / s;
  }
}
const credit_test::Spec kSpec{"softmax_online", credit_softmax_online::kWorkload, 2, reference, {}, {},
                              credit_test::hasOnlineStatistic<credit_softmax_online::Workload>()};
}  // namespace

CREDIT_LIBRARY_GPU_TESTS("softmax_online", kSpec)
