// Experiment: gamma and beta multicast to the R rows of a two-dimensional cluster.
//
// Question (docs/results/multicast/README.md): layernorm streams at 80-86% of copy
// bandwidth at N >= 16384 where the same kernel without gamma and beta reaches
// 90-94%: gamma and beta are 8 of the 12 bytes per element loaded from L2. The
// multirow prototype (multirow_layernorm.cu) showed that sharing one read of them
// between R = 2 rows takes 0.92-0.945 of the time at a fixed cluster size, but its
// R rows per CTA cost R times the SMEM. Here each CTA keeps one row's slice, as the
// generated kernel, and a cluster of P x R CTAs holds R rows: column c (the CTAs
// ranked c, c + P, ..., c + (R-1) P) shares slice c of gamma and beta. Its first
// CTA (the column leader) streams them with multicast bulk copies
// (cp.async.bulk ... .multicast::cluster) into a small ring in every column CTA's
// SMEM: S stages of CH elements of gamma and of beta. Each CTA waits on its own
// "full" mbarrier of a stage, consumes the stage in h, and arrives on the leader's
// "empty" mbarrier of that stage; the leader issues the next chunk into the stage
// once all R have arrived.
//
// mode 0 (ldg): h loads gamma and beta with LDG.128, as the generated kernel.
// mode 1 (mc):  the multicast ring, h in float2 (CH = 2 x threads elements).
// R = 1 with mode 1 is the ring without sharing (bulk-copied gamma and beta).
//
// Built with nvcc -arch=sm_90a as a shared library; multicast.py drives it.
#include <cuda_runtime.h>

#include "credit/device/credit_device.cuh"

namespace {

constexpr int kChunks = 4;
constexpr int kUnroll = 4;
constexpr int kStages = 2;  // ring stages

__host__ __device__ constexpr long long cdiv(long long a, long long b) { return (a + b - 1) / b; }
__host__ __device__ constexpr long long rup(long long a, long long m) { return cdiv(a, m) * m; }
__host__ __device__ constexpr long long sliceOf(long long N, int P) { return rup(cdiv(N, P), 4); }

struct SmemPlan {
  long long warpPartials, ctaPartial, slots, bars, loadBars, full, empty, ring, keep, total;
};
// ch: ring chunk elements (0: no ring).
__host__ __device__ constexpr SmemPlan planOf(int threads, int P, long long N, int ch) {
  SmemPlan l{};
  long long o = 0;
  l.warpPartials = o;
  o += rup((threads / 32) * 4LL, 16);
  l.ctaPartial = o;
  o += 16;
  l.slots = o;
  o += rup(2LL * P * 4, 16);  // two stages x [P], each stage its own set
  l.bars = o;
  o += 16;
  l.loadBars = o;
  o += rup(kChunks * 8LL, 16);
  l.full = o;
  o += kStages * 8;
  l.empty = o;
  o += kStages * 8;
  l.ring = rup(o, 128);
  o = l.ring + (ch > 0 ? kStages * 2LL * ch * 4 : 0);
  l.keep = rup(o, 128);
  l.total = l.keep + rup(sliceOf(N, P), 32) * 4;
  return l;
}

__device__ __forceinline__ float4 ld4(const float* p) { return *reinterpret_cast<const float4*>(p); }
__device__ __forceinline__ void st4(float* p, float4 v) { *reinterpret_cast<float4*>(p) = v; }
__device__ __forceinline__ float2 ld2(const float* p) { return *reinterpret_cast<const float2*>(p); }
__device__ __forceinline__ void st2(float* p, float2 v) { *reinterpret_cast<float2*>(p) = v; }

// Bulk copy of `bytes` from global `src` into the same SMEM offset `dst` of every
// CTA in `mask`, completing `bytes` on the mbarrier at offset `bar` of each of them.
__device__ __forceinline__ void bulk_load_multicast(uint32_t dst, const void* src, uint32_t bytes, uint32_t bar,
                                                    uint16_t mask) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1], %2, [%3], "
      "%4;" ::"r"(dst),
      "l"(src), "r"(bytes), "r"(bar), "h"(mask)
      : "memory");
}
// One arrival on the mbarrier at SMEM offset `bar` of CTA `rank` (release, cluster scope).
__device__ __forceinline__ void mbar_arrive_remote(uint32_t bar, uint32_t rank) {
  const uint32_t remote = credit_mapa_shared(bar, rank);
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(remote) : "memory");
}

