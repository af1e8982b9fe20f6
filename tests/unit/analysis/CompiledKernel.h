// One kernel taken through the real front end and pipeline, for the unit tests of
// the analyses: the compilation, its diagnostics and its (first) kernel. A source
// that does not compile fails the test, with the diagnostics.
#ifndef CREDIT_TESTS_UNIT_ANALYSIS_COMPILEDKERNEL_H
#define CREDIT_TESTS_UNIT_ANALYSIS_COMPILEDKERNEL_H

#include "credit/Driver/Pipeline.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <catch2/catch.hpp>

#include <memory>
#include <string>

struct CompiledKernel {
  std::string diags;
  llvm::raw_string_ostream os{diags};
  std::unique_ptr<credit::Compilation> c;
  mlir::credit::KernelOp kernel;

  CompiledKernel(std::unique_ptr<llvm::MemoryBuffer> buf, const credit::PipelineOptions &opts) {
    c = std::make_unique<credit::Compilation>(std::move(buf), os);
    const bool ok = c->run(opts) == credit::Compilation::Ok;
    INFO(diags);
    REQUIRE(ok);
    kernel = c->kernels().front();
  }
  CompiledKernel(const std::string &src, const credit::PipelineOptions &opts)
      : CompiledKernel(llvm::MemoryBuffer::getMemBufferCopy(src, "t.credit"), opts) {}
};

#endif // CREDIT_TESTS_UNIT_ANALYSIS_COMPILEDKERNEL_H
