//===- KernelView.h - what the CUDA printers read of one kernel -*- C++ -*-===//
//
// Private to the CUDA emitter. The facts every printer of the generated files
// reads, gathered once from the IR and the kernel's schedule: the operands in
// signature order with their C++ names, the params, the stages, h, and the
// forms to instantiate. It decides nothing: the schedule says which forms
// exist, `--variant` only selects among them.
//
//===----------------------------------------------------------------------===//
#ifndef CREDIT_LIB_TARGET_CUDA_KERNELVIEW_H
#define CREDIT_LIB_TARGET_CUDA_KERNELVIEW_H

#include "NameSupply.h"

#include "credit/Dialect/Credit/IR/CreditDialect.h"
#include "credit/Dialect/Credit/Transforms/Schedule.h"
#include "credit/Target/Cuda/CudaEmitter.h"

#include "llvm/ADT/SmallVector.h"

#include <string>

namespace credit::cuda {

/// A data argument of the kernels and the launch API, or a runtime param (an
/// f32 the kernels take by value and the argument arrays by address).
struct Operand {
  enum Kind { Row, Broadcast, PerRow, Param };
  mlir::Operation *op = nullptr; // InputOp, OutputOp or ParamOp
  std::string src;               // the .credit name
  std::string name;              // its C++ name (parameters of the kernels and the API)
  Kind kind = Row;
  bool output = false;
  /// The storage type: f32, bf16, f16 (row and broadcast operands), i8 (also
  /// inputs), u8 and bool (inputs), i32 and i64 (per-row inputs).
  enum Elem { F32, I8, BF16, F16, U8, Bool, I32, I64 } elem = F32;
  unsigned index = 0;            // among the inputs, the outputs or the runtime params

  /// "const float*", "__nv_bfloat16*", "int8_t*", ...; "float" for a param.
  std::string pointerType() const;
  /// Its entry of an argument array: the pointer, or a param's address.
  std::string argEntry() const { return kind == Param ? "&" + name : name; }
  /// "float", "__nv_bfloat16", "__half", "int8_t".
  llvm::StringRef storageType() const;
  /// The device library's name: "Elem::F32", "Elem::BF16", ...
  llvm::StringRef elemEnumerator() const;
  /// The signature string's word: "f32", "bf16", "f16", "i8".
  llvm::StringRef elemWord() const;
  /// Bytes per element.
  int elementBytes() const;
  /// "row", "broadcast", "scalar", "param" (the signature string's words).
  llvm::StringRef kindWord() const;
};

/// One extern "C" kernel: a form at one vector width (the schedule's, or 1; 0:
/// the control kernels, which have none).
struct KernelInstance {
  mlir::credit::Form form;
  int vec = 4;
  std::string name; // credit_K_cluster_sync_v4, credit_K_staged_v1_cta512, credit_K_reread_v8, ...
};

/// The library's name of a form: "ClusterSync", "StagedRegsWideWide", ...
std::string formEnumerator(mlir::credit::Form f);

struct KernelView {
  // Op handles are mutable: their accessors are not const.
  mutable mlir::credit::KernelOp kernel;
  const CudaEmitOptions *options = nullptr;
  std::string name;   // K
  std::string prefix; // credit_K: the kernels' and the API's prefix
  ::credit::TargetInfo target{};
  mlir::credit::KernelSchedule schedule;
  int barriersSync = 0, barriersMbarrier = 0; // cluster barriers per row (credit.barriers)
  llvm::SmallVector<Operand> inputs, outputs; // declaration order each
  llvm::SmallVector<mlir::credit::ParamOp> params;
  llvm::SmallVector<Operand> runtimeParams;   // the params without a value
  mutable llvm::SmallVector<mlir::credit::StageOp> stages;
  mutable mlir::credit::ApplyOp apply;        // null: no h
  /// The names of the API functions' parameters (M, N, P, protocol, stream
  /// claimed first): the data arguments' names.
  NameSupply apiScope;
  /// The reread kernels' own stages (CudaEmitOptions::rereadKernel), where the
  /// reread variant is emitted; null: they run `Workload`.
  const KernelView *reread = nullptr;

  /// The variant selection of --variant (empty: all).
  bool wants(Variant v) const;
  /// The forms to instantiate: the schedule's, of the wanted variants.
  llvm::SmallVector<mlir::credit::Form> forms() const;
  bool emits(mlir::credit::Form f) const;
  /// The kernels of the wanted forms, in the schedule's order, float4 first.
  llvm::SmallVector<KernelInstance> kernels() const;
  /// Inputs, outputs, then the runtime params: the arguments in signature order.
  llvm::SmallVector<const Operand *> dataArgs() const;
};

/// The variant a form belongs to (--variant selects by it).
Variant variantOf(mlir::credit::Form f);

/// Gathers the view of an analysed, accepted kernel with its schedule.
/// Errors (an unsupported construct, a name that is no C identifier) are
/// emitted on the offending op.
mlir::FailureOr<std::unique_ptr<KernelView>> buildKernelView(mlir::credit::KernelOp kernel,
                                                             const CudaEmitOptions &options);

} // namespace credit::cuda

#endif // CREDIT_LIB_TARGET_CUDA_KERNELVIEW_H
