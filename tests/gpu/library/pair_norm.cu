// The pair_norm fixture (a stage of two statistics, Sum and Min; two kept inputs, the
// second first read by stage 2, and the partial form; a hoisted broadcast input) on the GPU.
#include "device/fixtures/pair_norm.cu"
#include "library/LibraryTests.h"

namespace {
void reference(credit_test::HostRows& h) {
  const long long N = h.N;
  const float* beta = h.in[2].data();
  for (long long r = 0; r < h.R; ++r) {
    const float* a = h.in[0].data() + r * N;
    const float* b = h.in[1].data() + r * N;
    double sa = 0, sv = 0, mn = INFINITY;
    for (long long i = 0; i < N; ++i) sa += a[i];
    const double ma = sa / N;
    for (long long i = 0; i < N; ++i) {
      sv += (a[i] - ma) * b[i];
      mn = std::min(mn, double(b[i]));
    }
    const double v = sv / N;
    for (long long i = 0; i < N; ++i) h.out[0][r * N + i] = (a[i] - ma) * v + (b[i] - mn) + beta[i];
  }
}
const credit_test::Spec kSpec{"pair_norm", credit_pair_norm::kWorkload, 3, reference, {}};
}  // namespace

CREDIT_LIBRARY_GPU_TESTS("pair_norm", kSpec)
