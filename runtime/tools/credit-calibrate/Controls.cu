// credit-calibrate: the control kernels of creditc-generated files (--control),
// JIT-compiled through the runtime (NVRTC, the kernel cache) and launched with the
// cluster dimension, timed with CUDA events behind a spin kernel: each point's
// control grid and its one-CTA grid (docs/cost-model.md, "The control grid"); and
// --time-baseline, T_B through the same JIT.
#include "Calibrate.h"

#include "credit/runtime/Baseline.h"

#include <fstream>
#include <sstream>

namespace credit::calibrate::tool {

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
        const int* rg = cf.k.rereadGeometry;
        req.rereadGeometry = credit::WorkloadGeometry{rg[0], rg[1], rg[2], rg[3], rg[4], rg[5]};
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

}  // namespace credit::calibrate::tool
