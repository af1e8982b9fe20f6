// credit-calibrate -- the device profile of the cost model (docs/cost-model.md).
//
// The paper's three microbenchmark families (its Sec. III-A), each CTA forced
// onto its own SM (dynamic shared memory above half an SM's capacity, so no
// two CTAs share an SM; every CTA records %smid and the run is rejected if two
// CTAs of a cluster ever share one), median of --runs (15) runs:
//   (a) dependent-load latency: a pointer chase through local shared memory
//       (ld.shared.u32) and through a peer's shared memory (ld.shared::cluster.u32),
//       cycles per load;
//   (b) throughput of independent accesses, bytes per cycle per CTA: local
//       LDS.128 reads and STS.128 stores, and per cluster size P in {2,4,8,16}
//       remote ld.shared::cluster.v4 loads, st.shared::cluster.b32 stores (the
//       sync protocol's push) and st.async.b32 + complete_tx stores (the
//       mbarrier protocol's push);
//   (c) cluster-barrier latency per P (barrier.cluster.arrive.release +
//       wait.acquire, as credit_cluster_sync), and the mbarrier round trip of
//       the mbarrier protocol (st.async + complete_tx + try_wait, there and
//       back between two CTAs).
// Plus the SM clock (clock64 against %globaltimer) and T_ctrl(M, N, P): the
// excess time of a generated file's work-free control kernel over the same
// kernel launched one CTA per row (the "one-CTA control"), per protocol.
// The control kernels come from creditc-generated .cu files given with
// --control: they are JIT-compiled through the runtime (credit::Runtime::
// jitCompileAndLoad, NVRTC, the on-disk kernel cache) and launched through the
// driver API with the cluster dimension, so this program needs neither MLIR
// nor a rebuild per workload. Timed with CUDA events behind a spin kernel (so
// the host-side launch path is not in the measured interval).
//
// Writes the profile JSON (--out) and prints a table like the paper's Table II.
// Exit status: 0 written; 1 usage or input error; 3 no CUDA device/driver;
// 4 a measurement failed (CUDA error, CTAs sharing an SM).
#include "CalibrateSupport.h"

#include "credit/device/ptx.cuh"
#include "credit/runtime/Baseline.h"
#include "credit/runtime/Layout.h"
#include "credit/runtime/Runtime.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace cal = credit::calibrate;

#ifndef CREDIT_VERSION
#define CREDIT_VERSION "0.1.0"
#endif

