// copy_ceiling.cu -- how fast can this GPU copy, and how much of that do G SMs reach?
//
// The benchmark reports every kernel as a fraction of a device-to-device copy of the same bytes.
// This probe answers the two questions that come up when a kernel sits below that line:
//   1. memcpy: cudaMemcpyAsync device to device at 64 MiB ... 2 GiB copied, as GB/s (bytes read +
//      written) and as a fraction of the 1 GiB copy: how much of a gap the size alone explains;
//   2. kernel: a grid-stride float4 copy by G CTAs of T threads, one CTA per SM (the dynamic
//      shared memory of each CTA exceeds half an SM's), as a fraction of the same-size memcpy:
//      the ceiling of a kernel that can occupy only G of the SMs (clusters of 16 fit 112 of the
//      H200's 132 SMs) or runs one CTA of T threads per SM.
// Every timing: the L2 flushed (a 256 MiB memset) before each launch, CUDA events, median of 15
// after 3 warm-ups; every kernel copy is checked element by element.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 bench/tools/copy_ceiling.cu -o copy_ceiling
//   ./copy_ceiling [--mib 1024] [--sms 0,128,112,96,64] [--threads 256,512,1024]
// (--sms 0: every SM.) Prints one JSON object per line.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(x)                                                                                  \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)

template <int THREADS>
__global__ void __launch_bounds__(THREADS, 1) copyKernel(const float4* __restrict__ in, float4* __restrict__ out,
                                                         long long n4) {
  const long long stride = (long long)gridDim.x * THREADS;
  long long i = blockIdx.x * (long long)THREADS + threadIdx.x;
  for (; i + 3 * stride < n4; i += 4 * stride) {  // four loads in flight per thread
    const float4 a = __ldg(in + i), b = __ldg(in + i + stride), c = __ldg(in + i + 2 * stride),
                 d = __ldg(in + i + 3 * stride);
    out[i] = a;
    out[i + stride] = b;
    out[i + 2 * stride] = c;
    out[i + 3 * stride] = d;
  }
  for (; i < n4; i += stride) out[i] = __ldg(in + i);
}

__global__ void fillPattern(float* p, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    p[i] = static_cast<float>(1 + i % 1021);
}

__global__ void countMismatches(const float* a, const float* b, long long n, unsigned long long* bad) {
  unsigned long long mine = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    mine += a[i] != b[i];
  if (mine) atomicAdd(bad, mine);
}

