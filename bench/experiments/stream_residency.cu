// stream_residency.cu -- experiment: how fast does a staged row stream (bulk
// copy into SMEM, one reduction pass, write back) at 1, 2, 3... CTAs per SM,
// for 1 or 2 kept arrays and outputs of 4 or 1 B per element? The question
// behind it (issue #5): do the generated staged kernels that fill an SM with
// one CTA (the 512-thread twins) lose streaming rate to residency alone?
//
// Mirrors the generated staged kernel's memory path: thread 0 issues
// kLoadChunks bulk copies per array (cp.async.bulk + mbarrier), the first pass
// waits chunk by chunk and sums, a CTA reduction, then h reads SMEM and writes
// `outs` output arrays that depend on the sum. Build: nvcc -O3 -arch=sm_90
// -std=c++17 -I runtime/include bench/experiments/stream_residency.cu
#include "credit/device/credit_device.cuh"
#include "event_timing.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>

constexpr int kChunks = 4;

template <int THREADS>
__global__ void __launch_bounds__(THREADS) stagedStream(const float* __restrict__ in, void* __restrict__ out,
                                                        int arrays, int outs, int outBytes, long long rows,
                                                        int slice) {
  unsigned char* smem = credit_dynamic_smem();
  uint64_t* bars = reinterpret_cast<uint64_t*>(smem);           // [arrays][kChunks]
  float* red = reinterpret_cast<float*>(smem + 128);            // [warps]
  float* keep = reinterpret_cast<float*>(smem + 1024);          // [arrays][slice]
  const long long row = blockIdx.x;
  const unsigned tid = threadIdx.x;
  const int chunk = slice / kChunks;
  if (tid == 0) {
    for (int k = 0; k < arrays * kChunks; ++k) credit_mbar_init(credit_smem_addr(bars + k), 1);
    credit_fence_mbarrier_init_cluster();
  }
  __syncthreads();
  if (tid == 0) {
    for (int a = 0; a < arrays; ++a)
      for (int c = 0; c < kChunks; ++c) {
        const uint32_t bar = credit_smem_addr(bars + a * kChunks + c);
        credit_mbar_arrive_expect_tx(bar, chunk * 4);
        credit_bulk_load(credit_smem_addr(keep + a * slice + c * chunk),
                         in + (a * rows + row) * (long long)slice + c * chunk, chunk * 4, bar);
      }
  }
  float acc = 0.f;
  for (int c = 0; c < kChunks; ++c) {
    for (int a = 0; a < arrays; ++a) credit_mbar_wait(credit_smem_addr(bars + a * kChunks + c), 0);
    for (int a = 0; a < arrays; ++a)
      for (int i = c * chunk + 4 * tid; i < (c + 1) * chunk; i += 4 * THREADS) {
        const float4 v = *reinterpret_cast<const float4*>(keep + a * slice + i);
        acc += v.x + v.y + v.z + v.w;
      }
  }
  for (int o = 16; o > 0; o /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  if (tid % 32 == 0) red[tid / 32] = acc;
  __syncthreads();
  float s = 0.f;
  for (int w = 0; w < THREADS / 32; ++w) s += red[w];
  const float eps = s * 1e-30f;  // h depends on the statistic
  for (int o = 0; o < outs; ++o) {
    const float* src = keep + (o % arrays) * slice;
    for (int i = 4 * tid; i < slice; i += 4 * THREADS) {
      const float4 v = *reinterpret_cast<const float4*>(src + i);
      const long long at = (o * rows + row) * (long long)slice + i;
      if (outBytes == 4) {
        *reinterpret_cast<float4*>(static_cast<float*>(out) + at) =
            make_float4(v.x + eps, v.y + eps, v.z + eps, v.w + eps);
      } else {
        const char4 q = make_char4((signed char)(v.x + eps), (signed char)(v.y + eps),
                                   (signed char)(v.z + eps), (signed char)(v.w + eps));
        *reinterpret_cast<char4*>(static_cast<signed char*>(out) + at) = q;
      }
    }
  }
}

struct Config {
  const char* name;
  int threads, arrays, outs, outBytes, slice;
};

int main() {
  const size_t bufBytes = size_t(1) << 30;  // 1 GiB in, 1 GiB out: far beyond the 60 MB L2
  float* in;
  void* out;
  CK(cudaMalloc(&in, bufBytes));
  CK(cudaMalloc(&out, bufBytes));
  CK(cudaMemset(in, 0, bufBytes));
  // The median of 15 timings (CUDA events) of `launch` after 3 warm-ups, nothing between them.
  auto medianMs = [](auto launch, float& ms) {
    return medianEventMs(launch, [](int) { return cudaSuccess; }, 15, 3, ms);
  };
  // The copy ceiling: 512 MiB device-to-device (read + write).
  float copyMs;
  if (medianMs([&] { return cudaMemcpyAsync(out, in, bufBytes / 2, cudaMemcpyDeviceToDevice); }, copyMs)) return 1;
  const double copyGBs = 2.0 * (bufBytes / 2) / (copyMs * 1e-3) / 1e9;
  std::printf("{\"config\": \"copy\", \"GBps\": %.1f}\n", copyGBs);

  const Config configs[] = {
      // 1 kept array, 128 KiB: layernorm / quant_int8 32768 staged twin (1 CTA/SM)
      {"a1o1_128K_t512", 512, 1, 1, 4, 32768},
      {"a1o1_128K_t256", 256, 1, 1, 4, 32768},
      {"a1o1i8_128K_t512", 512, 1, 1, 1, 32768},
      // 2 kept arrays of 64 KiB: pearson / wvar (2 outs), softmax (1 out) 16384 twin
      {"a2o2_128K_t512", 512, 2, 2, 4, 16384},
      {"a2o1_128K_t512", 512, 2, 1, 4, 16384},
      // 96 KiB (2 CTAs/SM), 64 KiB (3), 32 KiB (6), 16 KiB (8+; thread-limited)
      {"a1o1_96K_t256", 256, 1, 1, 4, 24576},
      {"a1o1_64K_t256", 256, 1, 1, 4, 16384},
      {"a1o1i8_64K_t256", 256, 1, 1, 1, 16384},
      {"a2o2_64K_t256", 256, 2, 2, 4, 8192},
      {"a2o1_64K_t256", 256, 2, 1, 4, 8192},
      {"a1o1_32K_t256", 256, 1, 1, 4, 8192},
      {"a1o1_16K_t256", 256, 1, 1, 4, 4096},
  };
  for (const Config& c : configs) {
    const long long perArrayRowBytes = (long long)c.slice * 4;
    const long long rows = (long long)(bufBytes / 2) / (perArrayRowBytes * std::max(c.arrays, c.outs));
    const int smem = 1024 + c.arrays * c.slice * 4;
    auto kern = c.threads == 512 ? stagedStream<512> : stagedStream<256>;
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    int perSm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kern, c.threads, smem));
    float ms;
    if (medianMs(
            [&] {
              kern<<<(unsigned)rows, c.threads, smem>>>(in, out, c.arrays, c.outs, c.outBytes, rows, c.slice);
              return cudaGetLastError();
            },
            ms))
      return 1;
    const double bytes = (double)rows * c.slice * (4.0 * c.arrays + (double)c.outBytes * c.outs);
    const double gbs = bytes / (ms * 1e-3) / 1e9;
    std::printf(
        "{\"config\": \"%s\", \"threads\": %d, \"arrays\": %d, \"outs\": %d, \"out_bytes\": %d, "
        "\"slice\": %d, \"smem\": %d, \"ctas_per_sm\": %d, \"rows\": %lld, \"ms\": %.4f, \"GBps\": %.1f, "
        "\"frac_copy\": %.3f}\n",
        c.name, c.threads, c.arrays, c.outs, c.outBytes, c.slice, smem, perSm, rows, ms, gbs,
        gbs / copyGBs);
  }
  return 0;
}
