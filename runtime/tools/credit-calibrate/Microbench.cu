// credit-calibrate: the SM clock and the paper's three microbenchmark families
// (its Sec. III-A), each CTA forced onto its own SM (dynamic shared memory above
// half an SM's capacity; every CTA records %smid and the run is rejected if two
// CTAs of a cluster ever share one), median of --runs runs:
//   (a) dependent-load latency through local and a peer's shared memory;
//   (b) throughput of independent accesses, bytes per cycle per CTA: local
//       LDS.128 / STS.128, and per P remote loads, st.shared::cluster stores (the
//       sync protocol's push) and st.async + complete_tx stores (the mbarrier one);
//   (c) cluster-barrier latency per P and the mbarrier round trip.
#include "Calibrate.h"

#include "credit/device/ptx.cuh"

namespace credit::calibrate::tool {

// Busy-waits `cycles` SM cycles (one thread): keeps the stream busy while the
// host enqueues the timed launch behind it.
__global__ void spinKernel(long long cycles) {
  const long long c0 = clock64();
  while (clock64() - c0 < cycles) {
  }
}

namespace {


__device__ __forceinline__ unsigned smidReg() {
  unsigned r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}
__device__ __forceinline__ unsigned long long globalTimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ unsigned ldLocal32(unsigned addr) {
  unsigned v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
  return v;
}
__device__ __forceinline__ unsigned ldCluster32(unsigned addr) {
  unsigned v;
  asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
  return v;
}
__device__ __forceinline__ void ldLocal128(unsigned (&v)[4], unsigned addr) {
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3])
               : "r"(addr));
}
__device__ __forceinline__ void stLocal128(unsigned addr, unsigned a, unsigned b) {
  asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %1};" ::"r"(addr), "r"(a), "r"(b), "r"(a ^ b));
}
__device__ __forceinline__ void ldCluster128(unsigned (&v)[4], unsigned addr) {
  asm volatile("ld.shared::cluster.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3])
               : "r"(addr));
}
__device__ __forceinline__ void stCluster32(unsigned addr, unsigned v) {
  asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(addr), "r"(v));
}

// SM clock: clock64 cycles per %globaltimer nanosecond over `cycles` cycles.
__global__ void clockKernel(long long cycles, unsigned long long* out) {
  const unsigned long long g0 = globalTimer();
  const long long c0 = clock64();
  long long c = c0;
  while (c - c0 < cycles) c = clock64();
  const unsigned long long g1 = globalTimer();
  out[0] = static_cast<unsigned long long>(c - c0);
  out[1] = g1 - g0;
}

__device__ __forceinline__ void recordCta(CtaRecord* rec, unsigned long long cycles,
                                          unsigned long long cycles2, unsigned long long bytes,
                                          unsigned long long sink) {
  CtaRecord& r = rec[blockIdx.x];
  r.cycles = cycles;
  r.cycles2 = cycles2;
  r.bytes = bytes;
  r.sink = sink;
  r.smid = smidReg();
  r.rank = credit::device::ptx::cluster_ctarank();
}

// (a) Dependent loads. Cluster of 2. The owner (remote: rank 1, local: rank 0)
// fills a chain through `chainLen` words of its shared memory, each word
// holding the address of the next (shared::cta addresses for the local chase,
// shared::cluster addresses for the remote one); thread 0 of rank 0 follows it.
__global__ void chaseKernel(CtaRecord* rec, int steps, int remote, int chainLen, int stride) {
  unsigned* chain = reinterpret_cast<unsigned*>(credit::device::ptx::dynamic_smem());
  const unsigned rank = credit::device::ptx::cluster_ctarank();
  for (int i = threadIdx.x; i < chainLen; i += blockDim.x) {
    const unsigned next = credit::device::ptx::smem_addr(chain + (i + stride) % chainLen);
    chain[i] = remote ? credit::device::ptx::mapa(next, rank) : next;
  }
  __syncthreads();
  credit::device::ptx::cluster_sync();
  unsigned long long cycles = 0, sink = 0;
  if (rank == 0 && threadIdx.x == 0) {
    unsigned p = remote ? credit::device::ptx::mapa(credit::device::ptx::smem_addr(chain), 1) : credit::device::ptx::smem_addr(chain);
    for (int s = 0; s < 64; ++s) p = remote ? ldCluster32(p) : ldLocal32(p);  // warm-up
    const long long c0 = clock64();
    if (remote) {
#pragma unroll 16
      for (int s = 0; s < steps; ++s) p = ldCluster32(p);
    } else {
#pragma unroll 16
      for (int s = 0; s < steps; ++s) p = ldLocal32(p);
    }
    const long long c1 = clock64();
    cycles = static_cast<unsigned long long>(c1 - c0);
    sink = p;
  }
  if (threadIdx.x == 0) recordCta(rec, cycles, 0, 0, sink);
  __syncthreads();
  credit::device::ptx::cluster_sync();  // the owner stays resident until the chase is done
}

