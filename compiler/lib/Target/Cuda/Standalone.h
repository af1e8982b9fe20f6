//===- Standalone.h - one self-contained generated file ----------*- C++ -*-===//
//
// Private to the CUDA emitter. --standalone: every `#include <credit/...>`
// line of a generated file is replaced by the header's text (the runtime
// embeds the library's headers), recursively, each header once, so that the
// file compiles with the CUDA toolkit alone.
//
//===----------------------------------------------------------------------===//
#ifndef CREDIT_LIB_TARGET_CUDA_STANDALONE_H
#define CREDIT_LIB_TARGET_CUDA_STANDALONE_H

#include "credit/Dialect/Credit/IR/CreditDialect.h"

#include <string>

namespace credit::cuda {

/// Inlines the library's headers into `text`. Fails, with an error on
/// `kernel`, if an included credit header has no embedded text.
mlir::LogicalResult inlineLibraryHeaders(std::string &text, mlir::credit::KernelOp kernel);

} // namespace credit::cuda

#endif // CREDIT_LIB_TARGET_CUDA_STANDALONE_H
