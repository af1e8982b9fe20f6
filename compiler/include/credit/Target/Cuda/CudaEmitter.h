//===- CudaEmitter.h - credit dialect → CUDA C++ -----------------*- C++ -*-===//
//
// Prints the lean CUDA C++ file of one analysed, scheduled `credit.kernel`:
// a header comment, `struct Workload` (the workload's element terms, combines,
// row-level math and its schedule's decisions as constants), one extern "C"
// kernel per form of the schedule (instances of the device library's row
// kernel, credit/device/row_kernel.cuh), and the extern "C" launch API, which
// forwards to the runtime's host headers. The file #includes the library;
// --standalone inlines it. docs/codegen.md describes the generated code.
//
//===----------------------------------------------------------------------===//
#ifndef CREDIT_TARGET_CUDA_CUDAEMITTER_H
#define CREDIT_TARGET_CUDA_CUDAEMITTER_H

#include "credit/Dialect/Credit/IR/CreditDialect.h"
#include "credit/runtime/Layout.h"
#include "credit/runtime/Model.h"

#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace credit {

enum class Variant { Cluster, Reread, Staged, Control };

/// Parses "cluster", "reread", "staged", "control".
std::optional<Variant> parseVariant(llvm::StringRef name);
llvm::StringRef variantName(Variant v);

/// A device profile's figures and the kernel's traffic, compiled into the
/// generated file for its model-driven dispatch (`creditc --profile`,
/// docs/cost-model.md). Nothing in the device figures is per kernel.
struct DispatchProfile {
  std::string path;        // where the profile came from (header comment)
  std::string deviceName;  // device.name
  ::credit::model::Device device{};
  ::credit::model::Traffic traffic{};  // bytes per element (docs/report.md) and sum q
};

struct CudaEmitOptions {
  std::string arch = "sm_90";     // sm_90, sm_100, sm_120
  std::vector<Variant> variants;  // empty: all
  std::string sourceName;         // the .credit path (its ops' location), for the header comment
  std::string sourceText;         // its text, for the names of lets (never read from disk)
  /// Prefix of every extern "C" symbol, macro and include guard of the files
  /// (creditc --prefix); empty: credit_<kernel>.
  std::string prefix;
  int threads = 256;              // threads per CTA (128, 256, 512, 1024)
  /// Element-level exp, log and division in their fast forms (fast_exp,
  /// __logf, __fdividef: a few ulp instead of IEEE / correctly rounded);
  /// row-level math stays exact. creditc turns it on where the kernel's element
  /// data is 16-bit (mlir::credit::hasHalfPrecisionElementData).
  bool fastMath = false;
  /// What --fast-math is when not given, for this kernel: the options line of
  /// the header comment says --fast-math=false where that is on and fastMath off.
  bool fastMathByDefault = false;
  /// With a profile: also the model-driven dispatch API (_plan, _launch_auto,
  /// _autotune, _last_plan).
  std::optional<DispatchProfile> dispatch;
  /// The reread kernels' own stages (the same kernel with online statistics,
  /// creditc --fuse-online=reread), printed as `struct RereadWorkload`; null:
  /// they run `Workload`.
  mlir::credit::KernelOp rereadKernel = nullptr;
  /// One self-contained file: the library's headers inlined instead of
  /// #included (the runtime embeds their texts).
  bool standalone = false;
};

/// Why `prefix` cannot prefix the generated files' symbols (creditc
/// --prefix), or nothing when it can: a C identifier of at most 64 characters,
/// not reserved (`__`, `_` + upper case), no keyword, and no namespace the
/// generated code itself uses (credit, cuda, std, ...).
std::optional<std::string> checkSymbolPrefix(llvm::StringRef prefix);

/// Emits the CUDA C++ translation unit for `kernel` (which must have passed the
/// analysis pipeline and been accepted). Errors are emitted on the op.
mlir::LogicalResult emitCuda(mlir::credit::KernelOp kernel, const CudaEmitOptions &options,
                             llvm::raw_ostream &os);

/// Emits the C/C++ header declaring the extern "C" launch API of the file that
/// emitCuda writes for the same kernel and options (`creditc --emit=header`,
/// `--header=<file>`): prototypes and status-code macros, no CUDA code.
mlir::LogicalResult emitCudaHeader(mlir::credit::KernelOp kernel, const CudaEmitOptions &options,
                                   llvm::raw_ostream &os);

} // namespace credit

#endif // CREDIT_TARGET_CUDA_CUDAEMITTER_H
