// credit-consumer: calls two creditc-generated kernels through the headers that
// credit_add_kernel generates, and checks them against a CPU computation.
// Plain C++ (no CUDA compiler needed for this file). Without a GPU (or with one
// older than sm_90) it runs only the host-side checks and prints
// "no GPU: skipped run", exiting 0.
#include "layernorm_kernel.h"  // credit_layernorm_* (from layernorm.credit)
#include "quant_kernel.h"      // credit_quant_int8_* (from quant_int8.credit)
#include "layernorm512_kernel.h"  // layernorm512_* (layernorm.credit, 512 threads, PREFIX layernorm512)

#include "credit/runtime/Nvrtc.h"  // credit::runtime, only for its version string

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

namespace {

int failures = 0;

// cudaMalloc of cuda_runtime_api.h takes a void**; <cuda_runtime.h>'s typed
// overload is not needed for this.
template <typename T>
cudaError_t deviceAlloc(T** p, size_t bytes) {
  return cudaMalloc(reinterpret_cast<void**>(p), bytes);
}

void expect(bool ok, const char* what) {
  std::printf("  %-58s %s\n", what, ok ? "ok" : "FAILED");
  if (!ok) ++failures;
}

#define CUDA_OK(call)                                                            \
  do {                                                                           \
    cudaError_t e_ = (call);                                                     \
    if (e_ != cudaSuccess) {                                                     \
      std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

// y = (x - mean) * rsqrt(var + eps) * gamma + beta, per row, in double.
void layernormRef(const std::vector<float>& x, const std::vector<float>& g,
                  const std::vector<float>& b, long long M, long long N, std::vector<double>& y) {
  y.assign(x.size(), 0.0);
  for (long long r = 0; r < M; ++r) {
    const float* xr = &x[r * N];
    double mean = 0, var = 0;
    for (long long i = 0; i < N; ++i) mean += xr[i];
    mean /= N;
    for (long long i = 0; i < N; ++i) var += (xr[i] - mean) * (xr[i] - mean);
    var /= N;
    double rstd = 1.0 / std::sqrt(var + 1e-5);
    for (long long i = 0; i < N; ++i) y[r * N + i] = (xr[i] - mean) * rstd * g[i] + b[i];
  }
}

// Max |a - ref| relative to max |ref|.
double relErr(const std::vector<float>& a, const std::vector<double>& ref) {
  double err = 0, scale = 1e-30;
  for (size_t i = 0; i < ref.size(); ++i) {
    err = std::max(err, std::fabs(a[i] - ref[i]));
    scale = std::max(scale, std::fabs(ref[i]));
  }
  return err / scale;
}

int runLayernorm(long long M, long long N) {
  std::mt19937 rng(42);
  std::normal_distribution<float> dist(0.5f, 2.0f);
  std::vector<float> x(M * N), g(N), b(N), y(M * N);
  for (float& v : x) v = dist(rng);
  for (float& v : g) v = 1.0f + 0.1f * dist(rng);
  for (float& v : b) v = 0.1f * dist(rng);
  std::vector<double> ref;
  layernormRef(x, g, b, M, N, ref);

  float *dx, *dg, *db, *dy;
  CUDA_OK(deviceAlloc(&dx, x.size() * 4));
  CUDA_OK(deviceAlloc(&dg, N * 4));
  CUDA_OK(deviceAlloc(&db, N * 4));
  CUDA_OK(deviceAlloc(&dy, y.size() * 4));
  CUDA_OK(cudaMemcpy(dx, x.data(), x.size() * 4, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(dg, g.data(), N * 4, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(db, b.data(), N * 4, cudaMemcpyHostToDevice));

  struct Run { const char* name; int P; int protocol; credit_layernorm_variant variant; };
  // "auto": credit_layernorm_launch_auto, the model's choice (PROFILE in CMakeLists.txt).
  const Run runs[] = {{"cluster", 2, 0, CREDIT_LAYERNORM_VARIANT_CLUSTER},
                      {"cluster", 4, 1, CREDIT_LAYERNORM_VARIANT_CLUSTER},
                      {"cluster", 8, 0, CREDIT_LAYERNORM_VARIANT_CLUSTER},
                      {"staged", 1, 0, CREDIT_LAYERNORM_VARIANT_STAGED},
                      {"reread", 1, 0, CREDIT_LAYERNORM_VARIANT_REREAD},
                      {"auto", 0, 0, CREDIT_LAYERNORM_VARIANT_CLUSTER}};
  for (const Run& r : runs) {
    const bool automatic = r.name[0] == 'a';
    if (!automatic && N > credit_layernorm_max_legal_n(r.variant, r.P, r.protocol)) continue;  // Eq. 3
    CUDA_OK(cudaMemset(dy, 0xff, y.size() * 4));  // NaN: an unwritten element fails
    int status;
    if (automatic)
      status = credit_layernorm_launch_auto(dx, dg, db, dy, M, N, nullptr);
    else if (r.P > 1 || r.name[0] == 'c')
      status = credit_layernorm_launch_cluster(dx, dg, db, dy, M, N, r.P, r.protocol, nullptr);
    else if (r.name[0] == 's')
      status = credit_layernorm_launch_staged(dx, dg, db, dy, M, N, nullptr);
    else
      status = credit_layernorm_launch_reread(dx, dg, db, dy, M, N, nullptr);
    char what[96];
    if (status != CREDIT_LAYERNORM_STATUS_OK) {
      std::snprintf(what, sizeof what, "layernorm %s P=%d: %s", r.name, r.P,
                    credit_layernorm_status_string(status));
      expect(false, what);
      continue;
    }
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaMemcpy(y.data(), dy, y.size() * 4, cudaMemcpyDeviceToHost));
    double e = relErr(y, ref);
    if (automatic) {
      credit_plan plan{};
      expect(credit_layernorm_last_plan(M, N, &plan) == CREDIT_LAYERNORM_STATUS_OK, "a plan was recorded");
      const char* names[] = {"reread", "staged", "cluster"};
      std::snprintf(what, sizeof what, "layernorm auto -> %s P=%d M=%lld N=%lld rel.err %.1e",
                    names[plan.variant < 0 || plan.variant > 2 ? 0 : plan.variant], plan.P, M, N, e);
    } else {
      std::snprintf(what, sizeof what, "layernorm %-7s P=%-2d %s M=%lld N=%lld rel.err %.1e", r.name,
                    r.P, r.protocol ? "mbar" : "sync", M, N, e);
    }
    expect(e <= 1e-4, what);
  }
  cudaFree(dx), cudaFree(dg), cudaFree(db), cudaFree(dy);
  return 0;
}

int runQuant(long long M, long long N) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  std::vector<float> x(M * N), scale(M);
  std::vector<int8_t> q(M * N);
  for (float& v : x) v = dist(rng);
  float *dx, *dscale;
  int8_t* dq;
  CUDA_OK(deviceAlloc(&dx, x.size() * 4));
  CUDA_OK(deviceAlloc(&dq, q.size()));
  CUDA_OK(deviceAlloc(&dscale, M * 4));
  CUDA_OK(cudaMemcpy(dx, x.data(), x.size() * 4, cudaMemcpyHostToDevice));
  for (int P : {1, 4}) {
    int status = P == 1 ? credit_quant_int8_launch_reread(dx, dq, dscale, M, N, nullptr)
                        : credit_quant_int8_launch_cluster(dx, dq, dscale, M, N, P, 1, nullptr);
    char what[96];
    if (status != CREDIT_QUANT_INT8_STATUS_OK) {
      std::snprintf(what, sizeof what, "quant_int8 P=%d: %s", P, credit_quant_int8_status_string(status));
      expect(false, what);
      continue;
    }
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaMemcpy(q.data(), dq, q.size(), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(scale.data(), dscale, M * 4, cudaMemcpyDeviceToHost));
    int worst = 0;
    double worstScale = 0;
    for (long long r = 0; r < M; ++r) {
      float amax = 0;
      for (long long i = 0; i < N; ++i) amax = std::max(amax, std::fabs(x[r * N + i]));
      float s = std::max(amax, 1e-12f) / 127.0f;
      worstScale = std::max(worstScale, std::fabs(double(scale[r]) - s) / s);
      for (long long i = 0; i < N; ++i) {
        int ref = static_cast<int>(std::min(127.0f, std::max(-127.0f, std::round(x[r * N + i] / s))));
        worst = std::max(worst, std::abs(ref - q[r * N + i]));
      }
    }
    std::snprintf(what, sizeof what, "quant_int8 %s P=%d M=%lld N=%lld |dq|<=%d, scale %.1e",
                  P == 1 ? "reread " : "cluster", P, M, N, worst, worstScale);
    expect(worst <= 1 && worstScale <= 1e-6, what);
  }
  cudaFree(dx), cudaFree(dq), cudaFree(dscale);
  return 0;
}

}  // namespace

int main() {
  std::printf("credit-consumer: kernels generated by creditc at build time (NVRTC %s)\n",
              credit::nvrtcVersionString().c_str());
  std::printf("  layernorm:  %s\n  quant_int8: %s\n  layernorm report: %s\n",
              credit_layernorm_signature(), credit_quant_int8_signature(), LAYERNORM_REPORT);

  // Host-side checks of the generated launch API (no GPU needed).
  expect(credit_layernorm_launch_cluster(nullptr, nullptr, nullptr, nullptr, 0, 1024, 4, 0,
                                         nullptr) == CREDIT_LAYERNORM_STATUS_OK,
         "M == 0 launches nothing and returns 0");
  expect(credit_layernorm_launch_cluster(nullptr, nullptr, nullptr, nullptr, 4, 1024, 4, 7,
                                         nullptr) == CREDIT_LAYERNORM_STATUS_BAD_PROTOCOL,
         "protocol 7 is refused before any CUDA call");
  void* noArgs[3] = {nullptr, nullptr, nullptr};
  expect(credit_quant_int8_launch_generic(CREDIT_QUANT_INT8_VARIANT_STAGED, noArgs, 1, 1, 1, 0, nullptr) ==
             CREDIT_QUANT_INT8_STATUS_BAD_VARIANT,
         "quant_int8 was built without the staged variant");
  expect(LAYERNORM512_CTA_THREADS == 512 && CREDIT_LAYERNORM_CTA_THREADS == 256,
         "two configurations of layernorm side by side (PREFIX)");
  expect(layernorm512_launch_reread(nullptr, nullptr, nullptr, nullptr, 0, 1024, nullptr) ==
             LAYERNORM512_STATUS_OK,
         "the second configuration's launcher");
  expect(credit_layernorm_max_legal_n(CREDIT_LAYERNORM_VARIANT_CLUSTER, 4, 0) > 65536, "Eq. 3 bound of layernorm, P = 4");

  int devices = 0;
  cudaDeviceProp prop{};
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no GPU: skipped run\n");
    return failures ? 1 : 0;
  }
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess || prop.major < 9) {
    std::printf("GPU %s (sm_%d%d) has no thread-block clusters: skipped run\n", prop.name,
                prop.major, prop.minor);
    return failures ? 1 : 0;
  }
  std::printf("GPU: %s (sm_%d%d)\n", prop.name, prop.major, prop.minor);
  if (runLayernorm(64, 8192) || runLayernorm(33, 4099) || runQuant(64, 4096) || runQuant(5, 1001))
    return 1;
  std::printf(failures ? "%d check(s) FAILED\n" : "all checks passed\n", failures);
  return failures ? 1 : 0;
}
