//===- CudaEmitter.cpp - credit dialect → lean CUDA C++ -------------------===//
//
// The generated file, section by section (one printer each, Printers.h):
//   1. the header comment (formulas, schedule summary),
//   2. #include <credit/device/row_kernel.cuh>,
//   3. struct Workload, in the kernel's namespace,
//   4. one extern "C" kernel per form of the schedule and vector width,
//   5. the extern "C" launch API (host only), forwarding to the runtime.
// With --standalone the library's headers replace their #include lines.
//
//===----------------------------------------------------------------------===//
#include "credit/Target/Cuda/CudaEmitter.h"

#include "ExprPrinter.h"
#include "Printers.h"
#include "Standalone.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

namespace cr = mlir::credit;
using namespace ::credit::cuda;

std::optional<credit::Variant> credit::parseVariant(llvm::StringRef n) {
  return llvm::StringSwitch<std::optional<Variant>>(n)
      .Case("cluster", Variant::Cluster)
      .Case("reread", Variant::Reread)
      .Case("staged", Variant::Staged)
      .Case("control", Variant::Control)
      .Default(std::nullopt);
}

llvm::StringRef credit::variantName(Variant v) {
  switch (v) {
  case Variant::Cluster: return "cluster";
  case Variant::Reread: return "reread";
  case Variant::Staged: return "staged";
  case Variant::Control: return "control";
  }
  return "?";
}

std::optional<std::string> credit::checkSymbolPrefix(llvm::StringRef prefix) {
  if (prefix.empty() || prefix.size() > 64)
    return std::string("it must have 1 to 64 characters");
  if (!(llvm::isAlpha(prefix[0]) || prefix[0] == '_'))
    return std::string("it must start with a letter or '_'");
  for (char c : prefix)
    if (!(llvm::isAlnum(c) || c == '_'))
      return std::string("it may use only letters, digits and '_'");
  if (prefix.contains("__") || (prefix[0] == '_' && prefix.size() > 1 && llvm::isUpper(prefix[1])))
    return std::string("names with '__', or starting with '_' and an upper-case letter, are reserved "
                       "in C and C++");
  // The prefix names the file's namespace too: none the generated code uses.
  bool taken = NameSupply::isKeyword(prefix) ||
               llvm::is_contained({"credit", "cuda", "std", "cub", "thrust", "nvcuda",
                                   "cooperative_groups", "main"},
                                  prefix);
  if (taken)
    return std::string("it is a keyword or a namespace the generated code uses");
  return std::nullopt;
}

mlir::LogicalResult credit::emitCuda(cr::KernelOp kernel, const CudaEmitOptions &options,
                                     llvm::raw_ostream &out) {
  mlir::FailureOr<std::unique_ptr<KernelView>> view = buildKernelView(kernel, options);
  if (failed(view))
    return mlir::failure();
  // The reread kernels' own stages, where the file has reread kernels.
  CudaEmitOptions rereadOptions = options;
  rereadOptions.rereadKernel = nullptr;
  std::unique_ptr<KernelView> rereadView;
  if (options.rereadKernel && (*view)->emits(cr::Form::Reread)) {
    mlir::FailureOr<std::unique_ptr<KernelView>> r = buildKernelView(options.rereadKernel, rereadOptions);
    if (failed(r))
      return mlir::failure();
    rereadView = std::move(*r);
    (*view)->reread = rereadView.get();
  }
  const KernelView &k = **view;
  std::string text;
  {
    llvm::raw_string_ostream raw(text);
    mlir::raw_indented_ostream os(raw);
    printHeaderComment(k, os);
    os << "#include <credit/device/row_kernel.cuh>\n";
    bool nonFinite = false;
    kernel.walk([&](mlir::Operation *op) { nonFinite |= isNonFiniteConstant(op); });
    if (nonFinite)
      os << "#include <cuda/std/limits>  // infinity, NaN\n";
    os << "\n";
    os << "namespace CREDIT_LOCAL " << k.prefix << " {\nusing namespace credit::device;\n\n";
    if (failed(printWorkload(k, os)))
      return mlir::failure();
    os << "\n";
    if (k.reread) {
      os << "// The reread kernels stream the row from memory in every pass: they run the\n"
         << "// online statistic, one pass fewer (creditc --fuse-online).\n";
      if (failed(printWorkload(*k.reread, os, "RereadWorkload")))
        return mlir::failure();
      os << "\n";
    }
    printToolFigures(k, os);
    os << "\n}  // namespace " << k.prefix << "\n\n";
    printKernelList(k, os);
    os << "\n";
    printLaunchApi(k, os);
  }
  if (options.standalone && failed(inlineLibraryHeaders(text, kernel)))
    return mlir::failure();
  out << text;
  return mlir::success();
}

mlir::LogicalResult credit::emitCudaHeader(cr::KernelOp kernel, const CudaEmitOptions &options,
                                           llvm::raw_ostream &out) {
  mlir::FailureOr<std::unique_ptr<KernelView>> view = buildKernelView(kernel, options);
  if (failed(view))
    return mlir::failure();
  printApiHeader(**view, out);
  return mlir::success();
}
