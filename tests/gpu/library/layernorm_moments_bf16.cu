// The layernorm_moments_bf16 fixture (mean and variance from one moments statistic,
// one sweep, over a bf16 row kept on chip as bf16; an f16 broadcast input, a bf16 row
// output, rstd and the variance per row) on the GPU. The reference sees the inputs as
// the kernels do, rounded to their storage types; the forms give the same bits.
#include "device/fixtures/layernorm_moments_bf16.cu"
#include "library/LayerNormReference.h"
#include "library/LibraryTests.h"

namespace {
void reference(credit_test::HostRows& h) { credit_test::layerNormReference(h, 1, 2); }
const credit_test::Spec kSpec{"layernorm_moments_bf16", credit_layernorm_moments_bf16::kWorkload, 3, reference, {},
                              credit_test::elemsOf<credit_layernorm_moments_bf16::Workload>()};
}  // namespace

CREDIT_LIBRARY_GPU_TESTS("layernorm_moments_bf16", kSpec)

// A constant row: the variance exactly 0 (every partial sum of bf16 threes is exact).
// A row 1e4 + 64 U(-1, 1) rounded to bf16 (multiples of 64, its ulp there), where the
// sum-of-squares formula in f32 loses much of the variance: the variance and rstd
// within 1e-3.
TEST_CASE("layernorm_moments_bf16: special rows", "[gpu][moments]") {
  credit_test::specialRows(
      kSpec, {{"constant", 0, [](long long, long long, float) { return 3.0f; }, {-1.0, -1.0, 0.0}},
              {"offset 1e4", 0, [](long long, long long, float u) { return 1.0e4f + 64.0f * u; }, {-1.0, 1e-3, 1e-3}}});
}
