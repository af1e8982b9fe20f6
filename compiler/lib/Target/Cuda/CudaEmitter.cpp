// TEMPORARY scaffold (being replaced by the real emitter in this session).
#include "credit/Target/Cuda/CudaEmitter.h"
#include "llvm/ADT/StringSwitch.h"
using namespace credit;
std::optional<Variant> credit::parseVariant(llvm::StringRef n) {
  return llvm::StringSwitch<std::optional<Variant>>(n)
      .Case("cluster", Variant::Cluster).Case("reread", Variant::Reread)
      .Case("staged", Variant::Staged).Case("control", Variant::Control).Default(std::nullopt);
}
llvm::StringRef credit::variantName(Variant v) {
  switch (v) { case Variant::Cluster: return "cluster"; case Variant::Reread: return "reread";
  case Variant::Staged: return "staged"; case Variant::Control: return "control"; }
  return "?";
}
mlir::LogicalResult credit::emitCuda(mlir::credit::KernelOp k, const CudaEmitOptions &, llvm::raw_ostream &) {
  return k.emitError("CUDA emission is not implemented yet");
}
