#include "Program.h"

#include "CubinSymbol.h"

#include "credit/runtime/KernelCache.h"

#include <chrono>
#include <cstdint>
#include <cstdio>

namespace credit::capi {

namespace {

std::string jsonString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

bool hasFormIn(const std::vector<Form>& forms, Form f) {
  for (Form g : forms)
    if (g == f) return true;
  return false;
}

// The launch API's variants the file generated, and the extra ones of launch_generic.
std::vector<std::string> variantsOf(const std::vector<Form>& forms) {
  std::vector<std::string> v;
  const bool cluster = hasFormIn(forms, Form::ClusterSync);
  if (cluster) v.push_back("cluster");
  if (hasFormIn(forms, Form::Staged)) v.push_back("staged");
  if (hasFormIn(forms, Form::Reread)) v.push_back("reread");
  if (hasFormIn(forms, Form::ControlSync)) v.push_back("control");
  if (cluster && hasFormIn(forms, Form::ClusterRegsSync)) v.push_back("cluster_regs");
  if (cluster) v.push_back("cluster_full");
  if (cluster && hasFormIn(forms, Form::ClusterPartialSync)) v.push_back("cluster_partial");
  if (cluster && hasFormIn(forms, Form::Persistent)) {
    v.push_back("cluster_rowwise");
    v.push_back("cluster_persistent");
    v.push_back("cluster_persistent_static");
  }
  if (hasFormIn(forms, Form::Staged)) v.push_back("staged_smem");
  return v;
}

std::string infoJson(const Program& p, const CachedNvrtcResult& r, double compileMs, const std::string& arch) {
  const host::Workload& w = p.workload;
  std::string j = "{";
  j += "\"kernel\": " + jsonString(p.file.kernel);
  j += ", \"signature\": " + jsonString(p.file.signature);
  j += ", \"arch\": " + jsonString(arch);
  j += ", \"file_arch\": " + jsonString(p.file.arch);
  j += ", \"kernels\": [";
  for (size_t i = 0; i < p.file.kernels.size(); ++i)
    j += std::string(i ? ", " : "") + "{\"name\": " + jsonString(p.file.kernels[i].name) +
         ", \"form\": " + jsonString(p.file.kernels[i].form) + ", \"vec\": " + std::to_string(p.record.vecs[i]) + "}";
  j += "], \"workload\": {\"threads\": " + std::to_string(w.geometry.threads) +
       ", \"wide_threads\": " + std::to_string(w.wideGeometry.threads) +
       ", \"stages\": " + std::to_string(w.geometry.numStages) +
       ", \"reread_threads\": " + std::to_string(w.rereadGeometry.threads) +
       ", \"reread_stages\": " + std::to_string(w.rereadGeometry.numStages) + ", \"num_args\": " + std::to_string(w.numArgs) +
       ", \"num_params\": " + std::to_string(w.numParams) + ", \"arg_kind\": [";
  for (int a = 0; a < w.numArgs + w.numParams; ++a) j += std::string(a ? ", " : "") + std::to_string(w.argKind[a]);
  j += "], \"arg_bytes\": [";
  for (int a = 0; a < w.numArgs + w.numParams; ++a) j += std::string(a ? ", " : "") + std::to_string(w.argBytes[a]);
  j += "]}, \"has_profile\": " + std::string(p.file.profile.present ? "true" : "false");
  j += ", \"variants\": [";
  const std::vector<std::string> v = variantsOf(p.record.forms);
  for (size_t i = 0; i < v.size(); ++i) j += std::string(i ? ", " : "") + jsonString(v[i]);
  j += "], \"from_cache\": " + std::string(r.fromCache ? "true" : "false");
  j += ", \"compile_ms\": " + std::to_string(compileMs);
  j += ", \"cubin_bytes\": " + std::to_string(p.cubin.size());
  j += ", \"cache_key\": " + jsonString(r.key) + ", \"cache_entry\": " + jsonString(r.entryPath);
  j += ", \"warning\": " + jsonString(r.warning) + ", \"log\": " + jsonString(r.log) + "}";
  return j;
}

}  // namespace

host::Workload Program::formsOnly() const {
  host::Workload w = workload;
  w.kernels = placeholder.data();
  w.numKernels = static_cast<int>(placeholder.size());
  return w;
}

std::string createProgram(const std::string& source, const std::string& name, const std::string& arch,
                          const std::string& cacheDir, bool useCache, Program& p) {
  if (std::string err = parseGeneratedFile(source, p.file); !err.empty()) return name + ": " + err;
  NvrtcOptions opts;
  opts.arch = arch.empty() ? (p.file.arch.empty() ? "sm_90" : p.file.arch) : arch;
  CacheOptions cache;
  cache.dir = cacheDir;
  cache.enabled = useCache;
  const auto t0 = std::chrono::steady_clock::now();
  CachedNvrtcResult r = compileCached(source + recordSuffix(p.file), name, opts, cache);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (!r.ok) return name + ": NVRTC could not compile the file for " + opts.arch + ":\n" + r.log;
  if (r.cubin.empty()) return name + ": NVRTC produced no cubin (arch " + opts.arch + " must be sm_*)";
  std::vector<char> bytes;
  if (std::string err = readCubinSymbol(r.cubin, recordSymbol(p.file), bytes); !err.empty()) return name + ": " + err;
  if (std::string err = decodeRecord(bytes, p.file, p.record); !err.empty()) return name + ": " + err;
  p.workload = p.record.workload;
  p.cubin = std::move(r.cubin);
  for (size_t i = 0; i < p.record.forms.size(); ++i)
    p.placeholder.push_back(host::Kernel{p.record.forms[i], p.record.vecs[i], reinterpret_cast<const void*>(std::uintptr_t{1})});
  if (p.file.profile.present) {
    p.profile.device = p.file.profile.device;
    p.profile.traffic = p.file.profile.traffic;
  }
  p.dispatch = host::Dispatch{&p.workload, &p.profile, &p.plans};
  p.info = infoJson(p, r, ms, opts.arch);
  return "";
}

std::string loadProgram(Program& p) {
  std::lock_guard<std::mutex> lock(p.mutex);
  if (p.loaded) return "";
  cudaLibrary_t lib = nullptr;
  cudaError_t err = cudaLibraryLoadData(&lib, p.cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return std::string("cannot load the compiled kernels: ") + cudaGetErrorString(err);
  }
  std::vector<host::Kernel> kernels;
  for (size_t i = 0; i < p.file.kernels.size(); ++i) {
    cudaKernel_t k = nullptr;
    err = cudaLibraryGetKernel(&k, lib, p.file.kernels[i].name.c_str());
    if (err != cudaSuccess) {
      (void)cudaGetLastError();
      (void)cudaLibraryUnload(lib);
      return "kernel " + p.file.kernels[i].name + " not found in the compiled image: " + cudaGetErrorString(err);
    }
    // A cudaKernel_t stands for a kernel's entry in every runtime call that takes one.
    kernels.push_back(host::Kernel{p.record.forms[i], p.record.vecs[i], reinterpret_cast<const void*>(k)});
  }
  p.kernels = std::move(kernels);
  p.library = lib;
  p.workload.kernels = p.kernels.data();
  p.workload.numKernels = static_cast<int>(p.kernels.size());
  // The row-claim counter is a host symbol of the launch API, which NVRTC does not
  // compile: the persistent form runs with the static rows.
  p.workload.rowClaims = nullptr;
  p.loaded = true;
  return "";
}

int launchStructural(Program& p, const void* const* args, long long M, long long N, cudaStream_t stream,
                     credit_plan* plan) {
  const host::Workload& w = p.workload;
  int device = 0, optin = 0;
  if (int status = host::deviceAndOptin(&device, &optin)) return status;
  credit_plan decided = {};
  decided.source = 3;
  decided.P = 1;
  int status = credit::kStatusBadVariant;
  if (host::hasForm(w, Form::Staged) && isLegal(w.geometry, N, 1, Protocol::Sync, optin)) {
    decided.variant = decided.baseline = 1;
    status = host::launchGeneric(w, "staged", args, M, N, 1, 0, stream);
  } else {
    decided.variant = decided.baseline = 0;
    if (host::hasForm(w, Form::ClusterSync))
      for (int P = 2; P <= w.target.maxNonPortableCluster; P *= 2) {
        if (!isLegal(w.geometry, N, P, Protocol::Mbarrier, optin)) continue;
        status = host::launchGeneric(w, "cluster", args, M, N, P, 1, stream);
        if (status == static_cast<int>(LaunchStatus::ClusterTooLarge)) continue;
        decided.variant = 2;
        decided.P = P;
        decided.protocol = 1;
        break;
      }
    if (decided.variant != 2 && host::hasForm(w, Form::Reread))
      status = host::launchGeneric(w, "reread", args, M, N, 1, 0, stream);
  }
  if (status == credit::kStatusOk) {
    p.plans.store(device, M, N, decided);
    if (plan != nullptr) *plan = decided;
  }
  return status;
}

}  // namespace credit::capi
