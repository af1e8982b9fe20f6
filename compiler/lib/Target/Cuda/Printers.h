//===- Printers.h - the printers of the generated files ----------*- C++ -*-===//
//
// Private to the CUDA emitter: one printer per section of the generated .cu
// and one for the API header. Each reads the KernelView and prints; none
// decides anything about the kernel.
//
//===----------------------------------------------------------------------===//
#ifndef CREDIT_LIB_TARGET_CUDA_PRINTERS_H
#define CREDIT_LIB_TARGET_CUDA_PRINTERS_H

#include "KernelView.h"

#include "mlir/Support/IndentedOstream.h"

#include "llvm/Support/raw_ostream.h"

namespace credit::cuda {

/// The header comment: kernel, source, version, formulas, schedule summary.
void printHeaderComment(const KernelView &k, llvm::raw_ostream &os);
/// The value of `op` as a formula in the source's names ("exp(x - m)").
std::string formulaOf(const KernelView &k, mlir::Operation *op);
/// `struct Workload`: constants, Row, begin_row, pass, finish, end_row,
/// control_value. Fails (errors on the op) on an op it cannot print.
mlir::LogicalResult printWorkload(const KernelView &k, mlir::raw_indented_ostream &os,
                                  llvm::StringRef structName = "Workload");
/// The figures tools read from the file (geometry, K_sync, K_mbarrier,
/// target), checked against the Workload's at compile time.
void printToolFigures(const KernelView &k, llvm::raw_ostream &os);
/// One extern "C" kernel per form and vector width.
void printKernelList(const KernelView &k, llvm::raw_ostream &os);
/// The extern "C" launch API (host only), forwarding to the runtime's
/// Launch.h, and with --profile the dispatch (Dispatch.h).
void printLaunchApi(const KernelView &k, llvm::raw_ostream &os);
/// With --profile: the device's and the kernel's figures for the dispatch.
void printDispatchData(const KernelView &k, llvm::raw_ostream &os);
/// The API header (--emit=header): prototypes and status-code macros.
void printApiHeader(const KernelView &k, llvm::raw_ostream &os);
/// The C definition of `credit_plan` (the dispatch's decision), guarded.
llvm::StringRef planStructC();

} // namespace credit::cuda

#endif // CREDIT_LIB_TARGET_CUDA_PRINTERS_H
