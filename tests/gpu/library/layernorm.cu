// The layernorm fixture (Sum statistics, a broadcast input only h reads, the model's
// dispatch) on the GPU.
#include "device/fixtures/layernorm.cu"
#include "library/LayerNormReference.h"
#include "library/LibraryTests.h"

namespace {
void reference(credit_test::HostRows& h) { credit_test::layerNormReference(h); }
const credit_test::Spec kSpec{"layernorm", credit_layernorm::kWorkload, 3, reference, {}};
}  // namespace

CREDIT_LIBRARY_GPU_TESTS("layernorm", kSpec)

TEST_CASE("layernorm: the model's dispatch", "[gpu][dispatch]") {
  CREDIT_REQUIRE_GPU();
  for (long long N : {4096LL, 65536LL}) {
    credit_test::Problem p(kSpec, 256, N);
    credit_plan plan{};
    CHECK(credit::host::plan(credit_layernorm::kDispatch, p.M, p.N, 0.5, &plan) == credit::kStatusOk);
    p.poison();
    REQUIRE(credit::host::launchAuto(credit_layernorm::kDispatch, p.data(), p.M, p.N, nullptr) == credit::kStatusOk);
    CHECK(p.check());
    CHECK(credit::host::lastPlan(credit_layernorm::kDispatch, p.M, p.N, &plan) == credit::kStatusOk);
    p.poison();
    REQUIRE(credit::host::autotune(credit_layernorm::kDispatch, p.data(), p.M, p.N, nullptr, nullptr, &plan) ==
            credit::kStatusOk);
    p.poison();
    REQUIRE(credit::host::launchAuto(credit_layernorm::kDispatch, p.data(), p.M, p.N, nullptr) == credit::kStatusOk);
    CHECK(p.check());
  }
}
