// Device-side helpers of the GPU tests: fresh random inputs (a counter-based
// hash, so filling gigabytes costs milliseconds; 16-bit inputs hold the value
// rounded to nearest even; class indices, masks and small integers) and a count of
// output elements still holding the poison pattern (= never written).
#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace {
__device__ __forceinline__ uint64_t splitmix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

__global__ void fillUniformKernel(float *p, size_t n, uint64_t seed, float lo, float hi) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    uint64_t h = splitmix64(seed ^ (i * 0xD1B54A32D192ED03ull));
    float u = (h >> 40) * (1.0f / 16777216.0f); // [0, 1)
    p[i] = lo + (hi - lo) * u;
  }
}

// The f32 fill's values, rounded to bf16 (bf16 true) or f16.
__global__ void fillUniform16Kernel(unsigned short *p, size_t n, uint64_t seed, float lo, float hi, bool bf16) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    uint64_t h = splitmix64(seed ^ (i * 0xD1B54A32D192ED03ull));
    float u = (h >> 40) * (1.0f / 16777216.0f); // [0, 1)
    const float v = lo + (hi - lo) * u;
    p[i] = bf16 ? __bfloat16_as_ushort(__float2bfloat16_rn(v)) : __half_as_ushort(__float2half_rn(v));
  }
}

// Class indices (i32 or i64, `elemBytes`): uniform in [0, classes), except about one
// in 8, which is -100 (PyTorch's ignore index: no column matches it).
__global__ void fillClassIndexKernel(void *p, size_t n, int elemBytes, uint64_t seed, long long classes) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    uint64_t h = splitmix64(seed ^ (i * 0xD1B54A32D192ED03ull));
    const long long v = (h & 7) == 0 ? -100 : (long long)((h >> 8) % (uint64_t)classes);
    if (elemBytes == 8)
      static_cast<int64_t *>(p)[i] = v;
    else
      static_cast<int32_t *>(p)[i] = (int32_t)v;
  }
}

// One-byte elements: `mask` 0/1 with about 3/4 ones (a bool mask), else integers
// uniform in [lo, hi] stored as their low byte (u8 or i8).
__global__ void fillBytesKernel(uint8_t *p, size_t n, uint64_t seed, int lo, int hi, bool mask) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    uint64_t h = splitmix64(seed ^ (i * 0xD1B54A32D192ED03ull));
    p[i] = mask ? (uint8_t)(((h >> 8) & 3) != 0) : (uint8_t)(lo + (int)((h >> 8) % (uint64_t)(hi - lo + 1)));
  }
}

__global__ void countPoisonHalvesKernel(const uint16_t *halves, size_t n, uint16_t poison,
                                        unsigned long long *count) {
  unsigned long long local = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    local += halves[i] == poison;
  if (local)
    atomicAdd(count, local);
}

__global__ void countPoisonKernel(const uint32_t *words, size_t n, uint32_t poison,
                                  unsigned long long *count) {
  unsigned long long local = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    local += words[i] == poison;
  if (local)
    atomicAdd(count, local);
}

__global__ void countPoisonBytesKernel(const uint8_t *bytes, size_t n, uint8_t poison,
                                       unsigned long long *count) {
  unsigned long long local = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    local += bytes[i] == poison;
  if (local)
    atomicAdd(count, local);
}
} // namespace

cudaError_t creditTestFillUniform(float *p, size_t n, uint64_t seed, float lo, float hi) {
  if (n == 0)
    return cudaSuccess;
  fillUniformKernel<<<1024, 256>>>(p, n, seed, lo, hi);
  return cudaGetLastError();
}

cudaError_t creditTestFillUniform16(void *p, size_t n, uint64_t seed, float lo, float hi, bool bf16) {
  if (n == 0)
    return cudaSuccess;
  fillUniform16Kernel<<<1024, 256>>>(static_cast<unsigned short *>(p), n, seed, lo, hi, bf16);
  return cudaGetLastError();
}

cudaError_t creditTestFillClassIndices(void *p, size_t n, int elemBytes, uint64_t seed, long long classes) {
  if (n == 0)
    return cudaSuccess;
  fillClassIndexKernel<<<1024, 256>>>(p, n, elemBytes, seed, classes < 1 ? 1 : classes);
  return cudaGetLastError();
}

cudaError_t creditTestFillBytes(void *p, size_t n, uint64_t seed, int lo, int hi, bool mask) {
  if (n == 0)
    return cudaSuccess;
  fillBytesKernel<<<1024, 256>>>(static_cast<uint8_t *>(p), n, seed, lo, hi < lo ? lo : hi, mask);
  return cudaGetLastError();
}

// Elements of `elemBytes` (1: i8, poison 0x80; 2: bf16/f16, 0xFFFF, a NaN no
// rounding yields; 4: f32, 0xFFFFFFFF) still holding the poison.
cudaError_t creditTestCountPoisonElems(const void *p, size_t bytes, int elemBytes, unsigned long long *out) {
  unsigned long long *d = nullptr;
  cudaError_t err = cudaMalloc(&d, sizeof(*d));
  if (err != cudaSuccess)
    return err;
  cudaMemset(d, 0, sizeof(*d));
  if (elemBytes == 1)
    countPoisonBytesKernel<<<1024, 256>>>(static_cast<const uint8_t *>(p), bytes, 0x80, d);
  else if (elemBytes == 2)
    countPoisonHalvesKernel<<<1024, 256>>>(static_cast<const uint16_t *>(p), bytes / 2, 0xFFFFu, d);
  else
    countPoisonKernel<<<1024, 256>>>(static_cast<const uint32_t *>(p), bytes / 4, 0xFFFFFFFFu, d);
  err = cudaMemcpy(out, d, sizeof(*out), cudaMemcpyDeviceToHost);
  cudaFree(d);
  return err;
}