// mode 0: LDG gamma/beta; mode 1: multicast ring of CH = 2 * T elements.
template <int T, int MINB, int MODE>
__global__ void __launch_bounds__(T, MINB)
    mc_layernorm(const float* __restrict__ x, const float* __restrict__ gamma, const float* __restrict__ beta,
                 float* __restrict__ y, long long M, int N, int P, int R, float eps) {
  constexpr int W = T / 32;
  constexpr int CH = MODE == 1 ? 2 * T : 0;
  const unsigned tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int rank = static_cast<int>(credit_cluster_ctarank());
  const int col = rank % P, rowInGroup = rank / P;
  const long long rowRaw = static_cast<long long>(blockIdx.x / static_cast<unsigned>(P * R)) * R + rowInGroup;
  const bool valid = rowRaw < M;
  const long long row = valid ? rowRaw : M - 1;  // past M: compute row M - 1, store nothing
  const long long slice = sliceOf(N, P);
  const long long begin = col * slice < N ? col * slice : N;
  const unsigned len = static_cast<unsigned>((begin + slice < N ? begin + slice : N) - begin);
  const SmemPlan plan = planOf(T, P, N, CH);
  unsigned char* const smem = credit_dynamic_smem();
  float* const wp = reinterpret_cast<float*>(smem + plan.warpPartials);
  float* const cp = reinterpret_cast<float*>(smem + plan.ctaPartial);
  float* const slots = reinterpret_cast<float*>(smem + plan.slots);
  uint64_t* const bars = reinterpret_cast<uint64_t*>(smem + plan.bars);
  uint64_t* const lbars = reinterpret_cast<uint64_t*>(smem + plan.loadBars);
  uint64_t* const full = reinterpret_cast<uint64_t*>(smem + plan.full);
  uint64_t* const empty = reinterpret_cast<uint64_t*>(smem + plan.empty);
  float* const ring = reinterpret_cast<float*>(smem + plan.ring);  // stage s: gamma ring + 2 s CH, beta + CH
  float* const xs = reinterpret_cast<float*>(smem + plan.keep);
  const unsigned nch = CH > 0 ? static_cast<unsigned>(cdiv(len, CH)) : 0;
  auto chunkBytes = [&](unsigned k) -> uint32_t {  // gamma + beta bytes of ring chunk k
    const unsigned b = k * CH, e = b + CH < len ? b + CH : len;
    return 2u * (e - b) * 4u;
  };
  const bool leader = rowInGroup == 0;
  uint16_t mask = 0;
  for (int r = 0; r < R; ++r) mask |= static_cast<uint16_t>(1u << (col + r * P));

  if (tid == 0) {
    credit_mbar_init(credit_smem_addr(bars + 0), 1);
    credit_mbar_init(credit_smem_addr(bars + 1), 1);
    for (int k = 0; k < kChunks; ++k) credit_mbar_init(credit_smem_addr(lbars + k), 1);
    if (MODE == 1) {
      for (int s = 0; s < kStages; ++s) {
        credit_mbar_init(credit_smem_addr(full + s), 1);
        credit_mbar_init(credit_smem_addr(empty + s), static_cast<uint32_t>(R));
      }
    }
    credit_fence_mbarrier_init_cluster();
    if (MODE == 1)  // arm the first phases: their multicasts may land once the set-up barrier is passed
      for (unsigned s = 0; s < kStages && s < nch; ++s) credit_mbar_arrive_expect_tx(credit_smem_addr(full + s), chunkBytes(s));
  }
  credit_cluster_arrive();  // set-up barrier, first half (the wait is before the first push)
  __syncthreads();
  const unsigned chunk = static_cast<unsigned>(rup(cdiv(len, kChunks), 4LL * T));
  if (tid == 0) {
    for (int c = 0; c < kChunks; ++c) {
      const unsigned cbeg = c * chunk < len ? c * chunk : len;
      const unsigned cend = cbeg + chunk < len ? cbeg + chunk : len;
      const uint32_t bar = credit_smem_addr(lbars + c);
      credit_mbar_arrive_expect_tx(bar, (cend - cbeg) * 4);
      if (cend > cbeg) credit_bulk_load(credit_smem_addr(xs + cbeg), x + row * N + begin + cbeg, (cend - cbeg) * 4, bar);
    }
  }

  // ---- stage 1: sum(x) ----
  float acc = 0.0f;
  for (int c = 0; c < kChunks; ++c) {
    const unsigned cbeg = c * chunk < len ? c * chunk : len;
    const unsigned cend = cbeg + chunk < len ? cbeg + chunk : len;
    credit_mbar_wait(credit_smem_addr(lbars + c), 0);
    for (unsigned base = cbeg + 4 * tid; base < cend; base += kUnroll * 4 * T) {
      float4 v[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const unsigned off = base + u * 4 * T;
        if (off >= cend) break;
        v[u] = ld4(xs + off);
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const unsigned off = base + u * 4 * T;
        if (off >= cend) break;
        acc += v[u].x;
        acc += v[u].y;
        acc += v[u].z;
        acc += v[u].w;
      }
    }
  }
  // The exchange among the P CTAs of this row (ranks rowInGroup * P + j).
  auto exchange = [&](int stage) -> float {
    acc = credit_warp_reduce<CREDIT_SUM>(acc);
    if (lane == 0) wp[warp] = acc;
    __syncthreads();
    if (warp == 0) {
      float v = lane < W ? wp[lane] : 0.0f;
      v = credit_warp_reduce<CREDIT_SUM>(v);
      if (lane == 0) cp[0] = v;
    }
    __syncthreads();
    if (stage == 0) credit_cluster_wait();  // every CTA started, its mbarriers initialised
    float* const s = slots + stage * P;
    uint64_t* const bar = bars + stage;
    if (tid == 0) credit_mbar_arrive_expect_tx(credit_smem_addr(bar), P * 4);
    if (static_cast<int>(tid) < P) {
      const uint32_t peer = static_cast<uint32_t>(rowInGroup * P) + tid;
      const uint32_t remote = credit_mapa_shared(credit_smem_addr(s + col), peer);
      const uint32_t remoteBar = credit_mapa_shared(credit_smem_addr(bar), peer);
      credit_st_async_f32(remote, cp[0], remoteBar);
    }
    credit_mbar_wait(credit_smem_addr(bar), 0);
    return credit_combine_slots<CREDIT_SUM>(s, 0, 1, P);
  };
  const float N_f = static_cast<float>(N);
  const float mean = exchange(0) / N_f;
  // The first ring stages: after the set-up barrier (every column CTA's full
  // barriers initialised and armed), overlapped with stage 2.
  if (MODE == 1 && leader && tid == 0) {
    for (unsigned k = 0; k < kStages && k < nch; ++k) {
      const unsigned b = k * CH, n = (b + CH < len ? b + CH : len) - b;
      float* const g = ring + 2 * k * CH;
      bulk_load_multicast(credit_smem_addr(g), gamma + begin + b, n * 4, credit_smem_addr(full + k), mask);
      bulk_load_multicast(credit_smem_addr(g + CH), beta + begin + b, n * 4, credit_smem_addr(full + k), mask);
    }
  }

  // ---- stage 2: sum((x - mean)^2) ----
  acc = 0.0f;
  for (unsigned base = 4 * tid; base < len; base += kUnroll * 4 * T) {
    float4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const unsigned off = base + u * 4 * T;
      if (off >= len) break;
      v[u] = ld4(xs + off);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const unsigned off = base + u * 4 * T;
      if (off >= len) break;
      float t;
      t = v[u].x - mean; acc += t * t;
      t = v[u].y - mean; acc += t * t;
      t = v[u].z - mean; acc += t * t;
      t = v[u].w - mean; acc += t * t;
    }
  }
  const float rstd = rsqrtf(exchange(1) / N_f + eps);

  // ---- h ----
  float* const yrow = y + row * N + begin;
  if constexpr (MODE == 0) {
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
        const float4 v = ld4(xs + off);
        float4 o;
        o.x = (v.x - mean) * rstd * g[u].x + b[u].x;
        o.y = (v.y - mean) * rstd * g[u].y + b[u].y;
        o.z = (v.z - mean) * rstd * g[u].z + b[u].z;
        o.w = (v.w - mean) * rstd * g[u].w + b[u].w;
        if (valid) st4(yrow + off, o);
      }
    }
  } else {
    for (unsigned k = 0; k < nch; ++k) {
      const unsigned s = k % kStages, phase = (k / kStages) & 1u;
      const unsigned b = k * CH;
      const float* const g = ring + 2 * s * CH;
      credit_mbar_wait(credit_smem_addr(full + s), phase);
      const unsigned off = 2 * tid;
      if (b + off < len) {
        const float2 v = ld2(xs + b + off);
        const float2 gg = ld2(g + off);
        const float2 bb = ld2(g + CH + off);
        float2 o;
        o.x = (v.x - mean) * rstd * gg.x + bb.x;
        o.y = (v.y - mean) * rstd * gg.y + bb.y;
        if (valid) st2(yrow + b + off, o);
      }
      __syncthreads();  // every thread of this CTA is done reading stage s
      const unsigned next = k + kStages;
      if (tid == 0 && next < nch) {
        credit_mbar_arrive_expect_tx(credit_smem_addr(full + s), chunkBytes(next));  // re-arm for chunk next
        mbar_arrive_remote(credit_smem_addr(empty + s), static_cast<uint32_t>(col));  // the column leader
        if (leader) {
          credit_mbar_wait(credit_smem_addr(empty + s), phase);  // all R column CTAs are done with chunk k
          const unsigned nb = next * CH, n = (nb + CH < len ? nb + CH : len) - nb;
          bulk_load_multicast(credit_smem_addr(ring + 2 * s * CH), gamma + begin + nb, n * 4,
                              credit_smem_addr(full + s), mask);
          bulk_load_multicast(credit_smem_addr(ring + 2 * s * CH + CH), beta + begin + nb, n * 4,
                              credit_smem_addr(full + s), mask);
        }
      }
    }
  }
  // No exit barrier: every byte pushed or multicast into this CTA was waited for,
  // and every remote arrival on a leader's barrier is one the leader waits for.
}

