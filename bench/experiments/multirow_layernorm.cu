// Experiment: several rows per cluster, sharing one read of the broadcast vectors.
//
// Question (docs/results/multirow/README.md): layernorm streams at 81-87% of copy
// bandwidth at N >= 16384 where the same kernel without gamma and beta reaches
// 90-94% (docs/results/affine-cost/). gamma and beta are 8 of the 12 bytes each
// element loads from global memory, all of them L2 hits, and L2 is the busiest
// memory unit (Nsight Compute: 77-82% of its peak). If a cluster holds R rows and
// h reads gamma and beta once for all R of them, L2 loads per element fall from
// 12 B to 4 + 8/R B.
//
// This is a hand-written prototype of that schedule, the generated cluster kernel's
// structure (bulk copies of the slices into SMEM in four chunks, per-stage
// transaction mbarriers, st.async pushes of the partials, fixed-order combine) with
// R rows per CTA: each stage reduces R rows, one exchange carries the R rows' q
// partials, and h loads each gamma/beta element once and writes R outputs.
// R = 1 is the generated kernel's schedule, the control for this prototype.
//
// Built with nvcc as a shared library; bench/experiments/multirow.py drives it.
#include <cuda_runtime.h>

#include "credit/device/credit_device.cuh"

namespace {

constexpr int kChunks = 4;
constexpr int kUnroll = 4;

__host__ __device__ constexpr long long cdiv(long long a, long long b) { return (a + b - 1) / b; }
__host__ __device__ constexpr long long rup(long long a, long long m) { return cdiv(a, m) * m; }
__host__ __device__ constexpr long long sliceOf(long long N, int P) { return rup(cdiv(N, P), 4); }
// Each row's slice starts 128-B aligned (Layout.h kSliceAlign: measured to matter).
__host__ __device__ constexpr long long pitchOf(long long slice) { return rup(slice, 32); }

struct SmemPlan {
  long long warpPartials, ctaPartial, slots, bars, loadBars, keep, total;
};
__host__ __device__ constexpr SmemPlan planOf(int R, int threads, int P, long long N) {
  SmemPlan l{};
  long long o = 0;
  l.warpPartials = o;
  o += rup((threads / 32) * R * 4LL, 16);
  l.ctaPartial = o;
  o += rup(R * 4LL, 16);
  l.slots = o;
  o += rup(2LL * P * R * 4, 16);  // two stages x [P][R], each stage its own set
  l.bars = o;
  o += 16;  // two stage mbarriers
  l.loadBars = o;
  o += rup(R * kChunks * 8LL, 16);
  l.keep = rup(o, 128);
  l.total = l.keep + R * pitchOf(sliceOf(N, P)) * 4;
  return l;
}

__device__ __forceinline__ float4 ld4(const float* p) { return *reinterpret_cast<const float4*>(p); }
__device__ __forceinline__ void st4(float* p, float4 v) { *reinterpret_cast<float4*>(p) = v; }

template <int R, int T, int MINB>
__global__ void __launch_bounds__(T, MINB)
    mr_layernorm(const float* __restrict__ x, const float* __restrict__ gamma, const float* __restrict__ beta,
                 float* __restrict__ y, long long M, int N, int P, float eps) {
  constexpr int W = T / 32;
  const unsigned tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int rank = static_cast<int>(credit_cluster_ctarank());
  const long long row0 = static_cast<long long>(blockIdx.x / static_cast<unsigned>(P)) * R;
  const long long slice = sliceOf(N, P), pitch = pitchOf(slice);
  const long long begin = rank * slice < N ? rank * slice : N;
  const unsigned len = static_cast<unsigned>((begin + slice < N ? begin + slice : N) - begin);
  const SmemPlan plan = planOf(R, T, P, N);
  unsigned char* const smem = credit_dynamic_smem();
  float* const wp = reinterpret_cast<float*>(smem + plan.warpPartials);
  float* const cp = reinterpret_cast<float*>(smem + plan.ctaPartial);
  float* const slots = reinterpret_cast<float*>(smem + plan.slots);
  uint64_t* const bars = reinterpret_cast<uint64_t*>(smem + plan.bars);
  uint64_t* const lbars = reinterpret_cast<uint64_t*>(smem + plan.loadBars);
  float* const xs = reinterpret_cast<float*>(smem + plan.keep);  // row r: xs + r * pitch
  // Rows past M (the last group of a grid of ceil(M / R) groups) load row M - 1
  // and store nothing, but reach every barrier.
  long long rowOf[R];
  bool valid[R];
#pragma unroll
  for (int r = 0; r < R; ++r) {
    valid[r] = row0 + r < M;
    rowOf[r] = valid[r] ? row0 + r : M - 1;
  }

  if (tid == 0) {
    credit_mbar_init(credit_smem_addr(bars + 0), 1);
    credit_mbar_init(credit_smem_addr(bars + 1), 1);
    for (int k = 0; k < R * kChunks; ++k) credit_mbar_init(credit_smem_addr(lbars + k), 1);
    credit_fence_mbarrier_init_cluster();
  }
  credit_cluster_arrive();  // set-up barrier, first half (the wait is before the first push)
  __syncthreads();
  const unsigned chunk = static_cast<unsigned>(rup(cdiv(len, kChunks), 4LL * T));
  if (tid == 0) {
    for (int c = 0; c < kChunks; ++c) {  // chunk-major: the first pass walks chunk c of every row
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const unsigned cbeg = c * chunk < len ? c * chunk : len;
        const unsigned cend = cbeg + chunk < len ? cbeg + chunk : len;
        const uint32_t bar = credit_smem_addr(lbars + r * kChunks + c);
        credit_mbar_arrive_expect_tx(bar, (cend - cbeg) * 4);
        if (cend > cbeg)
          credit_bulk_load(credit_smem_addr(xs + r * pitch + cbeg), x + rowOf[r] * N + begin + cbeg,
                           (cend - cbeg) * 4, bar);
      }
    }
  }

