//===- RowLevel.h - where the row-level math of a kernel goes ----*- C++ -*-===//
//
// Private to the CUDA emitter. The row-level values of a kernel (per-row
// inputs, statistics, lets and the math between them) are computed once per
// row by the Workload's begin_row (before the first stage) and finish(Stage<l>)
// (after stage l). A value lives in the Row struct when a later function
// reads it: a statistic, a let, a per-row input, or any value a pass, a later
// finish or end_row uses; every other value is local to its function.
//
//===----------------------------------------------------------------------===//
#ifndef CREDIT_LIB_TARGET_CUDA_ROWLEVEL_H
#define CREDIT_LIB_TARGET_CUDA_ROWLEVEL_H

#include "LetNames.h"
#include "NameSupply.h"

#include "credit/Dialect/Credit/IR/CreditDialect.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <string>
#include <vector>

namespace credit::cuda {

struct RowLevel {
  /// The Row struct's fields after N, in the order they are computed.
  llvm::SmallVector<std::string> fields;
  /// The Row field holding each value that has one.
  llvm::DenseMap<mlir::Value, std::string> field;
  /// The row-level ops of each function, in program order: [0] begin_row,
  /// [l + 1] finish(Stage<l>) (the stage's own math first).
  std::vector<llvm::SmallVector<mlir::Operation *>> ops;
  /// The per-row inputs (input index, field), read by begin_row.
  llvm::SmallVector<std::pair<unsigned, std::string>> perRowInputs;
  /// The runtime params (index among them, field), read by begin_row.
  llvm::SmallVector<std::pair<unsigned, std::string>> runtimeParams;
};

/// Places the row-level math of `kernel` and names the Row fields in `rowScope`
/// (statistics, lets and per-row inputs keep their source names where they
/// can; other fields are t0, t1, ...).
RowLevel placeRowLevel(mlir::credit::KernelOp kernel, NameSupply &rowScope, LetNames &lets);

} // namespace credit::cuda

#endif // CREDIT_LIB_TARGET_CUDA_ROWLEVEL_H
