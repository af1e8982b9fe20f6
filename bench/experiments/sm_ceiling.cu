// sm_ceiling.cu -- experiment: how many bytes per second can G SMs stream with
// the persistent form's memory path, and does the way h's results leave the SM
// change it? The question behind it (issue #4): pearson_bwd at 262144 runs
// clusters of 16 on 112 of the 132 SMs and reaches 87% of the copy ceiling;
// is 90% reachable on 112 SMs at all, and would bulk (TMA) stores help?
//
// ringStream mirrors the generated persistent kernel without the exchange: one
// CTA per SM (512 threads, the SMEM full), rows handed out statically
// (row = blockIdx.x + k * G), each row `arrays` kept inputs in `pieces` units of
// `unitElems` floats, a ring of `ring` units refilled by thread 0 with bulk
// copies (cp.async.bulk + mbarrier) after the row's last pass, `passes`
// reduction passes over SMEM (each a CTA reduction, as the stages), then h reads
// SMEM and writes one output per kept input:
//   MODE 0: st.global (__stwb, what the generated kernels emit);
//   MODE 1: st.global.cs (__stcs, streaming: evict first);
//   MODE 2: h writes its results back into the unit it read, and thread 0
//           sends each unit to global memory with a bulk store
//           (cp.async.bulk.global.shared::cta), waiting until the stores have
//           read SMEM before it refills the units.
// copyStream is the plain ceiling at G SMs: a grid-stride float4 copy by G CTAs
// of 512 threads, one per SM.
//
// Build: nvcc -O3 -arch=sm_90 -std=c++17 -I runtime/include bench/experiments/sm_ceiling.cu
// Prints one JSON object per line; the copy ceiling is a 1 GiB cudaMemcpyAsync.
#include "credit/device/credit_device.cuh"
#include "event_timing.cuh"

#include <cuda_runtime.h>

#include <cstdio>
#include <string>

constexpr int kThreads = 512;  // the default CTA size (the persistent form's)
constexpr int kMaxRing = 16;
constexpr int kUnitsOffset = 1024;  // bars [kMaxRing], red [up to 32 warps], then the ring

CREDIT_DEVICE_INLINE void bulkStore(void* dst, uint32_t src, uint32_t bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(src), "r"(bytes)
               : "memory");
}
CREDIT_DEVICE_INLINE void bulkCommit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
CREDIT_DEVICE_INLINE void bulkWaitRead() { asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory"); }
CREDIT_DEVICE_INLINE void bulkWaitAll() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }

template <int MODE, int THREADS = kThreads>
__global__ void __launch_bounds__(THREADS, 1)
    ringStream(const float* __restrict__ in, float* __restrict__ out, int arrays, int pieces, int unitElems,
               int ring, int passes, long long rows) {
  unsigned char* smem = credit_dynamic_smem();
  uint64_t* bars = reinterpret_cast<uint64_t*>(smem);
  float* red = reinterpret_cast<float*>(smem + 8 * kMaxRing);
  float* units = reinterpret_cast<float*>(smem + kUnitsOffset);
  const unsigned tid = threadIdx.x;
  const long long G = gridDim.x;
  const long long myRows = (rows - blockIdx.x + G - 1) / G;
  const int perRow = arrays * pieces;
  const long long copies = myRows * perRow;
  const long long arrayElems = rows * pieces * (long long)unitElems;
  // Copy j: row j / perRow of this CTA, input (j % perRow) / pieces, piece (j % perRow) % pieces.
  auto offsetOf = [&](long long j) {
    const long long k = j / perRow;
    const int w = static_cast<int>(j % perRow);
    const long long row = blockIdx.x + k * G;
    return (w / pieces) * arrayElems + (row * pieces + w % pieces) * unitElems;
  };
  auto issue = [&](long long j) {
    const int u = static_cast<int>(j % ring);
    const uint32_t bar = credit_smem_addr(bars + u);
    credit_mbar_arrive_expect_tx(bar, unitElems * 4u);
    credit_bulk_load(credit_smem_addr(units + (long long)u * unitElems), in + offsetOf(j), unitElems * 4u, bar);
  };
  if (tid == 0) {
    for (int u = 0; u < ring; ++u) credit_mbar_init(credit_smem_addr(bars + u), 1);
    credit_fence_mbarrier_init_cluster();
  }
  __syncthreads();
  if (tid == 0)
    for (long long j = 0; j < (ring < copies ? (long long)ring : copies); ++j) issue(j);
  for (long long k = 0; k < myRows; ++k) {
    const long long j0 = k * perRow;
    float eps = 0.f;
    for (int pass = 0; pass < passes; ++pass) {
      float acc = 0.f;
      for (int w = 0; w < perRow; ++w) {
        const long long j = j0 + w;
        const int u = static_cast<int>(j % ring);
        if (pass == 0) credit_mbar_wait(credit_smem_addr(bars + u), static_cast<uint32_t>((j / ring) & 1));
        const float* buf = units + (long long)u * unitElems;
        #pragma unroll 4
        for (int i = 4 * tid; i < unitElems; i += 4 * THREADS) {
          const float4 v = *reinterpret_cast<const float4*>(buf + i);
          acc += (v.x - eps) * (v.y - eps) + (v.z - eps) * (v.w - eps);
        }
      }
      for (int o = 16; o > 0; o /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, o);
      if (tid % 32 == 0) red[tid / 32] = acc;
      __syncthreads();
      float s = 0.f;
      for (int w = 0; w < THREADS / 32; ++w) s += red[w];
      eps += s * 1e-30f;  // h depends on every statistic
      __syncthreads();  // red is reused by the next pass
    }
    for (int w = 0; w < perRow; ++w) {
      const long long j = j0 + w;
      float* buf = units + (j % ring) * (long long)unitElems;
      float* dst = out + offsetOf(j);
      #pragma unroll 4
      for (int i = 4 * tid; i < unitElems; i += 4 * THREADS) {
        const float4 v = *reinterpret_cast<const float4*>(buf + i);
        const float4 r = make_float4(v.x + eps, v.y + eps, v.z + eps, v.w + eps);
        if constexpr (MODE == 0) __stwb(reinterpret_cast<float4*>(dst + i), r);
        if constexpr (MODE == 1) __stcs(reinterpret_cast<float4*>(dst + i), r);
        if constexpr (MODE == 2) *reinterpret_cast<float4*>(buf + i) = r;
      }
    }
    if constexpr (MODE == 2) credit_fence_proxy_async_smem();  // this thread's writes before the bulk stores read
    __syncthreads();
    if (tid == 0) {
      if constexpr (MODE == 2) {
        for (int w = 0; w < perRow; ++w) {
          const long long j = j0 + w;
          bulkStore(out + offsetOf(j), credit_smem_addr(units + (j % ring) * (long long)unitElems), unitElems * 4u);
        }
        bulkCommit();
        bulkWaitRead();  // the stores have read the units: they may be refilled
      }
      credit_fence_proxy_async_smem();
      for (long long j = j0 + ring; j < (j0 + ring + perRow < copies ? j0 + ring + perRow : copies); ++j) issue(j);
    }
  }
  if constexpr (MODE == 2)
    if (tid == 0) bulkWaitAll();
}

template <int THREADS = kThreads>
__global__ void __launch_bounds__(THREADS, 1) copyStream(const float4* __restrict__ in, float4* __restrict__ out,
                                                          long long n4) {
  const long long stride = (long long)gridDim.x * THREADS;
  long long i = blockIdx.x * (long long)THREADS + threadIdx.x;
  for (; i + 3 * stride < n4; i += 4 * stride) {
    const float4 a = __ldg(in + i), b = __ldg(in + i + stride), c = __ldg(in + i + 2 * stride),
                 d = __ldg(in + i + 3 * stride);
    __stwb(out + i, a);
    __stwb(out + i + stride, b);
    __stwb(out + i + 2 * stride, c);
    __stwb(out + i + 3 * stride, d);
  }
  for (; i < n4; i += stride) __stwb(out + i, __ldg(in + i));
}

__global__ void fillPattern(float* p, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    p[i] = static_cast<float>(1 + i % 1021);  // no zeros: eps must vanish against every value
}
__global__ void countMismatches(const float* a, const float* b, long long n, unsigned long long* bad) {
  unsigned long long mine = 0;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    mine += a[i] != b[i];
  if (mine) atomicAdd(bad, mine);
}

struct Config {
  const char* name;
  int arrays, pieces, unitElems, ring, passes;
};