  // ---- stage 1: sum(x) per row ----
  float acc[R];
#pragma unroll
  for (int r = 0; r < R; ++r) acc[r] = 0.0f;
  for (int c = 0; c < kChunks; ++c) {
    const unsigned cbeg = c * chunk < len ? c * chunk : len;
    const unsigned cend = cbeg + chunk < len ? cbeg + chunk : len;
#pragma unroll
    for (int r = 0; r < R; ++r) credit_mbar_wait(credit_smem_addr(lbars + r * kChunks + c), 0);
    for (unsigned base = cbeg + 4 * tid; base < cend; base += kUnroll * 4 * T) {
#pragma unroll
      for (int r = 0; r < R; ++r) {
        float4 v[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const unsigned off = base + u * 4 * T;
          if (off >= cend) break;
          v[u] = ld4(xs + r * pitch + off);
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const unsigned off = base + u * 4 * T;
          if (off >= cend) break;
          acc[r] += v[u].x;
          acc[r] += v[u].y;
          acc[r] += v[u].z;
          acc[r] += v[u].w;
        }
      }
    }
  }
  auto exchange = [&](int stage, float* out) {
#pragma unroll
    for (int r = 0; r < R; ++r) acc[r] = credit_warp_reduce<CREDIT_SUM>(acc[r]);
    if (lane == 0) {
#pragma unroll
      for (int r = 0; r < R; ++r) wp[warp * R + r] = acc[r];
    }
    __syncthreads();
    if (warp == 0) {
#pragma unroll
      for (int r = 0; r < R; ++r) {
        float v = lane < W ? wp[lane * R + r] : 0.0f;
        v = credit_warp_reduce<CREDIT_SUM>(v);
        if (lane == 0) cp[r] = v;
      }
    }
    __syncthreads();
    if (stage == 0) credit_cluster_wait();  // every CTA started, its mbarriers initialised
    float* const s = slots + stage * P * R;
    uint64_t* const bar = bars + stage;
    if (tid == 0) credit_mbar_arrive_expect_tx(credit_smem_addr(bar), P * R * 4);
    credit_push_async<R>(cp, s, bar, P);
    if (P == 1) __syncthreads();
    credit_mbar_wait(credit_smem_addr(bar), 0);
#pragma unroll
    for (int r = 0; r < R; ++r) out[r] = credit_combine_slots<CREDIT_SUM>(s, r, R, P);
  };
  const float N_f = static_cast<float>(N);
  float mean[R], rstd[R];
  exchange(0, mean);
#pragma unroll
  for (int r = 0; r < R; ++r) mean[r] = mean[r] / N_f;

