//===- Api.cpp - the extern "C" launch API of a generated file ------------===//
#include "Api.h"

#include <cstdint>
#include <cstdio>

namespace credit::cuda {

llvm::SmallVector<ApiFn> apiFunctions(const KernelView &k) {
  llvm::SmallVector<ApiFn> fns;
  if (k.wants(Variant::Cluster))
    fns.push_back(ApiFn::LaunchCluster);
  if (k.wants(Variant::Staged))
    fns.push_back(ApiFn::LaunchStaged);
  if (k.wants(Variant::Reread))
    fns.push_back(ApiFn::LaunchReread);
  fns.append({ApiFn::Signature, ApiFn::MaxLegalN, ApiFn::LaunchGeneric, ApiFn::StatusString});
  if (k.options->dispatch)
    fns.append({ApiFn::Plan, ApiFn::LaunchAutoGeneric, ApiFn::AutotuneGeneric, ApiFn::LaunchAuto,
                ApiFn::Autotune, ApiFn::LastPlan, ApiFn::DispatchMode});
  else if (!::credit::hasClusters(k.target) && k.wants(Variant::Staged) && k.wants(Variant::Reread))
    fns.push_back(ApiFn::LaunchAuto); // staged where it fits, else reread
  if (k.wants(Variant::Control))
    fns.push_back(ApiFn::LaunchControl);
  fns.append({ApiFn::MaxLegalNNamed, ApiFn::LaunchNamed});
  return fns;
}

bool isPublic(ApiFn fn) {
  return fn != ApiFn::LaunchControl && fn != ApiFn::MaxLegalNNamed && fn != ApiFn::LaunchNamed;
}

std::string variantEnumC(const KernelView &k) {
  const std::string up = llvm::StringRef(k.prefix).upper();
  return "typedef enum " + k.prefix + "_variant {\n  " + up + "_VARIANT_REREAD = 0,\n  " + up +
         "_VARIANT_STAGED = 1,\n  " + up + "_VARIANT_CLUSTER = 2\n} " + k.prefix + "_variant;\n";
}

std::string configSymbol(const KernelView &k) {
  // FNV-1a over the declarations and the constants of the header.
  std::string text = signatureString(k) + "|" + std::to_string(k.schedule.threads);
  for (ApiFn fn : apiFunctions(k))
    if (isPublic(fn))
      text += "|" + prototype(k, fn);
  uint32_t h = 2166136261u;
  for (unsigned char c : text)
    h = (h ^ c) * 16777619u;
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", h);
  return k.prefix + "_api_" + hex;
}

std::string dataParams(const KernelView &k) {
  std::string s;
  for (const Operand *o : k.dataArgs())
    s += o->pointerType() + " " + o->name + ", ";
  return s;
}

std::string dataArgNames(const KernelView &k) {
  std::string s;
  for (const Operand *o : k.dataArgs())
    s += (s.empty() ? "" : ", ") + o->name;
  return s;
}

std::string dataArgEntries(const KernelView &k) {
  std::string s;
  for (const Operand *o : k.dataArgs())
    s += (s.empty() ? "" : ", ") + o->argEntry();
  return s;
}

std::string signatureString(const KernelView &k) {
  std::string sig;
  for (const Operand *o : k.dataArgs())
    sig += (sig.empty() ? "" : ";") + o->src + (o->output ? ":out:" : ":in:") + o->kindWord().str() +
           ":" + o->elemWord().str();
  return sig;
}

std::string prototype(const KernelView &k, ApiFn fn) {
  const std::string &ns = k.prefix;
  const std::string data = dataParams(k);
  switch (fn) {
  case ApiFn::LaunchCluster:
    return "int " + ns + "_launch_cluster(" + data +
           "long long M, long long N, int P, int protocol, cudaStream_t stream)";
  case ApiFn::LaunchStaged:
    return "int " + ns + "_launch_staged(" + data + "long long M, long long N, cudaStream_t stream)";
  case ApiFn::LaunchReread:
    return "int " + ns + "_launch_reread(" + data + "long long M, long long N, cudaStream_t stream)";
  case ApiFn::LaunchControl:
    return "int " + ns + "_launch_control(long long M, long long N, int P, int protocol, cudaStream_t stream)";
  case ApiFn::Signature:
    return "const char* " + ns + "_signature()";
  case ApiFn::MaxLegalN:
    return "long long " + ns + "_max_legal_n(" + ns + "_variant variant, int P, int protocol)";
  case ApiFn::LaunchGeneric:
    return "int " + ns + "_launch_generic(" + ns +
           "_variant variant, void* const* args, long long M, long long N,\n"
           "    int P, int protocol, cudaStream_t stream)";
  case ApiFn::MaxLegalNNamed:
    return "long long " + ns + "_max_legal_n_named(const char* variant, int P, int protocol)";
  case ApiFn::LaunchNamed:
    return "int " + ns +
           "_launch_named(const char* variant, void* const* args, long long M, long long N, int P,\n"
           "    int protocol, cudaStream_t stream)";
  case ApiFn::StatusString:
    return "const char* " + ns + "_status_string(int status)";
  case ApiFn::Plan:
    return "int " + ns + "_plan(long long M, long long N, double tB_ms, credit_plan* out)";
  case ApiFn::LaunchAuto:
    return "int " + ns + "_launch_auto(" + data + "long long M, long long N, cudaStream_t stream)";
  case ApiFn::Autotune:
    return "int " + ns + "_autotune(" + data +
           "long long M, long long N, cudaStream_t stream,\n    credit_plan* model, credit_plan* tuned)";
  case ApiFn::LastPlan:
    return "int " + ns + "_last_plan(long long M, long long N, credit_plan* out)";
  case ApiFn::LaunchAutoGeneric:
    return "int " + ns + "_launch_auto_generic(void* const* args, long long M, long long N, cudaStream_t stream)";
  case ApiFn::AutotuneGeneric:
    return "int " + ns +
           "_autotune_generic(void* const* args, long long M, long long N, cudaStream_t stream,\n"
           "    credit_plan* model, credit_plan* tuned)";
  case ApiFn::DispatchMode:
    return "int " + ns + "_dispatch_mode(int mode)";
  }
  return "";
}

llvm::ArrayRef<StatusCode> statusCodes() {
  static const StatusCode kCodes[] = {{"OK", 0, nullptr},
                                      {"NULL_POINTER", 1, "NullPointer"},
                                      {"MISALIGNED", 2, "Misaligned"},
                                      {"BAD_SHAPE", 3, "BadShape"},
                                      {"BAD_CLUSTER_SIZE", 4, "BadClusterSize"},
                                      {"CLUSTER_TOO_LARGE", 5, "ClusterTooLarge"},
                                      {"SMEM_TOO_LARGE", 6, "SmemTooLarge"},
                                      {"NOT_LEGAL", 7, "NotLegal"},
                                      {"BAD_PROTOCOL", 100, nullptr},
                                      {"BAD_VARIANT", 101, nullptr},
                                      {"NO_PLAN", 102, nullptr},
                                      {"BAD_TIMING", 103, nullptr},
                                      {"CUDA_ERROR_BASE", 1000, nullptr}};
  return kCodes;
}

} // namespace credit::cuda