template <int T, int MINB, int MODE>
int launchOne(int P, int R, const float* x, const float* g, const float* b, float* y, long long M, int N, float eps,
              cudaStream_t stream, bool loadBalance) {
  const long long smem = planOf(T, P, N, MODE == 1 ? 2 * T : 0).total;
  auto kernel = mc_layernorm<T, MINB, MODE>;
  static long long smemSet = -1;
  static bool nonPortable = false;
  if (smem > smemSet) {
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)) !=
        cudaSuccess)
      return 2;
    smemSet = smem;
  }
  if (P * R > 8 && !nonPortable) {
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess) return 3;
    nonPortable = true;
  }
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>(cdiv(M, R) * P * R));
  cfg.blockDim = dim3(T);
  cfg.dynamicSmemBytes = static_cast<size_t>(smem);
  cfg.stream = stream;
  cudaLaunchAttribute attr[2];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = static_cast<unsigned>(P * R);
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  attr[1].id = cudaLaunchAttributeClusterSchedulingPolicyPreference;
  attr[1].val.clusterSchedulingPolicyPreference =
      loadBalance ? cudaClusterSchedulingPolicyLoadBalancing : cudaClusterSchedulingPolicyDefault;
  cfg.attrs = attr;
  cfg.numAttrs = 2;
  return cudaLaunchKernelEx(&cfg, kernel, x, g, b, y, M, N, P, R, eps) == cudaSuccess ? 0 : 4;
}

}  // namespace

extern "C" long long mc_smem_bytes(int mode, int P, long long N) { return planOf(256, P, N, mode == 1 ? 512 : 0).total; }

// 0 ok; 1 unsupported shape; 2-4 a failed CUDA call. 256 threads, 3 CTAs per SM bound (as generated).
extern "C" int mc_launch(int mode, int P, int R, const float* x, const float* g, const float* b, float* y, long long M,
                         int N, float eps, int loadBalance, void* stream) {
  if (N % 4 != 0 || N < 4 || M < 1 || P < 1 || R < 1 || P * R > 16) return 1;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (mode == 0) return launchOne<256, 3, 0>(P, R, x, g, b, y, M, N, eps, s, loadBalance != 0);
  if (mode == 1) return launchOne<256, 3, 1>(P, R, x, g, b, y, M, N, eps, s, loadBalance != 0);
  return 1;
}
