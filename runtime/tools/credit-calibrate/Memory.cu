// credit-calibrate: the memory figures the model prices a baseline with where it is
// not timed (docs/cost-model.md): the device-to-device copy rate (bytes read plus
// written per second, cudaMemcpyAsync of a buffer far larger than L2) and the
// latency of a dependent global load that misses L2 (one thread chases a chain
// through a 1 GiB buffer, each step on a new line and DRAM page, after a write of
// a buffer far larger than L2 has evicted the chain).
#include "Calibrate.h"

namespace credit::calibrate::tool {

namespace {

constexpr size_t kCopyBytes = size_t{512} << 20;   // per buffer
constexpr size_t kChaseBytes = size_t{1} << 30;    // the chain's buffer
constexpr size_t kChaseStride = 4096 + 128;        // bytes between steps
constexpr int kChaseSteps = 4096;

// Follows the chain from word 0 for `steps` loads; cycles per load in out[0].
__global__ void globalChaseKernel(const unsigned long long* chain, int steps, unsigned long long* out) {
  unsigned long long at = 0, sum = 0;
  const long long c0 = clock64();
  for (int i = 0; i < steps; ++i) {
    at = chain[at];
    sum += at;
  }
  const long long c1 = clock64();
  out[0] = static_cast<unsigned long long>(c1 - c0) / static_cast<unsigned long long>(steps);
  out[1] = sum;
}

// Writes the chain: word step * stride holds the index of the next step's word.
__global__ void writeChainKernel(unsigned long long* chain, size_t words, size_t strideWords, size_t steps) {
  const size_t step = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (step >= steps) return;
  const size_t next = (step + 1) * strideWords;
  chain[step * strideWords] = next < words ? next : 0;
}

}  // namespace

bool measureMemory(Device& dev, const Options& o, Micro& m) {
  void *src = nullptr, *dst = nullptr;
  CUDA_TRY(cudaMalloc(&src, kCopyBytes));
  CUDA_TRY(cudaMalloc(&dst, kCopyBytes));
  CUDA_TRY(cudaMemsetAsync(src, 1, kCopyBytes, dev.stream));
  cudaEvent_t e0, e1;
  CUDA_TRY(cudaEventCreate(&e0));
  CUDA_TRY(cudaEventCreate(&e1));
  const bool copied = medianOf(o.runs, [&](double& gbps) {
    CUDA_TRY(cudaEventRecord(e0, dev.stream));
    CUDA_TRY(cudaMemcpyAsync(dst, src, kCopyBytes, cudaMemcpyDeviceToDevice, dev.stream));
    CUDA_TRY(cudaEventRecord(e1, dev.stream));
    CUDA_TRY(cudaEventSynchronize(e1));
    float ms = 0;
    CUDA_TRY(cudaEventElapsedTime(&ms, e0, e1));
    gbps = ms > 0 ? 2.0 * static_cast<double>(kCopyBytes) / (static_cast<double>(ms) * 1e6) : NAN;
    return true;
  }, m.copyGBps);
  (void)cudaEventDestroy(e0);
  (void)cudaEventDestroy(e1);
  CUDA_TRY(cudaFree(src));
  if (!copied) {
    (void)cudaFree(dst);
    return false;
  }

  unsigned long long* chain = nullptr;
  CUDA_TRY(cudaMalloc(&chain, kChaseBytes));
  const size_t words = kChaseBytes / sizeof(unsigned long long), strideWords = kChaseStride / sizeof(unsigned long long);
  const size_t steps = words / strideWords;
  const bool chased = medianOf(o.runs, [&](double& cycles) {
    writeChainKernel<<<static_cast<unsigned>((steps + 255) / 256), 256, 0, dev.stream>>>(chain, words, strideWords,
                                                                                           steps);
    CUDA_TRY(cudaGetLastError());
    CUDA_TRY(cudaMemsetAsync(dst, 0, kCopyBytes, dev.stream));  // evicts the chain from L2
    globalChaseKernel<<<1, 1, 0, dev.stream>>>(chain, kChaseSteps, dev.scratch);
    CUDA_TRY(cudaGetLastError());
    CUDA_TRY(cudaStreamSynchronize(dev.stream));
    unsigned long long h = 0;
    CUDA_TRY(cudaMemcpy(&h, dev.scratch, sizeof h, cudaMemcpyDeviceToHost));
    cycles = static_cast<double>(h);
    return true;
  }, m.globalLoadLatency);
  CUDA_TRY(cudaFree(chain));
  CUDA_TRY(cudaFree(dst));
  return chased;
}

}  // namespace credit::calibrate::tool
