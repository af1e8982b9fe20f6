#include "credit/runtime/Baseline.h"
#include "credit/runtime/Model.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <random>
#include <sstream>

namespace credit {

namespace {

struct ElemWord {
  const char* word;
  KernelArg::Type type;
  int bytes;
};
constexpr ElemWord kElemWords[] = {
    {"f32", KernelArg::F32, 4}, {"bf16", KernelArg::BF16, 2}, {"f16", KernelArg::F16, 2},
    {"i8", KernelArg::I8, 1},   {"u8", KernelArg::U8, 1},     {"bool", KernelArg::Bool, 1},
    {"i32", KernelArg::I32, 4}, {"i64", KernelArg::I64, 8},
};

// Where the language allows a type (docs/dsl.md, "Element types"): "" if `a` is
// allowed, else why not.
std::string misplacedType(const KernelArg& a, const std::string& word) {
  const bool perRow = a.kind == KernelArg::Scalar;
  if (!a.input && a.kind == KernelArg::Broadcast) return "an output is per-element (row) or per-row (scalar)";
  switch (a.type) {
    case KernelArg::F32: return "";
    case KernelArg::BF16:
    case KernelArg::F16:
    case KernelArg::I8:
      return perRow ? "a per-row " + std::string(a.input ? "input" : "output") + " is " +
                          (a.input ? "f32, i32 or i64" : "f32")
                    : "";
    case KernelArg::U8:
    case KernelArg::Bool:
      if (!a.input) return "a " + word + " argument is an input";
      return perRow ? "a " + word + " input is per-element (row or broadcast)" : "";
    case KernelArg::I32:
    case KernelArg::I64:
      if (!a.input) return "an " + word + " argument is an input";
      return perRow ? "" : "an " + word + " input is one value per row (scalar)";
  }
  return "";
}

}  // namespace

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
    const ElemWord* elem = nullptr;
    if (f.size() == 4)
      for (const ElemWord& w : kElemWords)
        if (f[3] == w.word) elem = &w;
    if (f.size() != 4 || f[0].empty() || (f[1] != "in" && f[1] != "out") ||
        (f[2] != "row" && f[2] != "broadcast" && f[2] != "scalar" && f[2] != "param") || !elem) {
      error = "malformed signature entry '" + item +
              "' (expected name:in|out:row|broadcast|scalar|param:f32|bf16|f16|i8|u8|bool|i32|i64)";
      return false;
    }
    KernelArg a;
    a.name = f[0];
    a.input = f[1] == "in";
    a.kind = f[2] == "row"         ? KernelArg::Row
             : f[2] == "broadcast" ? KernelArg::Broadcast
             : f[2] == "scalar"    ? KernelArg::Scalar
                                   : KernelArg::Param;
    a.type = elem->type;
    a.elemBytes = elem->bytes;
    const std::string why = a.kind == KernelArg::Param
                                ? (a.input && a.type == KernelArg::F32 ? "" : "a runtime param is an f32 input")
                                : misplacedType(a, f[3]);
    if (!why.empty()) {
      error = "malformed signature entry '" + item + "' (" + why + ")";
      return false;
    }
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
                                       bool registersOk, int vectorWidth, int keptInputs) {
  const std::string v = vectorWidth > 1 && N % vectorWidth == 0 ? std::to_string(vectorWidth) : "1";
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
  StagedForm form = stagedForm(geometry, N, registersOk, smemPerSm, smemOptin);
  if (form == StagedForm::WideCtaDeepRegisters && v == "1" && !hasScalarDeepRegisterForm(keptInputs))
    form = StagedForm::WideCtaSmem;
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

namespace {

// Random contents of an integer input `a` of `count` elements at `dst`: i32 / i64 class
// indices uniform in [0, N), bool masks about 3/4 true (0/1 bytes), u8 values in [0, 3]
// and i8 in [-3, 3] (small integers, mostly nonzero: as a mask, most entries kept).
Status copyIntegerInput(Runtime& rt, const KernelArg& a, CUdeviceptr dst, long long count, long long N,
                        std::mt19937& rng) {
  const std::size_t n = static_cast<std::size_t>(count);
  if (a.type == KernelArg::I32 || a.type == KernelArg::I64) {
    std::uniform_int_distribution<long long> cls(0, N - 1);
    if (a.type == KernelArg::I32) {
      std::vector<std::int32_t> host(n);
      for (std::int32_t& v : host) v = static_cast<std::int32_t>(cls(rng));
      return rt.copyToDevice(dst, host.data(), n * sizeof(std::int32_t));
    }
    std::vector<std::int64_t> host(n);
    for (std::int64_t& v : host) v = cls(rng);
    return rt.copyToDevice(dst, host.data(), n * sizeof(std::int64_t));
  }
  std::vector<std::uint8_t> host(n);
  std::uniform_int_distribution<int> quarter(0, 3), small(-3, 3);
  for (std::uint8_t& v : host) {
    if (a.type == KernelArg::Bool) v = quarter(rng) != 0 ? 1 : 0;
    else if (a.type == KernelArg::U8) v = static_cast<std::uint8_t>(quarter(rng));
    else v = static_cast<std::uint8_t>(static_cast<std::int8_t>(small(rng)));
  }
  return rt.copyToDevice(dst, host.data(), n);
}

}  // namespace

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
                                                       q.registersOk, q.vectorWidth, q.keptInputs);
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
  std::vector<float> paramValues;  // runtime params: 1 (the time does not depend on the value)
  for (std::size_t i = 0; i < args.size(); ++i) {
    const KernelArg& a = args[i];
    if (a.kind == KernelArg::Param) {
      paramValues.push_back(1.0f);
      continue;
    }
    const long long count = a.kind == KernelArg::Row ? q.M * q.N : a.kind == KernelArg::Broadcast ? q.N : q.M;
    const std::size_t bytes = static_cast<std::size_t>(count) * static_cast<std::size_t>(a.elemBytes);
    if (!(out.status = rt.allocate(bytes < 16 ? 16 : bytes, buffers[i])).ok()) return out;
    ptrs[i] = buffers[i].ptr();
    if (a.input && a.type != KernelArg::F32 && a.type != KernelArg::BF16 && a.type != KernelArg::F16) {
      // Integers: the data a workload over them sees (a class index per row, a mask), so
      // that data-dependent work (where(i == t, ...), masked entries) is as in use.
      if (!(out.status = copyIntegerInput(rt, a, ptrs[i], count, q.N, rng)).ok()) return out;
    } else if (a.input) {
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
  // The kernel's parameters: the data pointers, then the runtime params' values
  // (signature order lists the params last), M, N.
  std::vector<void*> params;
  for (std::size_t i = 0; i < args.size(); ++i)
    if (args[i].kind != KernelArg::Param) params.push_back(&ptrs[i]);
  for (float& v : paramValues) params.push_back(&v);
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