struct Timer {
  void* flush = nullptr;
  size_t flushBytes = 256u << 20;
  cudaEvent_t e0, e1;
  Timer() {
    CK(cudaMalloc(&flush, flushBytes));
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
  }
  template <class Launch>
  float medianMs(Launch launch, int runs = 15, int warmups = 3) {
    std::vector<float> t;
    for (int r = 0; r < runs + warmups; ++r) {
      CK(cudaMemsetAsync(flush, r & 0xff, flushBytes));
      CK(cudaEventRecord(e0));
      launch();
      CK(cudaGetLastError());
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      float ms;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      if (r >= warmups) t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }
};

static std::vector<int> parseList(const char* s) {
  std::vector<int> out;
  for (const char* p = s; *p;) {
    char* end;
    const long v = std::strtol(p, &end, 10);
    if (end == p || v < 0) {
      std::fprintf(stderr, "copy_ceiling: bad list '%s' (non-negative integers, comma-separated)\n", s);
      std::exit(1);
    }
    out.push_back(static_cast<int>(v));
    p = *end == ',' ? end + 1 : end;
    if (*end && *end != ',') {
      std::fprintf(stderr, "copy_ceiling: bad list '%s'\n", s);
      std::exit(1);
    }
  }
  return out;
}

template <int T>
static bool launchCopy(int ctas, size_t smem, const float4* in, float4* out, long long n4) {
  CK(cudaFuncSetAttribute(copyKernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  copyKernel<T><<<ctas, T, smem>>>(in, out, n4);
  return true;
}

int main(int argc, char** argv) {
  long long mib = 1024;
  std::vector<int> sms = {0, 128, 120, 112, 96, 64}, threads = {256, 512, 1024};
  for (int a = 1; a < argc; ++a) {
    const bool hasValue = a + 1 < argc;
    if (!std::strcmp(argv[a], "--mib") && hasValue) {
      mib = std::atoll(argv[++a]);
    } else if (!std::strcmp(argv[a], "--sms") && hasValue) {
      sms = parseList(argv[++a]);
    } else if (!std::strcmp(argv[a], "--threads") && hasValue) {
      threads = parseList(argv[++a]);
    } else {
      std::fprintf(stderr, "usage: copy_ceiling [--mib 1024] [--sms 0,128,112] [--threads 256,512,1024]\n");
      return 1;
    }
  }
  if (mib < 1) {
    std::fprintf(stderr, "copy_ceiling: --mib must be positive\n");
    return 1;
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("{\"device\": \"%s\", \"sms\": %d, \"smem_per_sm\": %zu}\n", prop.name, prop.multiProcessorCount,
              prop.sharedMemPerMultiprocessor);

  const size_t maxBytes = std::max<size_t>(2048ull << 20, size_t(mib) << 20);
  float *in, *out;
  unsigned long long* bad;
  CK(cudaMalloc(&in, maxBytes));
  CK(cudaMalloc(&out, maxBytes));
  CK(cudaMalloc(&bad, sizeof *bad));
  fillPattern<<<1024, 256>>>(in, static_cast<long long>(maxBytes / 4));
  CK(cudaDeviceSynchronize());
  Timer timer;

  double ref = 0;
  std::vector<std::pair<size_t, double>> sizes;
  for (size_t b = 64ull << 20; b <= (2048ull << 20); b *= 2) {
    const float ms = timer.medianMs([&] { CK(cudaMemcpyAsync(out, in, b, cudaMemcpyDeviceToDevice)); });
    const double gbps = 2.0 * b / (ms * 1e-3) / 1e9;
    sizes.push_back({b, gbps});
    if (b == (1024ull << 20)) ref = gbps;
  }
  for (auto& [b, gbps] : sizes)
    std::printf("{\"probe\": \"memcpy\", \"copied_MiB\": %zu, \"GBps\": %.1f, \"frac_of_1GiB\": %.4f}\n", b >> 20,
                gbps, ref > 0 ? gbps / ref : 0.0);

  const size_t bytes = size_t(mib) << 20;
  const long long n4 = static_cast<long long>(bytes / 16);
  const float memcpyMs = timer.medianMs([&] { CK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice)); });
  const size_t smem = prop.sharedMemPerMultiprocessor / 2 + 1024;  // one CTA per SM
  for (int T : threads) {
    if (T != 256 && T != 512 && T != 1024) {
      std::fprintf(stderr, "copy_ceiling: --threads takes 256, 512 or 1024 (got %d)\n", T);
      return 1;
    }
    for (int g : sms) {
      const int ctas = g == 0 ? prop.multiProcessorCount : std::min(g, prop.multiProcessorCount);
      auto launch = [&] {
        if (T == 256) launchCopy<256>(ctas, smem, reinterpret_cast<const float4*>(in), reinterpret_cast<float4*>(out), n4);
        if (T == 512) launchCopy<512>(ctas, smem, reinterpret_cast<const float4*>(in), reinterpret_cast<float4*>(out), n4);
        if (T == 1024) launchCopy<1024>(ctas, smem, reinterpret_cast<const float4*>(in), reinterpret_cast<float4*>(out), n4);
      };
      CK(cudaMemset(out, 0xff, bytes));
      launch();
      CK(cudaDeviceSynchronize());
      CK(cudaMemset(bad, 0, sizeof *bad));
      countMismatches<<<1024, 256>>>(in, out, static_cast<long long>(bytes / 4), bad);
      unsigned long long mismatches = 0;
      CK(cudaMemcpy(&mismatches, bad, sizeof mismatches, cudaMemcpyDeviceToHost));
      const float ms = timer.medianMs(launch);
      std::printf("{\"probe\": \"kernel\", \"ctas\": %d, \"threads\": %d, \"copied_MiB\": %lld, \"ms\": %.4f, "
                  "\"GBps\": %.1f, \"frac_of_memcpy\": %.4f, \"mismatches\": %llu}\n",
                  ctas, T, mib, ms, 2.0 * bytes / (ms * 1e-3) / 1e9, memcpyMs / ms, mismatches);
      if (mismatches) return 2;
    }
  }
  return 0;
}
