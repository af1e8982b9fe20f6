// The residual_quant fixture (a Max statistic, a broadcast input a stage reads, a row
// input only h reads, a per-row input, an i8 output and a per-row output) on the GPU.
#include "device/fixtures/residual_quant.cu"
#include "library/LibraryTests.h"

namespace {
void reference(credit_test::HostRows& h) {
  const long long N = h.N;
  const float* w = h.in[1].data();
  for (long long r = 0; r < h.R; ++r) {
    const float* x = h.in[0].data() + r * N;
    const float* res = h.in[2].data() + r * N;
    const double g = h.in[3][r];
    double a = 0;
    for (long long i = 0; i < N; ++i) a = std::max(a, std::fabs(double(w[i]) * x[i]));
    const double s = g * std::max(a, 1e-12) / 127.0;
    for (long long i = 0; i < N; ++i) {
      const double v = std::min(std::max(std::round((double(w[i]) * x[i] + res[i]) / s), -127.0), 127.0);
      h.out[0][r * N + i] = std::trunc(v);
    }
    h.out[1][r] = s;
  }
}
// g, one per row, scales the step: positive.
const credit_test::Spec kSpec{"residual_quant", credit_residual_quant::kWorkload, 4, reference,
                              {{-1.0f, 1.0f}, {-1.0f, 1.0f}, {-1.0f, 1.0f}, {0.5f, 1.5f}}};
}  // namespace

CREDIT_LIBRARY_GPU_TESTS("residual_quant", kSpec)
