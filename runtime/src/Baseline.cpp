#include "credit/runtime/Baseline.h"
#include "credit/runtime/Model.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <random>
#include <sstream>

namespace credit {

bool parseKernelSignature(const std::string& signature, std::vector<KernelArg>& out,
                          std::string& error) {
  out.clear();
  std::stringstream ss(signature);
  std::string item;
  while (std::getline(ss, item, ';')) {
    if (item.empty()) continue;
    std::vector<std::string> f;
    std::stringstream is(item);
    std::string part;
    while (std::getline(is, part, ':')) f.push_back(part);
    if (f.size() != 4 || f[0].empty() || (f[1] != "in" && f[1] != "out") ||
        (f[2] != "row" && f[2] != "broadcast" && f[2] != "scalar") ||
        (f[3] != "f32" && f[3] != "bf16" && f[3] != "f16" && f[3] != "i8")) {
      error = "malformed signature entry '" + item +
              "' (expected name:in|out:row|broadcast|scalar:f32|bf16|f16|i8)";
      return false;
    }
    KernelArg a;
    a.name = f[0];
    a.input = f[1] == "in";
    a.kind = f[2] == "row" ? KernelArg::Row : f[2] == "broadcast" ? KernelArg::Broadcast : KernelArg::Scalar;
    a.type = f[3] == "i8" ? KernelArg::I8 : f[3] == "bf16" ? KernelArg::BF16 : f[3] == "f16" ? KernelArg::F16
                                                                                             : KernelArg::F32;
    a.elemBytes = a.type == KernelArg::I8 ? 1 : a.type == KernelArg::F32 ? 4 : 2;
    out.push_back(a);
  }
  if (out.empty()) {
    error = "empty signature";
    return false;
  }
  return true;
}

bool findKernelSignature(const std::string& source, const std::string& kernel,
                         std::string& signature) {
  const std::string key = "credit_" + kernel + "_signature() { return \"";
  const std::size_t at = source.find(key);
  if (at == std::string::npos) return false;
  const std::size_t begin = at + key.size();
  const std::size_t end = source.find('"', begin);
  if (end == std::string::npos) return false;
  signature = source.substr(begin, end - begin);
  return true;
}

BaselineKernelChoice baselineKernelFor(const std::string& kernel, WorkloadGeometry geometry, long long N,
                                       bool staged, long long smemPerSm, long long smemOptin,
                                       bool registersOk) {
  const std::string v = N % 4 == 0 ? "4" : "1";
  const std::string k = "credit_" + kernel;
  BaselineKernelChoice c;
  c.threads = geometry.threads;
  c.smemBytes = static_cast<std::size_t>(scratchBytes(geometry, 1, Protocol::Sync));
  if (!staged) {
    c.function = k + "_reread_v" + v;
    return c;
  }
  // The staged launcher's rule (credit::stagedForm, Layout.h).
  WorkloadGeometry wide = geometry;
  wide.threads = wideCtaThreads(geometry.threads);
  const std::string t = "_cta" + std::to_string(wide.threads);
  const StagedForm form = stagedForm(geometry, N, registersOk, smemPerSm, smemOptin);
  switch (form) {
    case StagedForm::Registers: c.function = k + "_staged_regs_v" + v; break;
    case StagedForm::WideRegisters: c.function = k + "_staged_regs_wide_v" + v; break;
    case StagedForm::Smem:
      c.function = k + "_staged_v" + v;
      c.smemBytes = static_cast<std::size_t>(smemBytes(geometry, N, 1, Protocol::Sync));
      break;
    case StagedForm::WideCtaRegisters:
    case StagedForm::LightWideCtaRegisters:
    case StagedForm::WideCtaDeepRegisters:
      c.function = k + (form == StagedForm::WideCtaDeepRegisters ? "_staged_regs_deep_v" : "_staged_regs_wide_v") +
                   v + t;
      c.threads = wide.threads;
      c.smemBytes = static_cast<std::size_t>(scratchBytes(wide, 1, Protocol::Sync));
      break;
    case StagedForm::WideCtaSmem:
      c.function = k + "_staged_v" + v + t;
      c.threads = wide.threads;
      c.smemBytes = static_cast<std::size_t>(smemBytes(wide, N, 1, Protocol::Sync));
      break;
  }
  return c;
}

Expected<BaselineTiming> timeBaselineKernel(Runtime& rt, const BaselineRequest& q) {
  Expected<BaselineTiming> out;
  auto fail = [&](int code, const std::string& msg) {
    out.status = Status::error(code, msg);
    return out;
  };
  if (q.M < 1 || q.N < 1 || q.N > kMaxRowElems || q.M > 0x7fffffffLL)
    return fail(Status::kInvalidArgument, "time baseline: M and N must be in [1, 2^31 - 1]");
  if (q.geometry.threads < 32 || q.geometry.threads > 1024)
    return fail(Status::kInvalidArgument, "time baseline: the geometry's CTA size is not valid");
  std::string sig, error;
  if (!findKernelSignature(q.source, q.kernel, sig))
    return fail(Status::kInvalidArgument,
                "time baseline: no credit_" + q.kernel + "_signature() in the generated source");
  std::vector<KernelArg> args;
  if (!parseKernelSignature(sig, args, error)) return fail(Status::kInvalidArgument, "time baseline: " + error);

  BaselineTiming t;
  t.staged = q.staged;
  const WorkloadGeometry timed = q.staged || q.rereadGeometry.threads == 0 ? q.geometry : q.rereadGeometry;
  const BaselineKernelChoice choice = baselineKernelFor(q.kernel, timed, q.N, q.staged,
                                                       rt.device().smemPerSmBytes, rt.device().smemOptinBytes,
                                                       q.registersOk);
  t.function = choice.function;
  t.smemBytes = choice.smemBytes;
  if (q.staged && !isLegal(q.geometry, q.N, 1, Protocol::Sync, rt.device().smemOptinBytes))
    return fail(Status::kInvalidLaunch, "time baseline: the staged kernel is not legal at N = " +
                                            std::to_string(q.N) + " on this device (Eq. 3, P = 1)");

  Module module;
  if (!(out.status = rt.jitCompileAndLoad(q.source, q.kernel + ".cu", module)).ok()) return out;
  Function fn;
  if (!(out.status = rt.getFunction(module, t.function, fn)).ok()) return out;

  // Arguments: device buffers in signature order, then (long long M, int N).
  std::vector<DeviceBuffer> buffers(args.size());
  std::vector<CUdeviceptr> ptrs(args.size());
  std::mt19937 rng(q.seed);
  std::uniform_real_distribution<float> dist(0.5f, 1.5f);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const KernelArg& a = args[i];
    const long long count = a.kind == KernelArg::Row ? q.M * q.N : a.kind == KernelArg::Broadcast ? q.N : q.M;
    const std::size_t bytes = static_cast<std::size_t>(count) * static_cast<std::size_t>(a.elemBytes);
    if (!(out.status = rt.allocate(bytes < 16 ? 16 : bytes, buffers[i])).ok()) return out;
    ptrs[i] = buffers[i].ptr();
    if (a.input) {
      std::vector<float> host(static_cast<std::size_t>(count));
      for (float& v : host) v = dist(rng);
      if (a.type == KernelArg::BF16 || a.type == KernelArg::F16) {  // the values rounded to the storage type
        std::vector<unsigned short> bits(host.size());
        for (std::size_t e = 0; e < host.size(); ++e)
          bits[e] = a.type == KernelArg::BF16 ? __bfloat16_as_ushort(__float2bfloat16_rn(host[e]))
                                              : __half_as_ushort(__float2half_rn(host[e]));
        if (!(out.status = rt.copyToDevice(ptrs[i], bits.data(), bytes)).ok()) return out;
      } else if (!(out.status = rt.copyToDevice(ptrs[i], host.data(), bytes)).ok()) {
        return out;
      }
    }
  }
  long long M = q.M;
  int N = static_cast<int>(q.N);
  std::vector<void*> params;
  for (CUdeviceptr& p : ptrs) params.push_back(&p);
  params.push_back(&M);
  params.push_back(&N);

