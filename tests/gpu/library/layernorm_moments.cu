// The layernorm_moments fixture (mean and variance from one moments statistic, one
// sweep; a broadcast input only h reads; the variance per row) on the GPU. Its
// reference is the two-pass definition in float64; the forms give the same bits (the
// moments merge each thread's runs of VEC terms in the same order in every form).
#include "device/fixtures/layernorm_moments.cu"
#include "library/LayerNormReference.h"
#include "library/LibraryTests.h"

namespace {
void reference(credit_test::HostRows& h) { credit_test::layerNormReference(h, -1, 1); }
const credit_test::Spec kSpec{"layernorm_moments", credit_layernorm_moments::kWorkload, 3, reference, {}};
}  // namespace

CREDIT_LIBRARY_GPU_TESTS("layernorm_moments", kSpec)

// A row of one constant whose multiples are exact in f32: every partial sum is exact
// and every difference of means 0, so the variance is exactly 0 (and y exactly beta).
// A row 1e4 + U(-1, 1), where the sum-of-squares formula loses the whole variance to
// cancellation: the variance within 1e-3. The threads sum around a shift taken from
// the data (no cancellation to speak of); what remains is the merges' means, each
// rounded to half an ulp of 1e4 (2^-11): about 1e-4 of the variance at N = 31 to
// 262144 in a float emulation of the reduction tree. y within 1e-2: the row's f32 mean
// is a few such ulp off the exact one.
TEST_CASE("layernorm_moments: special rows", "[gpu][moments]") {
  credit_test::specialRows(
      kSpec, {{"constant", 0, [](long long, long long, float) { return 3.0f; }, {-1.0, 0.0}},
              {"offset 1e4", 0, [](long long, long long, float u) { return 1.0e4f + u; }, {1e-2, 1e-3}}});
}
