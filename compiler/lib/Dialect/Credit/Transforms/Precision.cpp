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
  for (const PerElementOperand &o : perElementOperands(kernel)) {
    Type e = cast<RowType>(o.type).getElementType();
    if (!isFloat(e))
      continue;
    if (!is16BitFloat(e))
      return false;
    ++floats;
  }
  return floats > 0;
}
