// The layernorm fixture (Sum statistics, a broadcast input only h reads, the model's
// dispatch) on the GPU.
#include "device/fixtures/layernorm.cu"
#include "library/LibraryTests.h"

namespace {
void reference(credit_test::HostRows& h) {
  const long long N = h.N;
  for (long long r = 0; r < h.R; ++r) {
    const float* x = h.in[0].data() + r * N;
    double sum = 0, sq = 0;
    for (long long i = 0; i < N; ++i) sum += x[i];
    const double mean = sum / N;
    for (long long i = 0; i < N; ++i) sq += (x[i] - mean) * (x[i] - mean);
    const double rstd = 1.0 / std::sqrt(sq / N + 1e-5);
    for (long long i = 0; i < N; ++i) h.out[0][r * N + i] = (x[i] - mean) * rstd * h.in[1][i] + h.in[2][i];
  }
}
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