constexpr Config kRingConfigs[] = {
    // pearson_bwd / wvar_bwd 262144 at P = 16: two kept slices of 16384 in pieces of 8192, 7 units.
    {"a2_pieces2_32K_ring7", 2, 2, 8192, 7, 2},
    // layernorm 65536 at P = 4 (and 131072 P8, 262144 P16): one kept slice of 16384, 3 units.
    {"a1_pieces1_64K_ring3", 1, 1, 16384, 3, 2},
};

// The buffers and the ceiling every measurement shares.
struct Bench {
  float* in;
  float* out;
  void* flush;
  unsigned long long* bad;
  size_t bufBytes, flushBytes;
  double copyGBs = 0;

  // The median of 15 timings after 3 warm-ups, the L2 flushed (a 256 MiB memset) before each.
  template <class Launch>
  int medianMs(Launch launch, float& ms) const {
    return medianEventMs(launch, [&](int r) { return cudaMemsetAsync(flush, r, flushBytes); }, 15, 3, ms);
  }
  // One more launch on a poisoned output, then the elements of out's first n that
  // differ from in: eps (the statistics times 1e-30) vanishes against the pattern's
  // values, so every element of every row must be written, once, at its place.
  template <class Launch>
  int countRingMismatches(Launch launch, long long n, unsigned long long& mismatches) const {
    CK(cudaMemset(out, 0xff, bufBytes));
    CK(launch());
    CK(cudaMemset(bad, 0, sizeof(unsigned long long)));
    countMismatches<<<1024, 256>>>(in, out, n, bad);
    CK(cudaMemcpy(&mismatches, bad, sizeof mismatches, cudaMemcpyDeviceToHost));
    return 0;
  }
};

int threadsAndClusters(const Bench& b);

int main(int argc, char** argv) {
  const bool sweep = argc > 1 && std::string(argv[1]) == "threads";
  Bench b{};
  b.bufBytes = size_t(1) << 30;  // per side: 1 GiB in, 1 GiB out, far beyond the 60 MB L2
  b.flushBytes = size_t(256) << 20;
  CK(cudaMalloc(&b.in, b.bufBytes));
  CK(cudaMalloc(&b.out, b.bufBytes));
  CK(cudaMalloc(&b.flush, b.flushBytes));
  fillPattern<<<1024, 256>>>(b.in, b.bufBytes / 4);
  CK(cudaGetLastError());
  CK(cudaMalloc(&b.bad, sizeof(unsigned long long)));
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  float copyMs;
  if (b.medianMs([&] { return cudaMemcpyAsync(b.out, b.in, b.bufBytes, cudaMemcpyDeviceToDevice); }, copyMs)) return 1;
  b.copyGBs = 2.0 * b.bufBytes / (copyMs * 1e-3) / 1e9;
  std::printf("{\"config\": \"memcpy_1GiB\", \"ms\": %.4f, \"GBps\": %.1f}\n", copyMs, b.copyGBs);

  if (sweep) return threadsAndClusters(b);

  const int grids[] = {112, 120, sms};
  for (int G : grids) {
    CK(cudaFuncSetAttribute(copyStream<>, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 << 10));
    float ms;
    const long long n4 = b.bufBytes / 16;
    if (b.medianMs(
            [&] {
              copyStream<<<G, kThreads, 200 << 10>>>(reinterpret_cast<const float4*>(b.in),
                                                     reinterpret_cast<float4*>(b.out), n4);
              return cudaGetLastError();
            },
            ms))
      return 1;
    const double gbs = 2.0 * b.bufBytes / (ms * 1e-3) / 1e9;
    std::printf("{\"config\": \"copy_ldg_stg\", \"ctas\": %d, \"ms\": %.4f, \"GBps\": %.1f, \"frac_copy\": %.4f}\n",
                G, ms, gbs, gbs / b.copyGBs);
  }

  for (const Config& c : kRingConfigs) {
    const long long rowElems = (long long)c.pieces * c.unitElems;
    const long long rows = (long long)(b.bufBytes / 4) / (rowElems * c.arrays);
    const int smem = kUnitsOffset + c.ring * c.unitElems * 4;
    for (int G : grids)
      for (int mode = 0; mode < 3; ++mode) {
        auto kern = mode == 0 ? ringStream<0> : mode == 1 ? ringStream<1> : ringStream<2>;
        CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        auto launch = [&] {
          kern<<<G, kThreads, smem>>>(b.in, b.out, c.arrays, c.pieces, c.unitElems, c.ring, c.passes, rows);
          return cudaGetLastError();
        };
        float ms;
        if (b.medianMs(launch, ms)) return 1;
        const long long n = rows * rowElems * c.arrays;
        unsigned long long mismatches = 0;
        if (b.countRingMismatches(launch, n, mismatches)) return 1;
        const bool ok = mismatches == 0;
        const double bytes = 2.0 * rows * rowElems * c.arrays * 4;
        const double gbs = bytes / (ms * 1e-3) / 1e9;
        std::printf(
            "{\"config\": \"%s\", \"mode\": %d, \"ctas\": %d, \"smem\": %d, \"rows\": %lld, \"ms\": %.4f, "
            "\"GBps\": %.1f, \"frac_copy\": %.4f, \"mismatches\": %llu}\n",
            c.name, mode, G, smem, rows, ms, gbs, gbs / b.copyGBs, mismatches);
        if (!ok) return 2;
      }
  }
  return 0;
}

