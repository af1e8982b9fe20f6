//===- Pipeline.cpp -------------------------------------------------------===//
#include "credit/Driver/Pipeline.h"

#include "credit/Conversion/ASTToCredit.h"
#include "credit/Dialect/Credit/Transforms/Passes.h"
#include "credit/Dialect/Credit/Transforms/Schedule.h"
#include "credit/Lang/Parser.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/WithColor.h"

#include <utility>

using namespace credit;

std::string credit::normalizeLineEnds(llvm::StringRef text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\r') {
      out.push_back(text[i]);
      continue;
    }
    out.push_back('\n');
    if (i + 1 < text.size() && text[i + 1] == '\n')
      ++i;
  }
  return out;
}

Compilation::Compilation(std::unique_ptr<llvm::MemoryBuffer> buffer, llvm::raw_ostream &diagOS)
    : name(buffer->getBufferIdentifier().str()), diagOS(diagOS) {
  load(std::move(buffer));
}

Compilation::Compilation(std::unique_ptr<llvm::MemoryBuffer> buffer)
    : name(buffer->getBufferIdentifier().str()), keptOS(std::make_unique<llvm::raw_string_ostream>(kept)),
      diagOS(*keptOS) {
  load(std::move(buffer));
}

void Compilation::load(std::unique_ptr<llvm::MemoryBuffer> buffer) {
  if (buffer->getBuffer().contains('\r'))
    buffer = llvm::MemoryBuffer::getMemBufferCopy(normalizeLineEnds(buffer->getBuffer()), name);
  sm.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  diagEngine = std::make_unique<DiagEngine>(sm, diagOS);
}

std::string Compilation::takeDiagnostics() {
  if (!keptOS)
    return {};
  keptOS->flush();
  return std::exchange(kept, std::string());
}

llvm::StringRef Compilation::sourceText() const {
  return sm.getMemoryBuffer(sm.getMainFileID())->getBuffer();
}

std::vector<mlir::credit::KernelOp> Compilation::kernels() {
  std::vector<mlir::credit::KernelOp> out;
  if (moduleOp)
    for (auto k : moduleOp->getOps<mlir::credit::KernelOp>())
      out.push_back(k);
  return out;
}

Compilation::Status Compilation::run(const PipelineOptions &options) {
  DiagEngine &diags = *diagEngine;
  ast = parseModule(diags, sm.getMainFileID());
  if (diags.hadError())
    return UserError;
  llvm::StringMap<llvm::SMLoc> kernelNames;
  for (const ast::Kernel &k : ast.kernels) {
    auto [it, inserted] = kernelNames.try_emplace(k.name, k.loc);
    if (!inserted && !k.name.empty()) {
      diags.error(k.loc, "duplicate kernel name '" + k.name + "'");
      diags.note(it->second, "previously defined here");
    }
  }
  for (ast::Kernel &k : ast.kernels) {
    symbols.push_back(std::make_unique<KernelSymbols>());
    analyzeKernel(k, *symbols.back(), diags);
    if (diags.tooManyErrors())
      break;
  }
  if (diags.hadError())
    return UserError;

  std::vector<size_t> selected;
  for (size_t i = 0; i < ast.kernels.size(); ++i)
    if (options.kernel.empty() || ast.kernels[i].name == options.kernel)
      selected.push_back(i);
  if (selected.empty()) {
    llvm::WithColor::error(diagOS, "creditc")
        << "no kernel named '" << options.kernel << "' in '" << name << "'\n";
    return UserError;
  }

  registerCreditDialects(ctx);
  // A located message is enough; no IR dump under every diagnostic.
  ctx.printOpOnDiagnostic(false);
  // MLIR diagnostics (verifier, pass errors) print like ours: file:line:col,
  // the source line and a caret.
  mlirDiags = std::make_unique<mlir::SourceMgrDiagnosticHandler>(sm, &ctx, diagOS);
  moduleOp = mlir::ModuleOp::create(mlir::UnknownLoc::get(&ctx));
  for (size_t i : selected)
    lowerKernel(*moduleOp, ast.kernels[i], *symbols[i], sm, name);
  if (failed(mlir::verify(*moduleOp))) {
    llvm::WithColor::error(diagOS, "creditc") << "internal error: the lowered IR does not verify\n";
    return UserError;
  }

  mlir::PassManager pm(&ctx);
  mlir::credit::buildCanonicalizationPipeline(pm);
  if (options.reciprocalDiv) {
    pm.nest<mlir::credit::KernelOp>().addPass(mlir::credit::createCreditReciprocalDiv());
    // The divisor's element argument may now be dead: drop it.
    pm.addPass(mlir::createCanonicalizerPass());
  }
  mlir::credit::buildStagePipeline(pm, options.stageOpt, options.onlineStatistics,
                                   options.fuseMoments);
  if (options.analyze) {
    mlir::credit::AnalysisPipelineOptions analysis;
    analysis.target = options.arch;
    analysis.N = options.N;
    analysis.threads = options.threads;
    analysis.variants = options.variants;
    analysis.onePassReread = options.onePassReread;
    mlir::credit::buildAnalysisPipeline(pm, analysis);
  }
  if (failed(pm.run(*moduleOp)))
    return UserError;
  // An input nothing reads (after dead lets are gone) still costs the caller a
  // pointer argument and the launcher its checks: likely a mistake.
  for (mlir::credit::KernelOp k : kernels())
    for (mlir::credit::InputOp in : k.getInputOps())
      if (in.getResult().use_empty())
        in.emitWarning("input '") << in.getName() << "' of kernel '" << k.getSymName()
                                  << "' is never read; it stays an argument of the generated "
                                     "launch API";
  return Ok;
}

static unsigned numStages(mlir::credit::KernelOp k) {
  unsigned n = 0;
  k.walk([&](mlir::credit::StageOp) { ++n; });
  return n;
}

mlir::credit::KernelOp credit::rereadStagesOf(Compilation *fused, mlir::credit::KernelOp kernel) {
  if (!fused || !kernel)
    return nullptr;
  // A fused kernel with all its statistics in one pass and no h reading the row is
  // rejected (one-pass) but scheduled for its reread forms: they stream the row once.
  for (mlir::credit::KernelOp k : fused->kernels())
    if (k.getSymName() == kernel.getSymName())
      return numStages(k) < numStages(kernel) && mlir::credit::hasSchedule(k) ? k : nullptr;
  return nullptr;
}

std::unique_ptr<Compilation> credit::compileRereadStages(Compilation &c, const PipelineOptions &options) {
  if (!options.stageOpt || options.onlineStatistics)
    return nullptr;
  auto fused = std::make_unique<Compilation>(
      llvm::MemoryBuffer::getMemBufferCopy(c.sourceText(), c.bufferName()));
  PipelineOptions o = options;
  o.onlineStatistics = true;
  o.onePassReread = true;
  if (fused->run(o) != Compilation::Ok)
    return nullptr;
  fused->takeDiagnostics();  // the source's warnings, which the first compilation printed
  for (mlir::credit::KernelOp k : c.kernels())
    if (rereadStagesOf(fused.get(), k))
      return fused;
  return nullptr;
}
