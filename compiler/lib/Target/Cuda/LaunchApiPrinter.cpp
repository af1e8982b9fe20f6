//===- LaunchApiPrinter.cpp - the extern "C" launch API of a generated file -===//
//
// Host code only (not under NVRTC): the table of the file's kernels, the
// workload's host description, and the extern "C" functions, each forwarding
// to the runtime's generic launchers (credit/runtime/Launch.h) and, with
// --profile, to the dispatch (credit/runtime/Dispatch.h).
//
//===----------------------------------------------------------------------===//
#include "Api.h"
#include "Printers.h"

namespace cr = mlir::credit;

namespace credit::cuda {
namespace {

bool hasPersistentKernel(const KernelView &k) {
  for (const KernelInstance &i : k.kernels())
    if (llvm::StringRef(cr::stringifyForm(i.form)).starts_with("persistent"))
      return true;
  return false;
}

/// The body of an API function: `return credit::host::<call>;`, after the
/// data arguments as an array where the call takes them.
void printForward(const KernelView &k, ApiFn fn, llvm::raw_ostream &out) {
  const std::string args = "const void* args[] = {" + dataArgEntries(k) + "};\n  ";
  std::string body;
  llvm::raw_string_ostream os(body);
  switch (fn) {
  case ApiFn::LaunchCluster:
    os << args << "return credit::host::launchCluster(kWorkload, args, M, N, P, protocol, stream);";
    break;
  case ApiFn::LaunchStaged:
    os << args << "return credit::host::launchStaged(kWorkload, args, M, N, stream);";
    break;
  case ApiFn::LaunchReread:
    os << args << "return credit::host::launchReread(kWorkload, args, M, N, stream);";
    break;
  case ApiFn::LaunchControl:
    os << "return credit::host::launchControl(kWorkload, M, N, P, protocol, stream);";
    break;
  case ApiFn::Signature:
    os << "return \"" << signatureString(k) << "\";";
    break;
  case ApiFn::MaxLegalN:
    os << "return credit::host::maxLegalN(kWorkload, credit::host::apiVariantName(variant), P, protocol);";
    break;
  case ApiFn::LaunchGeneric:
    os << "return credit::host::launchGeneric(kWorkload, credit::host::apiVariantName(variant), args, M, N, P,\n"
          "                                     protocol, stream);";
    break;
  case ApiFn::MaxLegalNNamed:
    os << "return credit::host::maxLegalN(kWorkload, variant, P, protocol);";
    break;
  case ApiFn::LaunchNamed:
    os << "return credit::host::launchGeneric(kWorkload, variant, args, M, N, P, protocol, stream);";
    break;
  case ApiFn::StatusString:
    os << "return credit::host::statusString(status);";
    break;
  case ApiFn::Plan:
    os << "return credit::host::plan(kDispatch, M, N, tB_ms, out);";
    break;
  case ApiFn::LaunchAuto:
    if (k.options->dispatch)
      os << args << "return credit::host::launchAuto(kDispatch, args, M, N, stream);";
    else
      os << args << "return credit::host::launchBaseline(kWorkload, args, M, N, stream);";
    break;
  case ApiFn::Autotune:
    os << args << "return credit::host::autotune(kDispatch, args, M, N, stream, model, tuned);";
    break;
  case ApiFn::LastPlan:
    os << "return credit::host::lastPlan(kDispatch, M, N, out);";
    break;
  case ApiFn::LaunchAutoGeneric:
    os << "return credit::host::launchAuto(kDispatch, args, M, N, stream);";
    break;
  case ApiFn::AutotuneGeneric:
    os << "return credit::host::autotune(kDispatch, args, M, N, stream, model, tuned);";
    break;
  case ApiFn::DispatchMode:
    os << "return credit::host::setMode(kDispatch, mode);";
    break;
  }
  // The signature on one line: tools read it there.
  if (fn == ApiFn::Signature)
    out << prototype(k, fn) << " { " << body << " }\n";
  else
    out << prototype(k, fn) << " {\n  " << body << "\n}\n";
}

} // namespace

void printLaunchApi(const KernelView &k, llvm::raw_ostream &os) {
  const bool dispatch = k.options->dispatch.has_value();
  const bool claims = hasPersistentKernel(k);
  os << "// ===== launch API (not compiled by NVRTC) =====\n";
  os << "#if !defined(__CUDACC_RTC__)\n";
  if (dispatch)
    os << "#include <credit/runtime/Dispatch.h>\n";
  os << "#include <credit/runtime/Launch.h>\n\n";
  os << "namespace CREDIT_LOCAL " << k.prefix << " {\n";
  if (claims)
    os << "// The persistent form's row-claim counter (credit::host::RowClaimLease).\n"
       << "__device__ unsigned row_claims_counter[2];\n\n";
  os << "using credit::Form;\nusing credit::host::kernel;\n";
  os << "inline const credit::host::Kernel kKernels[] = {\n";
  for (const KernelInstance &i : k.kernels())
    os << "    {Form::" << formEnumerator(i.form) << ", " << (i.vec ? i.vec : 1) << ", kernel(" << i.name
       << ")},\n";
  os << "};\n";
  os << "inline const credit::host::Workload kWorkload =\n"
     << "    credit::host::describe<Workload" << (k.reread ? ", RereadWorkload" : "") << ">(kKernels, " << (claims ? "row_claims_counter" : "nullptr")
     << ", target);\n";
  if (dispatch)
    printDispatchData(k, os);
  os << "}  // namespace " << k.prefix << "\n\n";
  // The header's status macros are the runtime's codes.
  for (const StatusCode &c : statusCodes())
    if (c.launchStatus)
      os << "static_assert(static_cast<int>(credit::LaunchStatus::" << c.launchStatus << ") == " << c.value
         << ", \"status " << c.macro << "\");\n";
  // (The header, when it is force-included, defines the same enum.)
  const std::string guard = llvm::StringRef(k.prefix).upper() + "_API_H";
  os << "\n#ifndef " << guard << "\n" << variantEnumC(k) << "#endif\n\n";
  os << "extern \"C\" {\n";
  if (dispatch)
    os << "using " << k.prefix << "::kDispatch;\n";
  os << "using " << k.prefix << "::kWorkload;\n\n";
  os << "// Referenced by the API header of this configuration only (a header of another one\n"
     << "// fails to link against this file).\n"
     << "extern const int " << configSymbol(k) << " = 1;\n\n";
  bool aids = false;
  for (ApiFn fn : apiFunctions(k)) {
    if (fn == ApiFn::Plan)
      os << "\n";
    if (!isPublic(fn) && !aids) {
      aids = true;
      os << "\n// Test and benchmark aids, not in the header: the control kernels, and any variant by\n"
         << "// name, the test forms too (credit::host::launchGeneric).\n";
    }
    printForward(k, fn, os);
  }
  os << "}  // extern \"C\"\n";
  os << "#endif  // !defined(__CUDACC_RTC__)\n";
}

} // namespace credit::cuda
