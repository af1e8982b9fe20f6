//===- Precision.cpp - The precision of a kernel's element data -----------===//
//
// Which element math the data carries: a kernel whose per-element floating-point
// operands are all 16-bit holds 8 (bf16) or 11 (f16) significant bits per element,
// so an exponential within a few f32 ulp is exact to them (docs/dsl.md, "Element
// math"). creditc's default --fast-math follows this.
//
//===----------------------------------------------------------------------===//
#include "credit/Dialect/Credit/Transforms/Analyses.h"

using namespace mlir;
using namespace mlir::credit;

static bool isFloat(Type t) { return llvm::isa<FloatType>(t); }
static bool is16BitFloat(Type t) { return t.isBF16() || t.isF16(); }

bool mlir::credit::hasHalfPrecisionElementData(KernelOp kernel) {
  int floats = 0;
  auto element = [&](Type t) {
    if (auto row = llvm::dyn_cast<RowType>(t))
      t = row.getElementType();
    if (!isFloat(t))
      return true;
    ++floats;
    return is16BitFloat(t);
  };
  for (InputOp in : kernel.getInputOps())
    if (!in.isScalar() && !element(in.getType()))
      return false;
  for (OutputOp out : kernel.getOutputOps())
    if (isRowType(out.getValue().getType()) && !element(out.getValue().getType()))
      return false;
  return floats > 0;
}
