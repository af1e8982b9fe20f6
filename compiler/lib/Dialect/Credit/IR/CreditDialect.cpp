//===- CreditDialect.cpp - the `credit` dialect ---------------------------===//
//
// Dialect registration, RowType and the op interface (attributes:
// CreditAttrs.cpp).
//
//===----------------------------------------------------------------------===//

#include "credit/Dialect/Credit/IR/CreditDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::credit;

#include "credit/Dialect/Credit/IR/CreditOpsDialect.cpp.inc"
#include "credit/Dialect/Credit/IR/CreditEnums.cpp.inc"
#include "credit/Dialect/Credit/IR/CreditOpInterfaces.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "credit/Dialect/Credit/IR/CreditOpsTypes.cpp.inc"

void CreditDialect::initialize() {
  registerTypes();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "credit/Dialect/Credit/IR/CreditOps.cpp.inc"
      >();
}

void CreditDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "credit/Dialect/Credit/IR/CreditOpsTypes.cpp.inc"
      >();
}

LogicalResult RowType::verify(function_ref<InFlightDiagnostic()> emitError,
                              Type elementType) {
  if (!elementType || !isInputElementType(elementType))
    return emitError() << "!credit.row element type must be f32, bf16, f16, i8, ui8 or i1, got "
                       << elementType;
  return success();
}

bool mlir::credit::isFloatStorageType(Type t) {
  return t && (t.isF32() || t.isBF16() || t.isF16());
}

bool mlir::credit::isInputElementType(Type t) {
  return isFloatStorageType(t) || t.isSignlessInteger(8) || t.isUnsignedInteger(8) ||
         t.isSignlessInteger(1);
}

Type mlir::credit::getYieldedElementType(RowType row) {
  Type e = row.getElementType();
  return isFloatStorageType(e) ? Float32Type::get(e.getContext()) : e;
}

Type mlir::credit::getElementArgType(Type operandType) {
  if (auto row = llvm::dyn_cast<RowType>(operandType)) {
    Type e = row.getElementType();
    return e.isSignlessInteger(1) ? e : Float32Type::get(e.getContext());
  }
  return operandType;
}