// (b) Throughput of independent accesses. OP:
//   0 local LDS.128 reads      1 local STS.128 stores
//   2 remote ld.shared::cluster.v4 loads
//   3 remote st.shared::cluster.b32 stores (sync protocol push)
//   4 remote st.async.b32 + complete_tx stores (mbarrier protocol push)
// Warp w of CTA c targets peer (c + 1 + w % (P-1)) % P. Each thread reuses
// kUnroll addresses kUnroll*threads words apart; every iteration issues kUnroll
// independent accesses before consuming any result. `cycles`: from the
// barrier after the start to the barrier after the last issue (issue rate);
// `cycles2` (OP 3, 4): until the stores completed (cluster barrier / mbarrier).
enum { kLocalRead = 0, kLocalWrite = 1, kRemoteLoad = 2, kRemoteStore = 3, kRemoteStoreAsync = 4 };

__device__ __forceinline__ unsigned peerOf(unsigned rank, unsigned warp, unsigned P) {
  return P > 1 ? (rank + 1 + warp % (P - 1)) % P : rank;
}

template <int OP>
__global__ void throughputKernel(CtaRecord* rec, int iters) {
  unsigned char* smem = credit::device::ptx::dynamic_smem();
  uint64_t* bar = reinterpret_cast<uint64_t*>(smem);
  const unsigned rank = credit::device::ptx::cluster_ctarank();
  const unsigned P = credit::device::ptx::cluster_nctarank();
  const unsigned t = threadIdx.x, T = blockDim.x, warp = t / 32;
  const unsigned width = (OP == kRemoteStore || OP == kRemoteStoreAsync) ? 4u : 16u;
  const unsigned base = credit::device::ptx::smem_addr(smem + kDataOffset);
  const unsigned peer = peerOf(rank, warp, P);
  unsigned addr[kUnroll];
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    const unsigned local = base + width * (t + u * T);
    addr[u] = (OP >= kRemoteLoad) ? credit::device::ptx::mapa(local, peer) : local;
  }
  unsigned remoteBar = 0;
  if constexpr (OP == kRemoteStoreAsync) {
    remoteBar = credit::device::ptx::mapa(credit::device::ptx::smem_addr(bar), peer);
    if (t == 0) {
      credit::device::ptx::mbar_init(credit::device::ptx::smem_addr(bar), 1);
      credit::device::ptx::fence_mbarrier_init_cluster();
    }
  }
  // Zero the data region (loads read defined values).
  for (unsigned i = t; i < kUnroll * T * 4; i += T) reinterpret_cast<unsigned*>(smem + kDataOffset)[i] = i;
  __syncthreads();
  credit::device::ptx::cluster_sync();  // every CTA started (rule 0), mbarrier inits visible
  if constexpr (OP == kRemoteStoreAsync) {
    if (t == 0) {
      // Bytes every peer will push into this CTA (same mapping as peerOf).
      unsigned long long incoming = 0;
      const unsigned warps = (T + 31) / 32;
      for (unsigned c = 0; c < P; ++c)
        for (unsigned w = 0; w < warps; ++w)
          if (c != rank && peerOf(c, w, P) == rank) incoming += 32ull * kUnroll * 4ull * iters;
      credit::device::ptx::mbar_arrive_expect_tx(credit::device::ptx::smem_addr(bar), static_cast<unsigned>(incoming));
    }
    __syncthreads();
    credit::device::ptx::cluster_sync();  // every expect_tx before any complete_tx
  }
  unsigned acc = 0;
  __syncthreads();
  long long c0 = 0;
  if (t == 0) c0 = clock64();
  for (int it = 0; it < iters; ++it) {
    if constexpr (OP == kLocalRead || OP == kRemoteLoad) {
      unsigned v[kUnroll][4];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        if constexpr (OP == kLocalRead) ldLocal128(v[u], addr[u]);
        else ldCluster128(v[u], addr[u]);
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) acc ^= v[u][0] ^ v[u][1] ^ v[u][2] ^ v[u][3];
    } else if constexpr (OP == kLocalWrite) {
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) stLocal128(addr[u], it, u);
    } else if constexpr (OP == kRemoteStore) {
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) stCluster32(addr[u], it + u);
    } else {
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
        credit::device::ptx::st_async_f32(addr[u], __uint_as_float(it + u), remoteBar);
    }
  }
  __syncthreads();
  long long c1 = 0;
  if (t == 0) c1 = clock64();
  if constexpr (OP == kRemoteStoreAsync) credit::device::ptx::mbar_wait(credit::device::ptx::smem_addr(bar), 0);
  if constexpr (OP == kRemoteStore) credit::device::ptx::cluster_sync();
  __syncthreads();
  if (t == 0) {
    const long long c2 = clock64();
    recordCta(rec, static_cast<unsigned long long>(c1 - c0), static_cast<unsigned long long>(c2 - c0),
              static_cast<unsigned long long>(T) * iters * kUnroll * width, acc);
  }
  credit::device::ptx::cluster_sync();  // no CTA exits while a peer may still read/write its SMEM
}

