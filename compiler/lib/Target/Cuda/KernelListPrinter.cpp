//===- KernelListPrinter.cpp - the extern "C" kernels of a generated file -===//
//
// One line per kernel: an instance of the device library's row kernel for one
// form of the schedule and one vector width, under its stable name.
//
//===----------------------------------------------------------------------===//
#include "Api.h"
#include "Printers.h"

namespace cr = mlir::credit;

namespace credit::cuda {

/// The library's kernel-definition macro of a form.
static llvm::StringRef kernelMacro(cr::Form f) {
  switch (variantOf(f)) {
  case Variant::Control: return "CREDIT_CONTROL_KERNEL";
  case Variant::Staged:
  case Variant::Reread: return "CREDIT_ROW_KERNEL";
  case Variant::Cluster: break;
  }
  return llvm::StringRef(cr::stringifyForm(f)).starts_with("persistent") ? "CREDIT_PERSISTENT_KERNEL"
                                                                         : "CREDIT_CLUSTER_KERNEL";
}

void printKernelList(const KernelView &k, llvm::raw_ostream &os) {
  const std::string macro = llvm::StringRef(k.prefix).upper();
  os << "// ===== kernels: (" << dataArgNames(k) << (k.dataArgs().empty() ? "" : ", ")
     << "M, N[, P[, ring, row_claims]]) =====\n";
  os << "#define " << macro << "_PARAMS";
  bool first = true;
  for (const Operand *o : k.dataArgs()) {
    os << (first ? " \\\n  " : ", ") << o->pointerType() << (o->kind == Operand::Param ? " " : " __restrict__ ")
       << o->name;
    first = false;
  }
  os << "\n#define " << macro << "_ARGS " << dataArgNames(k) << "\n";
  os << "using " << k.prefix << "::Workload;\n";
  if (k.reread)
    os << "using " << k.prefix << "::RereadWorkload;\n";
  for (const KernelInstance &kernel : k.kernels()) {
    llvm::StringRef m = kernelMacro(kernel.form);
    os << m << "(" << kernel.name << ", ";
    if (m != "CREDIT_CONTROL_KERNEL")
      os << macro << ", ";
    os << (k.reread && variantOf(kernel.form) == Variant::Reread ? "RereadWorkload, " : "Workload, ")
       << formEnumerator(kernel.form);
    if (m == "CREDIT_CLUSTER_KERNEL" || m == "CREDIT_ROW_KERNEL")
      os << ", " << kernel.vec;
    os << ")\n";
  }
}

} // namespace credit::cuda