// `sm_ceiling threads` (12-03): the same memory paths with 1024 threads per CTA
// against 512, and the 112 CTAs launched as 7 clusters of 16 (the placement of
// the P = 16 kernels: whole clusters inside GPCs) against 112 loose CTAs. STG
// only (mode 0). The question: is the two-input path's rate on 112 SMs (86.6%)
// a per-SM limit that more warps lift, or one of where the SMs are?
template <class Kernel, class... Args>
static cudaError_t launchClustered(Kernel kern, int G, int threads, int smem, int cluster, Args... args) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(G);
  cfg.blockDim = dim3(threads);
  cfg.dynamicSmemBytes = smem;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = cluster;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, kern, args...);
}

template <int THREADS>
static int sweepOne(const Bench& b, int G, int cluster) {
  {
    auto kern = copyStream<THREADS>;
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 << 10));
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    const long long n4 = b.bufBytes / 16;
    float ms;
    if (b.medianMs(
            [&] {
              return launchClustered(kern, G, THREADS, 200 << 10, cluster, reinterpret_cast<const float4*>(b.in),
                                     reinterpret_cast<float4*>(b.out), n4);
            },
            ms))
      return 1;
    const double gbs = 2.0 * b.bufBytes / (ms * 1e-3) / 1e9;
    std::printf("{\"config\": \"copy_ldg_stg\", \"threads\": %d, \"cluster\": %d, \"ctas\": %d, \"ms\": %.4f, "
                "\"GBps\": %.1f, \"frac_copy\": %.4f}\n",
                THREADS, cluster, G, ms, gbs, gbs / b.copyGBs);
  }
  for (const Config& c : kRingConfigs) {
    const long long rowElems = (long long)c.pieces * c.unitElems;
    const long long rows = (long long)(b.bufBytes / 4) / (rowElems * c.arrays);
    const int smem = kUnitsOffset + c.ring * c.unitElems * 4;
    auto kern = ringStream<0, THREADS>;
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    auto launch = [&] {
      return launchClustered(kern, G, THREADS, smem, cluster, (const float*)b.in, b.out, c.arrays, c.pieces,
                             c.unitElems, c.ring, c.passes, rows);
    };
    float ms;
    if (b.medianMs(launch, ms)) return 1;
    unsigned long long mismatches = 0;
    if (b.countRingMismatches(launch, rows * rowElems * c.arrays, mismatches)) return 1;
    const double gbs = 2.0 * rows * rowElems * c.arrays * 4 / (ms * 1e-3) / 1e9;
    std::printf("{\"config\": \"%s\", \"mode\": 0, \"threads\": %d, \"cluster\": %d, \"ctas\": %d, \"smem\": %d, "
                "\"ms\": %.4f, \"GBps\": %.1f, \"frac_copy\": %.4f, \"mismatches\": %llu}\n",
                c.name, THREADS, cluster, G, smem, ms, gbs, gbs / b.copyGBs, mismatches);
    if (mismatches) return 2;
  }
  return 0;
}

int threadsAndClusters(const Bench& b) {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  struct Shape { int G, cluster; };
  const Shape shapes[] = {{112, 1}, {112, 16}, {sms, 1}};
  for (int rep = 0; rep < 2; ++rep)  // twice, to see the run-to-run spread
    for (const Shape& sh : shapes) {
      if (int rc = sweepOne<512>(b, sh.G, sh.cluster)) return rc;
      if (int rc = sweepOne<1024>(b, sh.G, sh.cluster)) return rc;
    }
  return 0;
}