// (c) Cluster barrier latency: every thread of every CTA runs `iters`
// credit::device::ptx::cluster_sync(); thread 0 times them.
__global__ void barrierKernel(CtaRecord* rec, int iters) {
  credit::device::ptx::cluster_sync();
  long long c0 = 0;
  if (threadIdx.x == 0) c0 = clock64();
  for (int i = 0; i < iters; ++i) credit::device::ptx::cluster_sync();
  if (threadIdx.x == 0) recordCta(rec, static_cast<unsigned long long>(clock64() - c0), 0, 0, 0);
}

// (c) mbarrier round trip, cluster of 2: rank 0 pushes 4 bytes into rank 1
// with st.async (complete_tx on rank 1's mbarrier); rank 1 waits on its
// mbarrier (try_wait.parity) and pushes 4 bytes back the same way; rank 0
// waits. Each side arms its own mbarrier for the phase with
// arrive.expect_tx(4) first. Cycles per round trip, measured by rank 0.
__global__ void mbarrierPingPongKernel(CtaRecord* rec, int iters) {
  unsigned char* smem = credit::device::ptx::dynamic_smem();
  uint64_t* bar = reinterpret_cast<uint64_t*>(smem);
  float* slot = reinterpret_cast<float*>(smem + 16);
  const unsigned rank = credit::device::ptx::cluster_ctarank();
  if (threadIdx.x == 0) {
    credit::device::ptx::mbar_init(credit::device::ptx::smem_addr(bar), 1);
    credit::device::ptx::fence_mbarrier_init_cluster();
    *slot = 0.0f;
  }
  __syncthreads();
  credit::device::ptx::cluster_sync();
  unsigned long long cycles = 0;
  float v = 1.0f;
  if (threadIdx.x == 0) {
    const unsigned peer = rank ^ 1u;
    const unsigned mine = credit::device::ptx::smem_addr(bar);
    const unsigned rslot = credit::device::ptx::mapa(credit::device::ptx::smem_addr(slot), peer);
    const unsigned rbar = credit::device::ptx::mapa(mine, peer);
    const long long c0 = clock64();
    for (int k = 0; k < iters; ++k) {
      const unsigned parity = static_cast<unsigned>(k & 1);
      credit::device::ptx::mbar_arrive_expect_tx(mine, 4);
      if (rank == 0) {
        credit::device::ptx::st_async_f32(rslot, v, rbar);
        credit::device::ptx::mbar_wait(mine, parity);
        v = *reinterpret_cast<volatile float*>(slot) + 1.0f;
      } else {
        credit::device::ptx::mbar_wait(mine, parity);
        v = *reinterpret_cast<volatile float*>(slot) + 1.0f;
        credit::device::ptx::st_async_f32(rslot, v, rbar);
      }
    }
    cycles = static_cast<unsigned long long>(clock64() - c0);
  }
  if (threadIdx.x == 0) recordCta(rec, cycles, 0, 0, __float_as_uint(v));
  __syncthreads();
  credit::device::ptx::cluster_sync();
}