  LaunchConfig cfg;
  cfg.gridX = static_cast<unsigned>(q.M);
  cfg.blockX = static_cast<unsigned>(choice.threads);
  cfg.smemBytes = t.smemBytes;
  Expected<double> ms = rt.timeLaunches(fn, cfg, params.data(), q.warmups, q.reps, q.flushBytes, &t.minMs);
  if (!ms.ok()) {
    out.status = ms.status;
    return out;
  }
  if (!(out.status = rt.synchronize()).ok()) return out;
  t.medianMs = ms.value;
  t.reps = q.reps;
  out.value = t;
  return out;
}

Expected<std::vector<SliceTiming>> timeSliceKernels(Runtime& rt, const BaselineRequest& q) {
  Expected<std::vector<SliceTiming>> out;
  if (!q.staged || q.M < 1 || q.N < 1 || q.N > kMaxRowElems) {
    out.status = Status::error(Status::kInvalidArgument, "time slices: needs a staged request with valid M and N");
    return out;
  }
  for (int P = 2; P <= 16; P *= 2) {
    if (!measuresSlice(q.geometry, q.N, P, rt.device().smemPerSmBytes, rt.device().smemOptinBytes)) continue;
    BaselineRequest s = q;
    s.registersOk = false;
    s.M = model::sliceRows(q.M, P);
    s.N = sliceElems(q.N, P);
    Expected<BaselineTiming> t = timeBaselineKernel(rt, s);
    if (!t.ok()) {
      out.status = Status::error(t.status.code, "T_slice for P = " + std::to_string(P) + ": " + t.status.message);
      return out;
    }
    out.value.push_back(SliceTiming{P, s.M, s.N, t.value});
  }
  return out;
}

}  // namespace credit
