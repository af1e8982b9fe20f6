// Experiment: persistent CTAs (clusters) that keep the broadcast vectors in registers.
//
// Question (docs/results/persistent-broadcast/README.md): layernorm streams at 80-86%
// of copy bandwidth at N >= 16384, where the same kernels without gamma and beta reach
// 90-94% (docs/results/affine-cost/). gamma and beta are 8 of the 12 bytes each element
// loads from global memory, once per row. Sharing them between rows held in SMEM
// (multirow/) or through a multicast SMEM ring (multicast/) costs the SMEM that
// occupancy needs. Registers are the storage those schemes did not use: a CTA that
// stays resident and walks many rows loads its slice of gamma and beta ONCE, into
// registers, and then loads only x per row (4 B per element, as the no-affine kernel).
//
// The schedule: one CTA per SM of T threads (a cluster of P CTAs per row where P > 1),
// a grid of exactly the resident clusters, cluster c taking rows c, c + G, c + 2G, ...
// Each CTA's slice of x (T * E elements, E per thread) streams through an NS-stage SMEM
// ring of bulk copies (one copy per row, a transaction mbarrier per stage), so the next
// rows load while this one reduces and writes. The two stages (mean, centred variance)
// exchange their CTA partials with st.async pushes into slot sets double-buffered by row
// parity (a CTA is at most one row ahead of its peers: to finish row k+1 it needs every
// peer's row-(k+1) partials, which each peer pushes only after reading its row-k slots),
// so no cluster barrier is needed after the set-up one. KEEPX keeps the thread's x in
// registers from the first pass to h, so the ring stage is refilled right after the
// first pass instead of after h.
//
// Requires N == P * T * E (the benchmark's widths); the driver picks configurations.
// Built with nvcc as a shared library; bench/experiments/persistent.py drives it.
#include <cuda_runtime.h>

#include "credit/device/credit_device.cuh"