// A launch of one cluster of P CTAs (grid = P), `smem` dynamic bytes each;
// `attr` must outlive the returned configuration.
cudaLaunchConfig_t oneClusterConfig(cudaLaunchAttribute (&attr)[1], int P, int threads,
                                           size_t smem) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(static_cast<unsigned>(P));
  cfg.blockDim = dim3(static_cast<unsigned>(threads));
  cfg.dynamicSmemBytes = smem;
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = static_cast<unsigned>(P);
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cfg;
}

// Launches `kernel` in clusters of P (grid = P: one cluster), `threads` per CTA,
// dev.microSmem dynamic SMEM.
template <class... KArgs, class... Args>
bool launchCluster(Device& dev, void (*kernel)(KArgs...), int P, int threads, Args... args) {
  CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                static_cast<int>(dev.microSmem)));
  if (P > 8) CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  cudaLaunchAttribute attr[1];
  cudaLaunchConfig_t cfg = oneClusterConfig(attr, P, threads, dev.microSmem);
  cfg.stream = dev.stream;
  CUDA_TRY(cudaLaunchKernelEx(&cfg, kernel, args...));
  CUDA_TRY(cudaStreamSynchronize(dev.stream));
  return true;
}

// Whether a cluster of P CTAs with dev.microSmem each can be resident at all.
template <class... KArgs>
bool clusterFits(Device& dev, void (*kernel)(KArgs...), int P, int threads) {
  if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(dev.microSmem)) != cudaSuccess ||
      (P > 8 && cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess)) {
    (void)cudaGetLastError();
    return false;
  }
  cudaLaunchAttribute attr[1];
  cudaLaunchConfig_t cfg = oneClusterConfig(attr, P, threads, dev.microSmem);
  int n = 0;
  if (cudaOccupancyMaxActiveClusters(&n, kernel, &cfg) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return n >= 1;
}

// Copies back P records and checks that no two CTAs shared an SM.
bool fetchRecords(Device& dev, int P, std::vector<CtaRecord>& out, bool& distinct) {
  out.resize(P);
  CUDA_TRY(cudaMemcpy(out.data(), dev.recs, sizeof(CtaRecord) * P, cudaMemcpyDeviceToHost));
  for (int i = 0; i < P; ++i)
    for (int j = i + 1; j < P; ++j)
      if (out[i].smid == out[j].smid) distinct = false;
  return true;
}
}  // namespace


// Median over runs of `one(run)`; false on a CUDA error.
bool medianOf(int runs, const std::function<bool(double&)>& one, double& out) {
  std::vector<double> v;
  double x = 0;
  if (!one(x)) return false;  // warm-up
  for (int r = 0; r < runs; ++r) {
    if (!one(x)) return false;
    v.push_back(x);
  }
  out = cal::median(v);
  return true;
}

bool measureClock(Device& dev, int runs) {
  return medianOf(runs, [&](double& mhz) {
    clockKernel<<<1, 1, 0, dev.stream>>>(20000000LL, dev.scratch);
    CUDA_TRY(cudaGetLastError());
    CUDA_TRY(cudaStreamSynchronize(dev.stream));
    unsigned long long h[2];
    CUDA_TRY(cudaMemcpy(h, dev.scratch, sizeof h, cudaMemcpyDeviceToHost));
    mhz = h[1] ? 1e3 * static_cast<double>(h[0]) / static_cast<double>(h[1]) : NAN;
    return true;
  }, dev.clockMHzMeasured);
}

