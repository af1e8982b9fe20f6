//===- CreditDialect.h - the `credit` dialect -------------------*- C++ -*-===//
//
// The one header users include: dialect, RowType, enums and their
// attributes, ElementRegionOpInterface and all ops.
//
//===----------------------------------------------------------------------===//

#ifndef CREDIT_DIALECT_CREDIT_IR_CREDITDIALECT_H
#define CREDIT_DIALECT_CREDIT_IR_CREDITDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "credit/Dialect/Credit/IR/CreditOpsDialect.h.inc"
#include "credit/Dialect/Credit/IR/CreditEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "credit/Dialect/Credit/IR/CreditOpsTypes.h.inc"

namespace mlir::credit {
/// One entry of #credit.schedule's `materialized`: the retained slice of input
/// `input` holds T(input) from pass `pass` (0-based: the stages, then h) on.
struct MaterializedInput {
  StringAttr input;
  int64_t pass = 0;
  bool operator==(const MaterializedInput &o) const { return input == o.input && pass == o.pass; }
};
inline llvm::hash_code hash_value(const MaterializedInput &m) {
  return llvm::hash_combine(m.input, m.pass);
}
} // namespace mlir::credit

#define GET_ATTRDEF_CLASSES
#include "credit/Dialect/Credit/IR/CreditAttrDefs.h.inc"

#include "credit/Dialect/Credit/IR/CreditOpInterfaces.h.inc"

#define GET_OP_CLASSES
#include "credit/Dialect/Credit/IR/CreditOps.h.inc"

namespace mlir::credit {

/// True if `t` is a `!credit.row<E>` (a per-element value of the row).
inline bool isRowType(Type t) { return llvm::isa<RowType>(t); }
/// True if `v` is a row (RowType) value.
inline bool isRowValue(Value v) { return isRowType(v.getType()); }
/// True if `v` is a row-level value (plain f32: statistic, param, scalar
/// input, row-level let, N).
inline bool isRowLevelValue(Value v) { return v.getType().isF32(); }

/// f32, bf16 or f16: a float storage type (arithmetic is f32).
bool isFloatStorageType(Type t);
/// The element types of an input row: the float ones, i8, ui8 (u8), i1 (bool).
bool isInputElementType(Type t);
/// What an element region yields for a result row: f32 for a float storage
/// type (rounded at the store), i8 for i8.
Type getYieldedElementType(RowType row);
/// Type of the element block argument that stands for an operand of type
/// `operandType` in a reduce/select/apply region: i1 for a row of bools, f32
/// for any other row (the load converts), the type itself otherwise.
Type getElementArgType(Type operandType);

/// Whether kernel form `f` runs at the wide-CTA twin's threads (the
/// schedule's wide_threads): ClusterWide*, StagedWide, StagedRegsWideWide,
/// StagedRegsDeepWide and the persistent forms.
bool isWideCtaForm(Form f);
/// Whether kernel form `f` is a persistent one (the ring: Persistent,
/// PersistentHalves and their Claims).
bool isPersistentForm(Form f);

/// A per-element operand of a kernel: a row or broadcast input, or a row output.
struct PerElementOperand {
  Operation *op;    // its credit.input or credit.output
  Type type;        // its !credit.row<E> type
  bool output;
};
/// The kernel's per-element operands, inputs then outputs, each in declaration
/// order: what the vector width and the element-math default follow.
llvm::SmallVector<PerElementOperand> perElementOperands(KernelOp kernel);

/// Checks a #credit.schedule against the kernel it annotates: every name is an
/// input of the right kind (kept, prefetched: row; hoisted: broadcast) and
/// every materialization's pass exists. Errors through `emitError`.
LogicalResult verifyScheduleForKernel(KernelOp kernel, ScheduleAttr schedule,
                                      llvm::function_ref<InFlightDiagnostic()> emitError);

} // namespace mlir::credit

#endif // CREDIT_DIALECT_CREDIT_IR_CREDITDIALECT_H