  // ---- stage 2: sum((x - mean)^2) per row ----
#pragma unroll
  for (int r = 0; r < R; ++r) acc[r] = 0.0f;
  for (unsigned base = 4 * tid; base < len; base += kUnroll * 4 * T) {
#pragma unroll
    for (int r = 0; r < R; ++r) {
      float4 v[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const unsigned off = base + u * 4 * T;
        if (off >= len) break;
        v[u] = ld4(xs + r * pitch + off);
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const unsigned off = base + u * 4 * T;
        if (off >= len) break;
        float t;
        t = v[u].x - mean[r]; acc[r] += t * t;
        t = v[u].y - mean[r]; acc[r] += t * t;
        t = v[u].z - mean[r]; acc[r] += t * t;
        t = v[u].w - mean[r]; acc[r] += t * t;
      }
    }
  }
  exchange(1, rstd);
#pragma unroll
  for (int r = 0; r < R; ++r) rstd[r] = rsqrtf(rstd[r] / N_f + eps);

  // ---- h: gamma and beta once per element, R outputs ----
  const float* const gs = gamma + begin;
  const float* const bs = beta + begin;
  for (unsigned base = 4 * tid; base < len; base += kUnroll * 4 * T) {
    float4 g[kUnroll], b[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const unsigned off = base + u * 4 * T;
      if (off >= len) break;
      g[u] = ld4(gs + off);
      b[u] = ld4(bs + off);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const unsigned off = base + u * 4 * T;
      if (off >= len) break;
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const float4 v = ld4(xs + r * pitch + off);
        float4 o;
        o.x = (v.x - mean[r]) * rstd[r] * g[u].x + b[u].x;
        o.y = (v.y - mean[r]) * rstd[r] * g[u].y + b[u].y;
        o.z = (v.z - mean[r]) * rstd[r] * g[u].z + b[u].z;
        o.w = (v.w - mean[r]) * rstd[r] * g[u].w + b[u].w;
        if (valid[r]) st4(y + rowOf[r] * N + begin + off, o);
      }
    }
  }
  // No exit barrier: every byte pushed into this CTA was waited for.
}

template <int R, int T, int MINB>
int launchOne(int P, const float* x, const float* g, const float* b, float* y, long long M, int N, float eps,
              cudaStream_t stream) {
  const long long smem = planOf(R, T, P, N).total;
  auto kernel = mr_layernorm<R, T, MINB>;
  // Set once per instantiation and size (not inside every timed launch).
  static long long smemSet = -1;
  static bool nonPortable = false;
  if (smem > smemSet) {
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)) !=
        cudaSuccess)
      return 2;
    smemSet = smem;
  }
  if (P > 8 && !nonPortable) {
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess) return 3;
    nonPortable = true;
  }
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>(cdiv(M, R) * P));
  cfg.blockDim = dim3(T);
  cfg.dynamicSmemBytes = static_cast<size_t>(smem);
  cfg.stream = stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = static_cast<unsigned>(P);
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, kernel, x, g, b, y, M, N, P, eps) == cudaSuccess ? 0 : 4;
}

}  // namespace

extern "C" long long mr_smem_bytes(int R, int T, int P, long long N) { return planOf(R, T, P, N).total; }

// 0 ok; 1 unsupported (R, T) or shape; 2-4 a failed CUDA call.
extern "C" int mr_launch(int R, int T, int P, const float* x, const float* g, const float* b, float* y, long long M,
                         int N, float eps, void* stream) {
  if (N % 4 != 0 || N < 4 || M < 1 || P < 1 || P > 16) return 1;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  // MINB as the generated kernels: 256 threads, 3 CTAs per SM (80 registers); 512 threads, 1.
  if (T == 256 && R == 1) return launchOne<1, 256, 3>(P, x, g, b, y, M, N, eps, s);
  if (T == 256 && R == 2) return launchOne<2, 256, 3>(P, x, g, b, y, M, N, eps, s);
  if (T == 256 && R == 4) return launchOne<4, 256, 3>(P, x, g, b, y, M, N, eps, s);
  if (T == 512 && R == 1) return launchOne<1, 512, 1>(P, x, g, b, y, M, N, eps, s);
  if (T == 512 && R == 2) return launchOne<2, 512, 1>(P, x, g, b, y, M, N, eps, s);
  if (T == 512 && R == 4) return launchOne<4, 512, 1>(P, x, g, b, y, M, N, eps, s);
  return 1;
}