namespace {

__host__ __device__ constexpr long long rup(long long a, long long m) { return (a + m - 1) / m * m; }

struct SmemPlan {
  long long warpPartials, ctaPartial, slots, exchangeBars, loadBars, ring, total;
};
__host__ __device__ constexpr SmemPlan planOf(int T, int E, int NS, int P) {
  SmemPlan l{};
  long long o = 0;
  l.warpPartials = o;
  o += rup((T / 32) * 4LL, 16);
  l.ctaPartial = o;
  o += 16;
  l.slots = o;
  o += rup(4LL * P * 4, 16);  // [row parity][stage][P]
  l.exchangeBars = o;
  o += 4 * 8;  // [row parity][stage]
  l.loadBars = o;
  o += rup(NS * 8LL, 16);
  l.ring = rup(o, 128);
  l.total = l.ring + static_cast<long long>(NS) * T * E * 4;
  return l;
}

__device__ __forceinline__ float4 ld4(const float* p) { return *reinterpret_cast<const float4*>(p); }
__device__ __forceinline__ void st4(float* p, float4 v) { *reinterpret_cast<float4*>(p) = v; }

template <int T, int E, int NS, bool KEEPX>
__global__ void __launch_bounds__(T, 1)
    persistent_layernorm(const float* __restrict__ x, const float* __restrict__ gamma,
                         const float* __restrict__ beta, float* __restrict__ y, long long M, int N, int P,
                         float eps) {
  static_assert(E % 4 == 0, "float4 groups");
  constexpr int V = E / 4;
  constexpr int W = T / 32;
  constexpr unsigned kSlice = static_cast<unsigned>(T) * E;
  const unsigned tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const unsigned rank = credit_cluster_ctarank();
  const long long cluster = blockIdx.x / static_cast<unsigned>(P);
  const long long clusters = gridDim.x / static_cast<unsigned>(P);
  const long long begin = static_cast<long long>(rank) * kSlice;
  const long long rows = cluster < M ? (M - 1 - cluster) / clusters + 1 : 0;
  const SmemPlan pl = planOf(T, E, NS, P);
  unsigned char* const smem = credit_dynamic_smem();
  float* const wp = reinterpret_cast<float*>(smem + pl.warpPartials);
  float* const cp = reinterpret_cast<float*>(smem + pl.ctaPartial);
  float* const slots = reinterpret_cast<float*>(smem + pl.slots);
  uint64_t* const xbars = reinterpret_cast<uint64_t*>(smem + pl.exchangeBars);
  uint64_t* const lbars = reinterpret_cast<uint64_t*>(smem + pl.loadBars);
  float* const ring = reinterpret_cast<float*>(smem + pl.ring);

  auto issue = [&](int stage, long long k) {  // thread 0: row k of this cluster into ring stage
    const uint32_t bar = credit_smem_addr(lbars + stage);
    credit_mbar_arrive_expect_tx(bar, kSlice * 4);
    credit_bulk_load(credit_smem_addr(ring + stage * kSlice), x + (cluster + k * clusters) * N + begin,
                     kSlice * 4, bar);
  };
  if (tid == 0) {
    for (int i = 0; i < 4; ++i) credit_mbar_init(credit_smem_addr(xbars + i), 1);
    for (int s = 0; s < NS; ++s) credit_mbar_init(credit_smem_addr(lbars + s), 1);
    credit_fence_mbarrier_init_cluster();
  }
  credit_cluster_arrive();  // set-up barrier, first half; the wait is before the first push
  __syncthreads();
  if (tid == 0)
    for (int s = 0; s < NS && s < rows; ++s) issue(s, s);

  // The broadcast vectors: loaded once per CTA, in the layout the passes read x in.
  float4 g[V], b[V];
#pragma unroll
  for (int v = 0; v < V; ++v) {
    const long long off = begin + 4 * tid + v * 4 * T;
    g[v] = ld4(gamma + off);
    b[v] = ld4(beta + off);
  }

  const float N_f = static_cast<float>(N);
  bool first = true;
  for (long long k = 0; k < rows; ++k) {
    const int stage = static_cast<int>(k % NS);
    const float* const xs = ring + stage * kSlice;
    const bool refill = k + NS < rows;
    credit_mbar_wait(credit_smem_addr(lbars + stage), static_cast<uint32_t>((k / NS) & 1));

    auto exchange = [&](int s, float acc, bool refillHere) {
      acc = credit_warp_reduce<CREDIT_SUM>(acc);
      if (lane == 0) wp[warp] = acc;
      __syncthreads();
      // Every thread has read this ring stage (KEEPX, first pass): refill it now.
      if (refillHere && tid == 0) issue(stage, k + NS);
      if (warp == 0) {
        float v = lane < W ? wp[lane] : 0.0f;
        v = credit_warp_reduce<CREDIT_SUM>(v);
        if (lane == 0) cp[0] = v;
      }
      __syncthreads();
      if (first) {  // every CTA started and initialised its mbarriers (rule 0)
        credit_cluster_wait();
        first = false;
      }
      const int set = static_cast<int>(k & 1) * 2 + s;
      float* const sl = slots + set * P;
      uint64_t* const bar = xbars + set;
      if (tid == 0) credit_mbar_arrive_expect_tx(credit_smem_addr(bar), P * 4);
      credit_push_async<1>(cp, sl, bar, P);
      if (P == 1) __syncthreads();
      credit_mbar_wait(credit_smem_addr(bar), static_cast<uint32_t>((k >> 1) & 1));
      return credit_combine_slots<CREDIT_SUM>(sl, 0, 1, P);
    };

    float4 xv[KEEPX ? V : 1];
    float acc = 0.0f;
#pragma unroll
    for (int v = 0; v < V; ++v) {
      const float4 t = ld4(xs + 4 * tid + v * 4 * T);
      if constexpr (KEEPX) xv[v] = t;
      acc += t.x;
      acc += t.y;
      acc += t.z;
      acc += t.w;
    }
    const float mean = exchange(0, acc, KEEPX && refill) / N_f;
    acc = 0.0f;
#pragma unroll
    for (int v = 0; v < V; ++v) {
      float4 t;
      if constexpr (KEEPX) t = xv[v];
      else t = ld4(xs + 4 * tid + v * 4 * T);
      float d;
      d = t.x - mean; acc += d * d;
      d = t.y - mean; acc += d * d;
      d = t.z - mean; acc += d * d;
      d = t.w - mean; acc += d * d;
    }
    const float rstd = rsqrtf(exchange(1, acc, false) / N_f + eps);
    float* const yrow = y + (cluster + k * clusters) * N + begin;
#pragma unroll
    for (int v = 0; v < V; ++v) {
      float4 t;
      if constexpr (KEEPX) t = xv[v];
      else t = ld4(xs + 4 * tid + v * 4 * T);
      float4 o;
      o.x = (t.x - mean) * rstd * g[v].x + b[v].x;
      o.y = (t.y - mean) * rstd * g[v].y + b[v].y;
      o.z = (t.z - mean) * rstd * g[v].z + b[v].z;
      o.w = (t.w - mean) * rstd * g[v].w + b[v].w;
      st4(yrow + 4 * tid + v * 4 * T, o);
    }
    if (!KEEPX) {
      __syncthreads();  // every thread has read this ring stage in h
      if (refill && tid == 0) issue(stage, k + NS);
    }
  }
  // No exit barrier: every byte pushed into this CTA was waited for, and every bulk
  // copy issued was waited for.
}

template <int T, int E, int NS, bool KEEPX>
int launchOne(int P, const float* x, const float* g, const float* b, float* y, long long M, int N, float eps,
              int clustersWanted, cudaStream_t stream, int* clustersUsed) {
  if (static_cast<long long>(P) * T * E != N) return 1;
  const long long smem = planOf(T, E, NS, P).total;
  auto kernel = persistent_layernorm<T, E, NS, KEEPX>;
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
  cfg.gridDim = dim3(static_cast<unsigned>(P * 256));
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
  int resident = 0;
  if (cudaOccupancyMaxActiveClusters(&resident, kernel, &cfg) != cudaSuccess || resident < 1) return 5;
  int G = clustersWanted > 0 && clustersWanted < resident ? clustersWanted : resident;
  if (G > M) G = static_cast<int>(M);
  if (clustersUsed) *clustersUsed = G;
  cfg.gridDim = dim3(static_cast<unsigned>(G * P));
  return cudaLaunchKernelEx(&cfg, kernel, x, g, b, y, M, N, P, eps) == cudaSuccess ? 0 : 4;
}

using LaunchFn = int (*)(int, const float*, const float*, const float*, float*, long long, int, float, int,
                         cudaStream_t, int*);
struct Config {
  int T, E, NS, keepx;
  LaunchFn fn;
};
#define PL_CONFIG(T, E, NS, K) {T, E, NS, K, launchOne<T, E, NS, K>}
constexpr Config kConfigs[] = {
    PL_CONFIG(512, 32, 2, false),  PL_CONFIG(512, 32, 3, false),  PL_CONFIG(512, 32, 2, true),
    PL_CONFIG(512, 32, 3, true),   PL_CONFIG(1024, 16, 2, false), PL_CONFIG(1024, 16, 3, false),
    PL_CONFIG(1024, 16, 2, true),  PL_CONFIG(1024, 16, 3, true),  PL_CONFIG(512, 16, 2, false),
    PL_CONFIG(512, 16, 3, true),   PL_CONFIG(512, 16, 4, true),   PL_CONFIG(256, 32, 2, true),
    PL_CONFIG(256, 32, 3, true),   PL_CONFIG(256, 16, 3, true),   PL_CONFIG(256, 16, 4, true),
};

}  // namespace

extern "C" int pl_num_configs() { return static_cast<int>(sizeof(kConfigs) / sizeof(kConfigs[0])); }
// T, E, NS, KEEPX of configuration i.
extern "C" void pl_config(int i, int* out) {
  out[0] = kConfigs[i].T;
  out[1] = kConfigs[i].E;
  out[2] = kConfigs[i].NS;
  out[3] = kConfigs[i].keepx;
}
extern "C" long long pl_smem_bytes(int i, int P) {
  return planOf(kConfigs[i].T, kConfigs[i].E, kConfigs[i].NS, P).total;
}
// 0 ok; 1 shape does not match the configuration; 2-5 a failed CUDA call.
extern "C" int pl_launch(int i, int P, const float* x, const float* g, const float* b, float* y, long long M, int N,
                         float eps, int clusters, void* stream, int* clustersUsed) {
  if (i < 0 || i >= pl_num_configs() || P < 1 || P > 16 || M < 1) return 1;
  return kConfigs[i].fn(P, x, g, b, y, M, N, eps, clusters, static_cast<cudaStream_t>(stream), clustersUsed);
}
