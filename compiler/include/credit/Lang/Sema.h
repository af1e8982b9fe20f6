//===- Sema.h - Name resolution and checking for .credit ---------*- C++ -*-===//
//
// Resolves every name, classifies each expression's level (constant, per-row,
// per-element) and type, and reports the language's static errors with
// locations: unknown or duplicate names, statistics used before their stage,
// reductions outside a stage or nested in one another, outputs assigned twice
// or never, arity and type errors. Workloads that are well-formed but cannot
// profit (scans, stencils, selections, ...) are NOT errors here: they are
// rejected later by the `credit-classify` analysis, with a reason.
//
//===----------------------------------------------------------------------===//
#ifndef CREDIT_LANG_SEMA_H
#define CREDIT_LANG_SEMA_H

#include "credit/Lang/AST.h"
#include "credit/Lang/Diagnostics.h"

#include "llvm/ADT/StringMap.h"

#include <memory>
#include <vector>

namespace credit {

enum class Builtin {
  // Reductions (one argument, inside a stage): one statistic each.
  ReduceSum,
  ReduceMax,
  ReduceMin,
  /// logsumexp(e) = log(sum(exp(e - m))) + m, m = max(e): one online
  /// statistic (the max and the sum in one sweep).
  ReduceLogSumExp,
  // Elementwise math.
  Abs,
  Exp,
  Log,
  Sqrt,
  Rsqrt,
  Tanh,
  Sigmoid,
  Round,
  Max2,
  Min2,
  Clamp,
  CastI8,
  CastF32,
  /// where(c, a, b): a where the bool c holds, else b.
  Where,
  // Constructs that parse but make a workload unprofitable (rejected later).
  ScanSum,
  ScanMax,
  ScanMin,
  Median,
  Quantile,
  TopK,
  Sort,
};

bool isReduction(Builtin b);
bool isSelection(Builtin b); // median, quantile, topk (row-level results)
bool isScan(Builtin b);
llvm::StringRef builtinName(Builtin b);

struct Symbol {
  enum Kind { RowInput, BroadcastInput, ScalarInput, Param, Stat, RowLet, ElemLet, RowWidth, ElementIndex, Output };
  Kind kind;
  std::string name;
  llvm::SMLoc loc;
  ast::ElemType type = ast::ElemType::F32;
  /// Position of the defining statement in the kernel body (-1: built-in N).
  int stmtIndex = -1;
  /// Stage number (0-based) for statistics.
  int stage = -1;
  /// Defining expression for lets and statistics.
  const ast::Expr *value = nullptr;
  /// Expression depth once lets are expanded.
  unsigned expandedDepth = 1;
  std::optional<double> paramValue; // params: none for a runtime scalar
  bool perElementOutput = false; // outputs: f32[N] / i8[N]
};

/// Sema's result for one kernel: the symbols (owned here; AST nodes point at them).
struct KernelSymbols {
  std::vector<std::unique_ptr<Symbol>> symbols;
  llvm::StringMap<Symbol *> byName;
  const Symbol *rowWidth = nullptr;
  const Symbol *elementIndex = nullptr; // i: the element's column, an element-level f32
};

/// Checks `kernel` and annotates its expressions. Returns false on error
/// (already reported).
bool analyzeKernel(ast::Kernel &kernel, KernelSymbols &symbols, DiagEngine &diags);

} // namespace credit

#endif // CREDIT_LANG_SEMA_H
