//===- ReferenceEmitter.h - float64 host reference from credit IR -*- C++ -*-===//
//
// `creditc --emit=reference` prints plain C++17 computing a workload row by row
// in double precision, straight from the same IR the CUDA emitter reads: the
// GPU tests check the generated kernels against the DSL's own semantics, not
// a hand-copied formula.
//
//   extern "C" void credit_<K>_reference(<inputs: const float*>, <outputs>,
//                                        long long M, long long N);
// Inputs in declaration order (row and broadcast inputs: M×N / N floats,
// per-row inputs: M floats), then outputs in declaration order (f32[N]:
// double[M×N], i8[N]: int8_t[M×N], per-row f32: double[M]).
//
//===----------------------------------------------------------------------===//
#ifndef CREDIT_TARGET_CPP_REFERENCEEMITTER_H
#define CREDIT_TARGET_CPP_REFERENCEEMITTER_H

#include "credit/Dialect/Credit/IR/CreditDialect.h"

#include "llvm/Support/raw_ostream.h"

namespace credit {

/// `prefix`: of the two extern "C" functions (empty: credit_<K>, as creditc
/// --prefix for the CUDA file).
mlir::LogicalResult emitReference(mlir::credit::KernelOp kernel, llvm::StringRef sourceName,
                                  llvm::raw_ostream &os, llvm::StringRef prefix = "");

} // namespace credit

#endif // CREDIT_TARGET_CPP_REFERENCEEMITTER_H
