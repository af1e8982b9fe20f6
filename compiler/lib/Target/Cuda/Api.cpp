//===- Api.cpp - the extern "C" launch API of a generated file ------------===//
#include "Api.h"

namespace credit::cuda {

llvm::SmallVector<ApiFn> apiFunctions(const KernelView &k) {
  llvm::SmallVector<ApiFn> fns;
  if (k.wants(Variant::Cluster))
    fns.push_back(ApiFn::LaunchCluster);
  if (k.wants(Variant::Staged))
    fns.push_back(ApiFn::LaunchStaged);
  if (k.wants(Variant::Reread))
    fns.push_back(ApiFn::LaunchReread);
  if (k.wants(Variant::Control))
    fns.push_back(ApiFn::LaunchControl);
  fns.append({ApiFn::Signature, ApiFn::MaxLegalN, ApiFn::LaunchGeneric, ApiFn::StatusString});
  if (k.options->dispatch)
    fns.append({ApiFn::Plan, ApiFn::LaunchAutoGeneric, ApiFn::AutotuneGeneric, ApiFn::LaunchAuto,
                ApiFn::Autotune, ApiFn::LastPlan, ApiFn::DispatchMode});
  return fns;
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

std::string signatureString(const KernelView &k) {
  std::string sig;
  for (const Operand *o : k.dataArgs())
    sig += (sig.empty() ? "" : ";") + o->src + (o->output ? ":out:" : ":in:") + o->kindWord().str() +
           (o->i8 ? ":i8" : ":f32");
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
    return "long long " + ns + "_max_legal_n(const char* variant, int P, int protocol)";
  case ApiFn::LaunchGeneric:
    return "int " + ns +
           "_launch_generic(const char* variant, void* const* args, long long M, long long N, int P,\n"
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
  static const StatusCode kCodes[] = {{"OK", 0},         {"BAD_PROTOCOL", 100},
                                      {"BAD_VARIANT", 101}, {"NO_PLAN", 102},
                                      {"BAD_TIMING", 103},  {"CUDA_ERROR_BASE", 1000}};
  return kCodes;
}

} // namespace credit::cuda