bool measureMicro(Device& dev, const Options& o, Micro& m) {
  const int T = o.threads;
  std::vector<CtaRecord> r;
  // (a) latencies, cluster of 2.
  const int steps = 20000, chainLen = 4096, stride = 97;
  for (int remote = 0; remote < 2; ++remote) {
    double& dst = remote ? m.dsmemLoadLatency : m.smemLoadLatency;
    if (!medianOf(o.runs, [&](double& cyc) {
          if (!launchCluster(dev, chaseKernel, 2, T, dev.recs, steps, remote, chainLen, stride)) return false;
          if (!fetchRecords(dev, 2, r, m.distinctSms)) return false;
          cyc = static_cast<double>(r[0].cycles) / steps;
          return true;
        }, dst))
      return false;
  }
  // (b) throughput. Local: the CTAs of a cluster of 2 (each on its own SM),
  // mean over the CTAs of each run.
  auto rate = [&](auto kernel, int P, int iters, bool completion, double& out) {
    return medianOf(o.runs, [&](double& bpc) {
      if (!launchCluster(dev, kernel, P, T, dev.recs, iters)) return false;
      if (!fetchRecords(dev, P, r, m.distinctSms)) return false;
      double sum = 0;
      for (const CtaRecord& c : r)
        sum += static_cast<double>(c.bytes) / static_cast<double>(completion ? c.cycles2 : c.cycles);
      bpc = sum / P;
      return true;
    }, out);
  };
  if (!rate(throughputKernel<kLocalRead>, 2, 1024, false, m.smemReadBpc)) return false;
  if (!rate(throughputKernel<kLocalWrite>, 2, 1024, false, m.smemWriteBpc)) return false;
  const int warps = T / 32;
  for (int P : o.clusterSizes) {
    if (!clusterFits(dev, throughputKernel<kRemoteLoad>, P, T) ||
        !clusterFits(dev, throughputKernel<kRemoteStoreAsync>, P, T) ||
        !clusterFits(dev, barrierKernel, P, T)) {
      m.skippedP.push_back(P);
      continue;
    }
    double x = NAN;
    if (!rate(throughputKernel<kRemoteLoad>, P, 256, false, x)) return false;
    m.dsmemLoadBpc[P] = x;
    if (!rate(throughputKernel<kRemoteStore>, P, 256, false, x)) return false;
    m.dsmemStoreBpc[P] = x;
    if (!rate(throughputKernel<kRemoteStore>, P, 256, true, x)) return false;
    m.dsmemStoreCompleteBpc[P] = x;
    // st.async: the bytes a CTA receives in one mbarrier phase must stay below
    // the tx-count limit (2^20 - 1); the worst case is every warp of every
    // peer pushing into the same CTA.
    long long maxIncomingWarps = 0;
    for (int d = 0; d < P; ++d) {
      long long n = 0;
      for (int c = 0; c < P; ++c)
        for (int w = 0; w < warps; ++w)
          if (c != d && static_cast<int>((c + 1 + w % (P - 1)) % P) == d) ++n;
      maxIncomingWarps = std::max(maxIncomingWarps, n);
    }
    const long long perIter = maxIncomingWarps * 32LL * kUnroll * 4LL;
    const int asyncIters = static_cast<int>(std::max(1LL, std::min(256LL, ((1LL << 20) - 1) / std::max(1LL, perIter))));
    if (!rate(throughputKernel<kRemoteStoreAsync>, P, asyncIters, false, x)) return false;
    m.dsmemStoreAsyncBpc[P] = x;
    if (!rate(throughputKernel<kRemoteStoreAsync>, P, asyncIters, true, x)) return false;
    m.dsmemStoreAsyncCompleteBpc[P] = x;
    // (c) cluster barrier latency.
    const int iters = 2000;
    if (!medianOf(o.runs, [&](double& cyc) {
          if (!launchCluster(dev, barrierKernel, P, T, dev.recs, iters)) return false;
          if (!fetchRecords(dev, P, r, m.distinctSms)) return false;
          double sum = 0;
          for (const CtaRecord& c : r) sum += static_cast<double>(c.cycles) / iters;
          cyc = sum / P;
          return true;
        }, x))
      return false;
    m.clusterBarrier[P] = x;
  }
  // (c) mbarrier round trip.
  const int pp = 2000;
  if (!medianOf(o.runs, [&](double& cyc) {
        if (!launchCluster(dev, mbarrierPingPongKernel, 2, T, dev.recs, pp)) return false;
        if (!fetchRecords(dev, 2, r, m.distinctSms)) return false;
        cyc = static_cast<double>(r[0].cycles) / pp;
        return true;
      }, m.mbarrierRoundTrip))
    return false;
  m.measured = true;
  return true;
}

}  // namespace credit::calibrate::tool
