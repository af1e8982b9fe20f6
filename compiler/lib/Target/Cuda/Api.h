//===- Api.h - the extern "C" launch API of a generated file -----*- C++ -*-===//
//
// Private to the CUDA emitter. The functions of the launch API and their
// prototypes, shared by their definitions in the .cu (LaunchApiPrinter) and
// their declarations in the API header (ApiHeaderPrinter).
//
//===----------------------------------------------------------------------===//
#ifndef CREDIT_LIB_TARGET_CUDA_API_H
#define CREDIT_LIB_TARGET_CUDA_API_H

#include "KernelView.h"

#include "llvm/ADT/SmallVector.h"

#include <string>

namespace credit::cuda {

enum class ApiFn {
  LaunchCluster, LaunchStaged, LaunchReread, LaunchControl, // one per wanted variant
  Signature, MaxLegalN, LaunchGeneric, StatusString,        // always
  Plan, LaunchAuto, Autotune, LastPlan, LaunchAutoGeneric, AutotuneGeneric, DispatchMode, // --profile
};

/// The functions the generated file defines, in the order it defines them.
llvm::SmallVector<ApiFn> apiFunctions(const KernelView &k);
/// `int credit_K_launch_cluster(const float* x, ..., cudaStream_t stream)`: one
/// line, but for the generic launcher and the autotune functions, whose last
/// parameters go on a second line.
std::string prototype(const KernelView &k, ApiFn fn);
/// The data parameters: "const float* x, ..., float* y, " (empty if none).
std::string dataParams(const KernelView &k);
/// The data arguments' names: "x, gamma, beta, y".
std::string dataArgNames(const KernelView &k);
/// "x:in:row:f32;gamma:in:broadcast:f32;...;y:out:row:f32".
std::string signatureString(const KernelView &k);
/// The launch API's status codes (the header's macros, the .cu's constants).
struct StatusCode {
  const char *macro; // suffix of CREDIT_K_STATUS_
  int value;
};
llvm::ArrayRef<StatusCode> statusCodes();

} // namespace credit::cuda

#endif // CREDIT_LIB_TARGET_CUDA_API_H
