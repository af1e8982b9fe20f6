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
  if (!elementType || !(elementType.isF32() || elementType.isSignlessInteger(8)))
    return emitError() << "!credit.row element type must be f32 or i8, got "
                       << elementType;
  return success();
}

Type mlir::credit::getElementArgType(Type operandType) {
  if (auto row = llvm::dyn_cast<RowType>(operandType))
    return row.getElementType();
  return operandType;
}