// ===========================================================================
// Device side.
// ===========================================================================
namespace {

struct CtaRecord {
  unsigned long long cycles;   // the timed interval (clock64)
  unsigned long long cycles2;  // a second interval (completion), where measured
  unsigned long long bytes;    // bytes this CTA moved in `cycles`
  unsigned long long sink;     // keeps results alive
  unsigned smid;
  unsigned rank;
};

constexpr int kUnroll = 8;  // independent accesses in flight per thread

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

// Busy-waits `cycles` SM cycles (one thread): keeps the stream busy while the
// host enqueues the timed launch behind it.
__global__ void spinKernel(long long cycles) {
  const long long c0 = clock64();
  while (clock64() - c0 < cycles) {
  }
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
constexpr int kDataOffset = 16;  // OP 4: the mbarrier lives at offset 0

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

}  // namespace

// ===========================================================================
// Host side.
// ===========================================================================
namespace {

struct Options {
  std::string out = "device-profile.json";
  int runs = 15;
  int threads = 256;
  int device = 0;
  std::vector<std::string> controls;  // FILE.cu[@M,M...]
  std::vector<std::string> baselines; // --time-baseline FILE.cu[@M,M...]
  std::vector<long long> ctrlN = {4096, 8192, 16384, 32768, 65536, 131072, 262144};
  std::vector<long long> ctrlM = {4096};
  std::vector<int> clusterSizes = {2, 4, 8, 16};
  bool skipMicro = false;
  bool dryRun = false;
  std::string driverString;
};

void usage(FILE* f) {
  std::fprintf(f,
               "usage: credit-calibrate [options]\n"
               "  --out FILE            profile JSON to write (default device-profile.json)\n"
               "  --runs N              runs per measurement, the median is kept (default 15)\n"
               "  --threads N           threads per CTA of the microbenchmarks (default 256)\n"
               "  --device N            CUDA device ordinal (default 0)\n"
               "  --control FILE.cu[@M,M...]\n"
               "                        a creditc-generated file whose work-free control kernels\n"
               "                        give T_ctrl(M, N, P); repeatable; M list default --ctrl-M\n"
               "  --ctrl-N LIST         row widths for T_ctrl (default 4K,8K,16K,32K,64K,128K,256K)\n"
               "  --time-baseline FILE.cu[@M,M...]\n"
               "                        instead of calibrating: time T_B, the file's staged kernel\n"
               "                        (reread where Eq. 3 forbids P = 1) at every M and --ctrl-N,\n"
               "                        median of --runs, L2 flushed; repeatable; prints a table\n"
               "  --ctrl-M LIST         rows for T_ctrl (default 4096)\n"
               "  --P LIST              cluster sizes (default 2,4,8,16)\n"
               "  --skip-micro          T_ctrl only (the profile then lacks the rates)\n"
               "  --driver-string S     driver version text to record (e.g. from nvidia-smi)\n"
               "  --dry-run             read the --control files and print the plan; no GPU\n");
}

// 0: go on; 1: usage error; -1: --help printed.
int parseArgs(int argc, char** argv, Options& o) {
  auto need = [&](int& i, const std::string& name, std::string& val, const char* arg) -> bool {
    const std::string a = arg;
    const std::string eq = name + "=";
    if (a.rfind(eq, 0) == 0) {
      val = a.substr(eq.size());
      return true;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "credit-calibrate: error: %s needs a value\n", name.c_str());
      return false;
    }
    val = argv[++i];
    return true;
  };
  auto intArg = [](const std::string& name, const std::string& v, int lo, int hi, int& out) {
    char* end = nullptr;
    long x = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || x < lo || x > hi) {
      std::fprintf(stderr, "credit-calibrate: error: %s must be an integer in [%d, %d], not '%s'\n",
                   name.c_str(), lo, hi, v.c_str());
      return false;
    }
    out = static_cast<int>(x);
    return true;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto is = [&](const char* n) { return a == n || a.rfind(std::string(n) + "=", 0) == 0; };
    std::string v;
    if (a == "--help" || a == "-h") {
      usage(stdout);
      return -1;
    } else if (a == "--skip-micro") {
      o.skipMicro = true;
    } else if (a == "--dry-run") {
      o.dryRun = true;
    } else if (is("--out")) {
      if (!need(i, "--out", o.out, argv[i])) return 1;
    } else if (is("--runs")) {
      if (!need(i, "--runs", v, argv[i]) || !intArg("--runs", v, 1, 1000, o.runs)) return 1;
    } else if (is("--threads")) {
      if (!need(i, "--threads", v, argv[i]) || !intArg("--threads", v, 32, 1024, o.threads)) return 1;
      if (o.threads % 32) {
        std::fprintf(stderr, "credit-calibrate: error: --threads must be a multiple of 32\n");
        return 1;
      }
    } else if (is("--device")) {
      if (!need(i, "--device", v, argv[i]) || !intArg("--device", v, 0, 1024, o.device)) return 1;
    } else if (is("--control")) {
      if (!need(i, "--control", v, argv[i])) return 1;
      o.controls.push_back(v);
    } else if (is("--time-baseline")) {
      if (!need(i, "--time-baseline", v, argv[i])) return 1;
      o.baselines.push_back(v);
    } else if (is("--ctrl-N") || is("--ctrl-M") || is("--P")) {
      const std::string name = a.substr(0, a.find('='));
      std::vector<long long> list;
      std::string err;
      if (!need(i, name, v, argv[i])) return 1;
      if (!cal::parseIntList(v, list, err)) {
        std::fprintf(stderr, "credit-calibrate: error: %s: %s\n", name.c_str(), err.c_str());
        return 1;
      }
      if (name == "--ctrl-N") o.ctrlN = list;
      if (name == "--ctrl-M") o.ctrlM = list;
      if (name == "--P") {
        o.clusterSizes.clear();
        for (long long p : list) {
          if (p != 2 && p != 4 && p != 8 && p != 16) {
            std::fprintf(stderr, "credit-calibrate: error: --P takes 2, 4, 8 and 16, not %lld\n", p);
            return 1;
          }
          o.clusterSizes.push_back(static_cast<int>(p));
        }
      }
    } else if (is("--driver-string")) {
      if (!need(i, "--driver-string", o.driverString, argv[i])) return 1;
    } else {
      std::fprintf(stderr, "credit-calibrate: error: unknown argument '%s' (see --help)\n", a.c_str());
      return 1;
    }
  }
  for (long long n : o.ctrlN)
    if (n > credit::kMaxRowElems) {
      std::fprintf(stderr, "credit-calibrate: error: --ctrl-N %lld exceeds %lld\n", n, credit::kMaxRowElems);
      return 1;
    }
  return 0;
}

// One --control argument, read and parsed.
struct ControlFile {
  std::string path;
  std::vector<long long> M;
  std::string source;
  cal::GeneratedKernel k;
  credit::WorkloadGeometry geometry() const {
    return {k.keepBytesPerElem, k.numStages, k.qMax, k.qSum, k.threads};
  }
};

