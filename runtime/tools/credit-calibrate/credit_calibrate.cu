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
// Plus the SM clock (clock64 against %globaltimer), the device-to-device copy
// rate and the dependent global-load latency past L2, and T_ctrl(M, N, P): the
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
#include "Calibrate.h"

#include <fstream>

using namespace credit::calibrate::tool;

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
  if (!o.skipMicro && !measureMemory(dev, o, m)) return fail("memory measurements");
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
