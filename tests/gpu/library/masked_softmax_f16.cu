// The masked_softmax_f16 fixture (f16 rows and a bool mask, both kept on chip, the
// mask's array first; runs of 8 elements: 16-byte f16 accesses, 8-byte mask accesses)
// on the GPU. A row whose mask keeps nothing is 0 everywhere.
#include "device/fixtures/masked_softmax_f16.cu"
#include "library/LibraryTests.h"

namespace {
void reference(credit_test::HostRows& h) {
  const long long N = h.N;
  for (long long r = 0; r < h.R; ++r) {
    const float* keep = h.in[0].data() + r * N;
    const float* x = h.in[1].data() + r * N;
    double m = -INFINITY, s = 0;
    for (long long i = 0; i < N; ++i)
      if (keep[i] != 0) m = std::max(m, double(x[i]));
    for (long long i = 0; i < N; ++i)
      if (keep[i] != 0) s += std::exp(x[i] - m);
    for (long long i = 0; i < N; ++i) h.out[0][r * N + i] = keep[i] != 0 ? std::exp(x[i] - m) / s : 0.0;
  }
}
const credit_test::Spec kSpec{"masked_softmax_f16", credit_masked_softmax_f16::kWorkload, 2, reference, {},
                              credit_test::elemsOf<credit_masked_softmax_f16::Workload>()};
}  // namespace

CREDIT_LIBRARY_GPU_TESTS("masked_softmax_f16", kSpec)
