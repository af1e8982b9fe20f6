//===- credit-opt.cpp - mlir-opt for the credit dialect -------------------===//

#include "credit/Dialect/Credit/IR/CreditDialect.h"
#include "credit/Dialect/Credit/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  // Every pass libMLIR has (canonicalize, cse, symbol-dce, ...), then ours.
  mlir::registerAllPasses();
  mlir::credit::registerCreditPasses();
  mlir::credit::registerCreditPipelines();

  mlir::DialectRegistry registry;
  registry.insert<mlir::credit::CreditDialect, mlir::arith::ArithDialect,
                  mlir::math::MathDialect, mlir::func::FuncDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "credit optimizer driver\n", registry));
}
