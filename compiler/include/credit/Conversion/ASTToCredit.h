//===- ASTToCredit.h - Lowering the checked AST to the credit dialect -*- C++ -*-===//
#ifndef CREDIT_CONVERSION_ASTTOCREDIT_H
#define CREDIT_CONVERSION_ASTTOCREDIT_H

#include "credit/Lang/AST.h"
#include "credit/Lang/Sema.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

namespace credit {

/// Lowers one Sema-checked kernel into a `credit.kernel` op appended to
/// `module`. Locations are FileLineColLoc into `filename`.
void lowerKernel(mlir::ModuleOp module, const ast::Kernel &kernel, const KernelSymbols &symbols,
                 const llvm::SourceMgr &sm, llvm::StringRef filename);

/// Registers every dialect the credit IR uses (credit, arith, math).
void registerCreditDialects(mlir::MLIRContext &ctx);

} // namespace credit

#endif // CREDIT_CONVERSION_ASTTOCREDIT_H