bool readControl(const std::string& arg, const Options& o, ControlFile& cf) {
  size_t at = arg.rfind('@');
  cf.path = at == std::string::npos ? arg : arg.substr(0, at);
  cf.M = o.ctrlM;
  if (at != std::string::npos) {
    std::string err;
    if (!cal::parseIntList(arg.substr(at + 1), cf.M, err)) {
      std::fprintf(stderr, "credit-calibrate: error: --control %s: %s\n", arg.c_str(), err.c_str());
      return false;
    }
  }
  std::ifstream in(cf.path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "credit-calibrate: error: cannot read '%s'\n", cf.path.c_str());
    return false;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  cf.source = ss.str();
  std::string err;
  if (!cal::parseGeneratedSource(cf.source, cf.k, err)) {
    std::fprintf(stderr, "credit-calibrate: error: %s: %s\n", cf.path.c_str(), err.c_str());
    return false;
  }
  return true;
}

// The one-CTA control's dynamic SMEM: the footprint of the non-clustered kernel
// the model's T_B comes from at this N -- staged (the whole row retained) where
// Eq. 3 allows P = 1, else reread (scratch only) -- with this protocol's scratch.
long long oneCtaSmem(credit::WorkloadGeometry g, long long N, credit::Protocol proto, long long limit) {
  const bool staged = credit::isLegal(g, N, 1, credit::Protocol::Sync, limit);
  return staged ? credit::smemBytes(g, N, 1, proto) : credit::scratchBytes(g, 1, proto);
}

const char* protoName(credit::Protocol p) { return p == credit::Protocol::Sync ? "sync" : "mbarrier"; }

#define CUDA_TRY(expr)                                                                        \
  do {                                                                                        \
    cudaError_t e_ = (expr);                                                                  \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "credit-calibrate: error: %s: %s (%s:%d)\n", #expr,                \
                   cudaGetErrorString(e_), __FILE__, __LINE__);                               \
      return false;                                                                           \
    }                                                                                         \
  } while (0)

struct Device {
  cudaDeviceProp prop{};
  int clockKHz = -1, memClockKHz = -1, busWidth = -1;
  int driverVersion = 0, runtimeVersion = 0;
  int smemPerSm = 0, smemOptin = 0;
  size_t microSmem = 0;  // dynamic SMEM per microbenchmark CTA: > half an SM, so one CTA per SM
  double clockMHzMeasured = 0;
  cudaStream_t stream = nullptr;
  CtaRecord* recs = nullptr;  // device, 64 records
  unsigned long long* scratch = nullptr;
};

