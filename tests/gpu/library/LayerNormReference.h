// The float64 LayerNorm reference the layernorm fixtures share: input 0's rows
// normalized (two-pass mean and variance, eps 1e-5), times input 1 plus input 2, into
// output 0; where given, rstd and the variance per row into outputs `rstd` and `var`.
#ifndef CREDIT_TESTS_GPU_LIBRARY_LAYER_NORM_REFERENCE_H
#define CREDIT_TESTS_GPU_LIBRARY_LAYER_NORM_REFERENCE_H

#include "library/Harness.h"

#include <cmath>

namespace credit_test {

inline void layerNormReference(HostRows& h, int rstd = -1, int var = -1) {
  const long long N = h.N;
  for (long long r = 0; r < h.R; ++r) {
    const float* x = h.in[0].data() + r * N;
    double sum = 0, sq = 0;
    for (long long i = 0; i < N; ++i) sum += x[i];
    const double mean = sum / N;
    for (long long i = 0; i < N; ++i) sq += (x[i] - mean) * (x[i] - mean);
    const double rs = 1.0 / std::sqrt(sq / N + 1e-5);
    for (long long i = 0; i < N; ++i) h.out[0][r * N + i] = (x[i] - mean) * rs * h.in[1][i] + h.in[2][i];
    if (rstd >= 0) h.out[size_t(rstd)][r] = rs;
    if (var >= 0) h.out[size_t(var)][r] = sq / N;
  }
}

}  // namespace credit_test

#endif  // CREDIT_TESTS_GPU_LIBRARY_LAYER_NORM_REFERENCE_H
