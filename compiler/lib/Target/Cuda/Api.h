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
  LaunchCluster, LaunchStaged, LaunchReread,                // one per wanted variant
  Signature, MaxLegalN, LaunchGeneric, StatusString,        // always
  Plan, LaunchAuto, Autotune, LastPlan, LaunchAutoGeneric, AutotuneGeneric, DispatchMode, // --profile
  // Not in the header: test and benchmark aids.
  LaunchControl,                                            // the control variant
  MaxLegalNNamed, LaunchNamed,                              // a variant by name
};

/// The functions the generated file defines, in the order it defines them:
/// the public ones (the header declares them), then the aids.
llvm::SmallVector<ApiFn> apiFunctions(const KernelView &k);
/// Declared in the API header (the aids are not).
bool isPublic(ApiFn fn);
/// `typedef enum <prefix>_variant {...} <prefix>_variant;`: the variants the
/// launch API selects by (the numbering of credit_plan::variant).
std::string variantEnumC(const KernelView &k);
/// The configuration symbol: defined by the .cu, referenced by its header, so
/// that a program built against the header of another configuration with the
/// same prefix fails to link. `<prefix>_api_<8 hex digits>`, the digits a
/// hash of everything the header declares.
std::string configSymbol(const KernelView &k);
/// `int credit_K_launch_cluster(const float* x, ..., cudaStream_t stream)`: one
/// line, but for the generic launcher and the autotune functions, whose last
/// parameters go on a second line.
std::string prototype(const KernelView &k, ApiFn fn);
/// The data parameters: "const float* x, ..., float* y, " (empty if none).
std::string dataParams(const KernelView &k);
/// The data arguments' names: "x, gamma, beta, y".
std::string dataArgNames(const KernelView &k);
/// The entries of the argument array the API forwards: "x, gamma, beta, y, &eps"
/// (a runtime param by address).
std::string dataArgEntries(const KernelView &k);
/// "x:in:row:f32;gamma:in:broadcast:f32;...;y:out:row:f32[;eps:in:param:f32]".
std::string signatureString(const KernelView &k);
/// The launch API's status codes (the header's macros, the .cu's constants).
struct StatusCode {
  const char *macro; // suffix of CREDIT_K_STATUS_
  int value;
  const char *launchStatus; // the credit::LaunchStatus enumerator (1..7), or null
};
llvm::ArrayRef<StatusCode> statusCodes();

} // namespace credit::cuda

#endif // CREDIT_LIB_TARGET_CUDA_API_H