// A launch of one cluster of P CTAs (grid = P), `smem` dynamic bytes each;
// `attr` must outlive the returned configuration.
static cudaLaunchConfig_t oneClusterConfig(cudaLaunchAttribute (&attr)[1], int P, int threads,
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

struct Micro {
  bool measured = false;
  double smemLoadLatency = NAN, dsmemLoadLatency = NAN;   // cycles
  double smemReadBpc = NAN, smemWriteBpc = NAN;           // B/clk per CTA (SM)
  std::map<int, double> dsmemLoadBpc, dsmemStoreBpc, dsmemStoreAsyncBpc;
  std::map<int, double> dsmemStoreCompleteBpc, dsmemStoreAsyncCompleteBpc;
  std::map<int, double> clusterBarrier;                   // cycles per barrier
  double mbarrierRoundTrip = NAN;                         // cycles
  std::vector<int> skippedP;                              // clusters that cannot be resident
  bool distinctSms = true;
};

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

struct CtrlEntry {
  std::string kernel;
  cal::GeneratedKernel k;
  credit::Protocol protocol;
  int P;
  long long M, N, smem, oneCtaSmem;
  std::string baseline;  // staged | reread: whose footprint the one-CTA control has
  double tControlMs, tOneCtaMs;
};

// Times one launch (ms) behind a spin kernel, median of `runs`.
bool timeJit(Device& dev, credit::Runtime& rt, const credit::Function& fn, const credit::LaunchConfig& cfg,
             long long M, int N, int P, int runs, double& ms, std::string& error) {
  void* args[] = {&M, &N, &P};
  cudaEvent_t e0, e1;
  CUDA_TRY(cudaEventCreate(&e0));
  CUDA_TRY(cudaEventCreate(&e1));
  const long long spin = static_cast<long long>(dev.clockMHzMeasured * 300.0);  // 0.3 ms
  std::vector<double> v;
  bool ok = true;
  for (int r = -2; r < runs && ok; ++r) {  // two warm-up launches
    spinKernel<<<1, 1, 0, dev.stream>>>(spin);
    if (cudaEventRecord(e0, dev.stream) != cudaSuccess) ok = false;
    credit::Status st = rt.launch(fn, cfg, args);
    if (!st.ok()) {
      error = st.message;
      ok = false;
      break;
    }
    if (cudaEventRecord(e1, dev.stream) != cudaSuccess || cudaEventSynchronize(e1) != cudaSuccess) {
      error = cudaGetErrorString(cudaGetLastError());
      ok = false;
      break;
    }
    float t = 0;
    cudaEventElapsedTime(&t, e0, e1);
    if (r >= 0) v.push_back(t);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  ms = cal::median(v);
  return ok;
}

// Failures of one file or one point are reported and skipped (`complete` turns
// false), so one bad point does not lose the rest of the profile.
bool measureControls(Device& dev, const Options& o, std::vector<ControlFile>& files,
                     std::vector<CtrlEntry>& out, bool& complete) {
  credit::Runtime rt;
  credit::Status st = credit::Runtime::create(rt, o.device);
  if (!st.ok()) {
    std::fprintf(stderr, "credit-calibrate: error: %s\n", st.message.c_str());
    return false;
  }
  const long long limit = dev.smemOptin;
  for (ControlFile& cf : files) {
    credit::Module mod;
    credit::CachedNvrtcResult res;
    st = rt.jitCompileAndLoad(cf.source + cal::geometryCheckSuffix(cf.k), "credit_" + cf.k.kernel + ".cu",
                              mod, credit::NvrtcOptions(), credit::CacheOptions(), &res);
    if (!st.ok()) {
      std::fprintf(stderr, "credit-calibrate: error: %s: JIT failed: %s\n%s\n", cf.path.c_str(),
                   st.message.c_str(), res.log.c_str());
      complete = false;
      continue;
    }
    credit::Function fns[2];
    if (!(st = rt.getFunction(mod, cf.k.controlSync, fns[0])).ok() ||
        !(st = rt.getFunction(mod, cf.k.controlMbarrier, fns[1])).ok()) {
      std::fprintf(stderr, "credit-calibrate: error: %s: %s\n", cf.path.c_str(), st.message.c_str());
      complete = false;
      continue;
    }
    const credit::WorkloadGeometry g = cf.geometry();
    std::printf("T_ctrl: %s (%s), JIT %s\n", cf.k.kernel.c_str(), cf.path.c_str(),
                res.fromCache ? "from cache" : "compiled");
    for (long long M : cf.M)
      for (long long N : o.ctrlN)
        for (int pi = 0; pi < 2; ++pi) {
          const credit::Protocol proto = pi == 0 ? credit::Protocol::Sync : credit::Protocol::Mbarrier;
          const long long one = oneCtaSmem(g, N, proto, limit);
          credit::LaunchConfig c1;
          c1.gridX = static_cast<unsigned>(M);
          c1.blockX = static_cast<unsigned>(g.threads);
          c1.smemBytes = static_cast<size_t>(one);
          c1.clusterX = 1;
          c1.stream = reinterpret_cast<CUstream>(dev.stream);
          double tOne = NAN;
          std::string err;
          if (!timeJit(dev, rt, fns[pi], c1, M, static_cast<int>(N), 1, o.runs, tOne, err)) {
            std::fprintf(stderr, "credit-calibrate: error: %s %s one-CTA control M=%lld N=%lld: %s\n",
                         cf.k.kernel.c_str(), protoName(proto), M, N, err.c_str());
            (void)cudaGetLastError();
            complete = false;
            continue;
          }
          for (int P : o.clusterSizes) {
            if (!credit::isLegal(g, N, P, proto, limit)) continue;
            const long long smem = credit::smemBytes(g, N, P, proto);
            credit::LaunchConfig c;
            c.gridX = static_cast<unsigned>(M * P);
            c.blockX = static_cast<unsigned>(g.threads);
            c.smemBytes = static_cast<size_t>(smem);
            c.clusterX = static_cast<unsigned>(P);
            c.stream = reinterpret_cast<CUstream>(dev.stream);
            double t = NAN;
            if (!timeJit(dev, rt, fns[pi], c, M, static_cast<int>(N), P, o.runs, t, err)) {
              // A cluster shape this device cannot make resident (e.g. P = 16
              // with a large footprint): record nothing, say so.
              std::fprintf(stderr, "credit-calibrate: warning: %s %s P=%d M=%lld N=%lld not measured: %s\n",
                           cf.k.kernel.c_str(), protoName(proto), P, M, N, err.c_str());
              (void)cudaGetLastError();
              continue;
            }
            out.push_back({cf.k.kernel, cf.k, proto, P, M, N, smem, one,
                           credit::isLegal(g, N, 1, credit::Protocol::Sync, limit) ? "staged" : "reread",
                           t, tOne});
          }
        }
  }
  return true;
}

std::string isoNow() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

void writeRates(cal::JsonWriter& w, const std::string& key, const std::map<int, double>& m) {
  w.key(key);
  w.beginObject();
  for (const auto& [P, v] : m) w.field(std::to_string(P), v);
  w.endObject();
}

std::string profileJSON(const Device& dev, const Options& o, const Micro& m,
                        const std::vector<CtrlEntry>& ctrl) {
  cal::JsonWriter w;
  w.beginObject();
  w.field("schema", "credit-device-profile");
  w.field("version", 1);
  w.field("generator", "credit-calibrate " CREDIT_VERSION);
  w.field("date", isoNow());
  w.key("device");
  w.beginObject();
  w.field("name", std::string(dev.prop.name));
  w.field("arch", "sm_" + std::to_string(dev.prop.major) + std::to_string(dev.prop.minor));
  w.field("sms", dev.prop.multiProcessorCount);
  w.field("sm_clock_MHz", dev.clockMHzMeasured);
  w.field("sm_clock_max_MHz", dev.clockKHz > 0 ? dev.clockKHz / 1000.0 : NAN);
  w.field("mem_clock_max_MHz", dev.memClockKHz > 0 ? dev.memClockKHz / 1000.0 : NAN);
  w.field("mem_bus_width_bits", dev.busWidth);
  w.field("l2_bytes", dev.prop.l2CacheSize);
  w.field("smem_per_sm_bytes", dev.smemPerSm);
  w.field("smem_per_block_optin_bytes", dev.smemOptin);
  w.field("driver_api_version", dev.driverVersion);
  w.field("runtime_version", dev.runtimeVersion);
  if (o.driverString.empty()) w.nullField("driver");
  else w.field("driver", o.driverString);
  w.endObject();
  w.key("method");
  w.beginObject();
  w.field("runs", o.runs);
  w.field("statistic", "median");
  w.field("threads_per_cta", o.threads);
  w.field("dynamic_smem_bytes", static_cast<long long>(dev.microSmem));
  w.field("one_cta_per_sm", true);
  if (m.measured) w.field("distinct_sms_verified", m.distinctSms);
  else w.nullField("distinct_sms_verified");  // --skip-micro: nothing was launched in clusters
  w.field("accesses_in_flight_per_thread", kUnroll);
  w.endObject();
  if (m.measured) {
    w.key("latency_cycles");
    w.beginObject();
    w.field("smem_load", m.smemLoadLatency);
    w.field("dsmem_load", m.dsmemLoadLatency);
    writeRates(w, "cluster_barrier", m.clusterBarrier);
    w.field("mbarrier_round_trip", m.mbarrierRoundTrip);
    w.endObject();
    w.key("rates_Bpc");
    w.beginObject();
    w.field("smem_read", m.smemReadBpc);
    w.field("smem_write", m.smemWriteBpc);
    writeRates(w, "dsmem_load", m.dsmemLoadBpc);
    writeRates(w, "dsmem_store", m.dsmemStoreBpc);
    writeRates(w, "dsmem_store_async", m.dsmemStoreAsyncBpc);
    writeRates(w, "dsmem_store_complete", m.dsmemStoreCompleteBpc);
    writeRates(w, "dsmem_store_async_complete", m.dsmemStoreAsyncCompleteBpc);
    w.endObject();
    w.key("skipped_cluster_sizes");
    w.beginArray();
    for (int P : m.skippedP) w.value(P);
    w.endArray();
  }
  w.key("control");
  w.beginObject();
  w.field("method",
          "t_ctrl_ms = t_control_ms - t_one_cta_ms: the generated work-free control kernel at "
          "grid M*P, cluster P, dynamic SMEM smem_bytes(N, P, protocol), minus the same kernel "
          "at grid M, no cluster, with the one-CTA baseline's footprint (staged where Eq. 3 "
          "allows P = 1, else reread scratch); CUDA events behind a spin kernel, median");
  w.key("entries");
  w.beginArray();
  for (const CtrlEntry& e : ctrl) {
    w.beginObject();
    w.field("kernel", e.kernel);
    w.key("geometry");
    w.beginObject();
    w.field("keep_bytes_per_element", e.k.keepBytesPerElem);
    w.field("L", e.k.numStages);
    w.field("q_max", e.k.qMax);
    w.field("q_sum", e.k.qSum);
    w.field("threads", e.k.threads);
    w.endObject();
    w.field("protocol", protoName(e.protocol));
    w.field("P", e.P);
    w.field("M", e.M);
    w.field("N", e.N);
    w.field("K", e.protocol == credit::Protocol::Sync ? e.k.Ksync : e.k.Kmbarrier);
    w.field("smem_bytes", e.smem);
    w.field("one_cta_baseline", e.baseline);
    w.field("one_cta_smem_bytes", e.oneCtaSmem);
    w.field("t_control_ms", e.tControlMs);
    w.field("t_one_cta_ms", e.tOneCtaMs);
    w.field("t_ctrl_ms", e.tControlMs - e.tOneCtaMs);
    w.endObject();
  }
  w.endArray();
  w.endObject();
  w.endObject();
  return w.str();
}

std::string fmt(double v, const char* f = "%9.1f") {
  if (!std::isfinite(v)) return "        -";
  char b[32];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

void printTables(const Device& dev, const Options& o, const Micro& m, const std::vector<CtrlEntry>& ctrl) {
  if (m.measured) {
    std::printf("\nTable II -- %s (sm_%d%d, %d SMs), SM clock %.0f MHz measured (max %.0f), median of %d "
                "runs, one CTA per SM, %d threads per CTA\n",
                dev.prop.name, dev.prop.major, dev.prop.minor, dev.prop.multiProcessorCount,
                dev.clockMHzMeasured, dev.clockKHz / 1000.0, o.runs, o.threads);
    std::printf("  %-46s %12s\n", "latency", "cycles");
    std::printf("  %-46s %s\n", "local SMEM dependent load (ld.shared.u32)", fmt(m.smemLoadLatency, "%12.1f").c_str());
    std::printf("  %-46s %s   (%.1fx local)\n", "remote DSMEM dependent load (ld.shared::cluster)",
                fmt(m.dsmemLoadLatency, "%12.1f").c_str(), m.dsmemLoadLatency / m.smemLoadLatency);
    std::printf("  %-46s %s\n", "mbarrier round trip (st.async+complete_tx+wait)",
                fmt(m.mbarrierRoundTrip, "%12.1f").c_str());
    std::printf("\n  %-46s %12s\n", "rate, B/clk per CTA (SM)", "local");
    std::printf("  %-46s %s\n", "SMEM read (LDS.128)", fmt(m.smemReadBpc, "%12.1f").c_str());
    std::printf("  %-46s %s\n", "SMEM store (STS.128)", fmt(m.smemWriteBpc, "%12.1f").c_str());
    std::printf("\n  %-46s", "per cluster size P");
    for (int P : o.clusterSizes) std::printf("     P=%-3d", P);
    std::printf("\n");
    auto row = [&](const char* name, const std::map<int, double>& mp, const char* f) {
      std::printf("  %-46s", name);
      for (int P : o.clusterSizes) {
        auto it = mp.find(P);
        std::printf(" %s", fmt(it == mp.end() ? NAN : it->second, f).c_str());
      }
      std::printf("\n");
    };
    row("DSMEM load, B/clk (ld.shared::cluster.v4)", m.dsmemLoadBpc, "%9.2f");
    row("DSMEM store issue, B/clk (st.shared::cluster)", m.dsmemStoreBpc, "%9.2f");
    row("DSMEM st.async issue, B/clk (+complete_tx)", m.dsmemStoreAsyncBpc, "%9.2f");
    row("cluster barrier, cycles", m.clusterBarrier, "%9.1f");
    std::printf("  remote load rate / local read rate (P=2): %.1fx lower\n",
                m.smemReadBpc / (m.dsmemLoadBpc.count(2) ? m.dsmemLoadBpc.at(2) : NAN));
    if (!m.skippedP.empty()) {
      std::printf("  not resident with one CTA per SM (skipped): P =");
      for (int P : m.skippedP) std::printf(" %d", P);
      std::printf("\n");
    }
  }
  if (!ctrl.empty()) {
    std::printf("\nT_ctrl(M, N, P) = control - one-CTA control, us\n");
    std::printf("  %-20s %-9s %7s %8s %9s", "kernel", "protocol", "M", "N", "one-CTA");
    for (int P : o.clusterSizes) std::printf("    P=%-3d", P);
    std::printf("\n");
    for (size_t i = 0; i < ctrl.size();) {
      const CtrlEntry& h = ctrl[i];
      std::printf("  %-20s %-9s %7lld %8lld %s", h.kernel.c_str(), protoName(h.protocol), h.M, h.N,
                  fmt(h.tOneCtaMs * 1e3, "%9.1f").c_str());
      size_t j = i;
      std::map<int, double> byP;
      while (j < ctrl.size() && ctrl[j].kernel == h.kernel && ctrl[j].protocol == h.protocol &&
             ctrl[j].M == h.M && ctrl[j].N == h.N) {
        byP[ctrl[j].P] = (ctrl[j].tControlMs - ctrl[j].tOneCtaMs) * 1e3;
        ++j;
      }
      for (int P : o.clusterSizes) std::printf(" %s", fmt(byP.count(P) ? byP[P] : NAN, "%8.1f").c_str());
      std::printf("\n");
      i = j;
    }
  }
}

}  // namespace

// --time-baseline: T_B of each file at every M and N (credit::timeBaselineKernel,
// the runtime's JIT; the same code `creditc predict --measure-tB` runs).
int timeBaselines(const Options& o) {
  std::vector<ControlFile> files;
  for (const std::string& b : o.baselines) {
    ControlFile cf;
    if (!readControl(b, o, cf)) return 1;
    files.push_back(std::move(cf));
  }
  credit::Runtime rt;
  credit::Status st = credit::Runtime::create(rt, o.device);
  if (!st.ok()) {
    std::fprintf(stderr, "credit-calibrate: error: %s\n", st.message.c_str());
    return 3;
  }
  std::printf("T_B on %s (%s): median of %d after 2 warm-ups, 256 MiB L2 flush before each\n",
              rt.device().name.c_str(), rt.arch().c_str(), o.runs);
  std::printf("  %-20s %7s %8s  %-34s %10s %10s\n", "kernel", "M", "N", "function", "T_B ms", "min ms");
  int status = 0;
  for (const ControlFile& cf : files)
    for (long long M : cf.M)
      for (long long N : o.ctrlN) {
        credit::BaselineRequest req;
        req.source = cf.source;
        req.kernel = cf.k.kernel;
        req.geometry = cf.geometry();
        req.staged = credit::isLegal(req.geometry, N, 1, credit::Protocol::Sync, rt.device().smemOptinBytes);
        req.M = M;
        req.N = N;
        req.reps = o.runs;
        credit::Expected<credit::BaselineTiming> t = credit::timeBaselineKernel(rt, req);
        if (!t.ok()) {
          std::fprintf(stderr, "credit-calibrate: error: %s M=%lld N=%lld: %s\n", cf.k.kernel.c_str(), M, N,
                       t.status.message.c_str());
          status = 4;
          continue;
        }
        std::printf("  %-20s %7lld %8lld  %-34s %10.4f %10.4f\n", cf.k.kernel.c_str(), M, N,
                    t.value.function.c_str(), t.value.medianMs, t.value.minMs);
        if (!req.staged) continue;
        // T_slice(P) where the staged kernel runs one CTA per SM (the model's T_occ).
        credit::Expected<std::vector<credit::SliceTiming>> slices = credit::timeSliceKernels(rt, req);
        if (!slices.ok()) {
          std::fprintf(stderr, "credit-calibrate: error: %s M=%lld N=%lld: %s\n", cf.k.kernel.c_str(), M, N,
                       slices.status.message.c_str());
          status = 4;
          continue;
        }
        for (const credit::SliceTiming& sl : slices.value)
          std::printf("  %-20s %7lld %8lld  %-34s %10.4f %10.4f  T_slice(P = %d) at %lld x %lld\n",
                      cf.k.kernel.c_str(), M, N, sl.timing.function.c_str(), sl.timing.medianMs, sl.timing.minMs,
                      sl.P, sl.rows, sl.width);
      }
  return status;
}

int main(int argc, char** argv) {
  Options o;
  const int parsed = parseArgs(argc, argv, o);
  if (parsed != 0) return parsed < 0 ? 0 : 1;
  std::vector<ControlFile> files;
  for (const std::string& c : o.controls) {
    ControlFile cf;
    if (!readControl(c, o, cf)) return 1;
    files.push_back(std::move(cf));
  }
  if (!o.baselines.empty()) return timeBaselines(o);
  if (o.dryRun) {
    // The plan, from the files alone (the --arch of each file gives the SMEM limit).
    for (const ControlFile& cf : files) {
      const credit::TargetInfo tgt = credit::findTarget(cf.k.arch.empty() ? "sm_90" : cf.k.arch.c_str());
      const credit::WorkloadGeometry g = cf.geometry();
      std::printf("%s: kernel %s, keep %d B/element, L = %d, q max %d sum %d, %d threads, K sync %d "
                  "mbarrier %d, target %s (SMEM limit %d B)\n",
                  cf.path.c_str(), cf.k.kernel.c_str(), g.keepBytesPerElem, g.numStages, g.qMax, g.qSum,
                  g.threads, cf.k.Ksync, cf.k.Kmbarrier, tgt.arch ? tgt.arch : "?", tgt.smemOptinBytes);
      for (long long M : cf.M)
        for (long long N : o.ctrlN) {
          std::printf("  M=%lld N=%lld one-CTA %s:", M, N,
                      credit::isLegal(g, N, 1, credit::Protocol::Sync, tgt.smemOptinBytes) ? "staged" : "reread");
          for (int pi = 0; pi < 2; ++pi) {
            const credit::Protocol proto = pi ? credit::Protocol::Mbarrier : credit::Protocol::Sync;
            std::printf(" %s P =", protoName(proto));
            for (int P : o.clusterSizes)
              if (P <= tgt.maxNonPortableCluster && credit::isLegal(g, N, P, proto, tgt.smemOptinBytes))
                std::printf(" %d", P);
            std::printf(";");
          }
          std::printf("\n");
        }
    }
    std::printf("dry run: nothing measured\n");
    return 0;
  }

  Device dev;
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count <= o.device) {
    std::fprintf(stderr, "credit-calibrate: error: no CUDA device %d (%s)\n", o.device,
                 e != cudaSuccess ? cudaGetErrorString(e) : "ordinal out of range");
    return 3;
  }
  auto fail = [](const char* what) {
    std::fprintf(stderr, "credit-calibrate: error: %s failed\n", what);
    return 4;
  };
  if (cudaSetDevice(o.device) != cudaSuccess || cudaFree(nullptr) != cudaSuccess) return fail("device set-up");
  cudaGetDeviceProperties(&dev.prop, o.device);
  if (dev.prop.major < 9) {
    std::fprintf(stderr, "credit-calibrate: error: %s is sm_%d%d; clusters and DSMEM need sm_90 or newer\n",
                 dev.prop.name, dev.prop.major, dev.prop.minor);
    return 3;
  }
  if (cudaDeviceGetAttribute(&dev.clockKHz, cudaDevAttrClockRate, o.device) != cudaSuccess) dev.clockKHz = -1;
  if (cudaDeviceGetAttribute(&dev.memClockKHz, cudaDevAttrMemoryClockRate, o.device) != cudaSuccess)
    dev.memClockKHz = -1;
  if (cudaDeviceGetAttribute(&dev.busWidth, cudaDevAttrGlobalMemoryBusWidth, o.device) != cudaSuccess)
    dev.busWidth = -1;
  (void)cudaGetLastError();
  cudaDriverGetVersion(&dev.driverVersion);
  cudaRuntimeGetVersion(&dev.runtimeVersion);
  cudaDeviceGetAttribute(&dev.smemPerSm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, o.device);
  cudaDeviceGetAttribute(&dev.smemOptin, cudaDevAttrMaxSharedMemoryPerBlockOptin, o.device);
  // More than half an SM's shared memory: no two CTAs can share an SM.
  dev.microSmem = std::min<size_t>(static_cast<size_t>(dev.smemOptin),
                                   static_cast<size_t>(dev.smemPerSm) / 2 + 32 * 1024);
  if (dev.microSmem <= static_cast<size_t>(dev.smemPerSm) / 2 ||
      dev.microSmem < static_cast<size_t>(kDataOffset) + 16u * kUnroll * o.threads) {
    std::fprintf(stderr, "credit-calibrate: error: cannot force one CTA per SM with %d threads "
                 "(%d B SMEM per SM, %d B per block)\n", o.threads, dev.smemPerSm, dev.smemOptin);
    return 1;
  }
  if (cudaStreamCreateWithFlags(&dev.stream, cudaStreamNonBlocking) != cudaSuccess ||
      cudaMalloc(&dev.recs, sizeof(CtaRecord) * 64) != cudaSuccess ||
      cudaMalloc(&dev.scratch, 64) != cudaSuccess)
    return fail("allocation");

  std::printf("credit-calibrate: %s, %d SMs, driver API %d, %d runs per measurement\n", dev.prop.name,
              dev.prop.multiProcessorCount, dev.driverVersion, o.runs);
  if (!measureClock(dev, o.runs)) return fail("SM clock measurement");
  std::printf("SM clock: %.1f MHz measured (clock64 / globaltimer)\n", dev.clockMHzMeasured);
  Micro m;
  if (!o.skipMicro && !measureMicro(dev, o, m)) return fail("microbenchmarks");
  if (!m.distinctSms) {
    std::fprintf(stderr, "credit-calibrate: error: two CTAs of a cluster ran on the same SM; the "
                 "one-CTA-per-SM premise does not hold, nothing written\n");
    return 4;
  }
  std::vector<CtrlEntry> ctrl;
  bool ctrlComplete = true;
  if (!files.empty() && !measureControls(dev, o, files, ctrl, ctrlComplete)) return 4;

  const std::string json = profileJSON(dev, o, m, ctrl);
  std::ofstream out(o.out, std::ios::binary);
  if (!out || !(out << json)) {
    std::fprintf(stderr, "credit-calibrate: error: cannot write '%s'\n", o.out.c_str());
    return 1;
  }
  printTables(dev, o, m, ctrl);
  std::printf("\nwrote %s\n", o.out.c_str());
  if (!ctrlComplete) {
    std::fprintf(stderr, "credit-calibrate: error: some T_ctrl points could not be measured (above); "
                 "the profile lacks them\n");
    return 4;
  }
  return 0;
}
