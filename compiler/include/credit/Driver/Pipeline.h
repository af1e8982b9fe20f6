//===- Pipeline.h - .credit text → analysed credit IR, as a library -*- C++ -*-===//
//
// The part of creditc every mode shares: parse, check, lower to the credit
// dialect, canonicalize + CSE, optimize the stage structure, run the analysis
// pipeline and credit-schedule. Used by the driver,
// the unit tests and anything embedding the compiler.
//
//===----------------------------------------------------------------------===//
#ifndef CREDIT_DRIVER_PIPELINE_H
#define CREDIT_DRIVER_PIPELINE_H

#include "credit/Dialect/Credit/IR/CreditDialect.h"
#include "credit/Lang/AST.h"
#include "credit/Lang/Diagnostics.h"
#include "credit/Lang/Sema.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>
#include <string>
#include <vector>

namespace credit {

struct PipelineOptions {
  std::string arch = "sm_90"; // target of the legality table
  long long N = 0;            // row width for the legality table (0: none)
  int threads = 256;          // threads per CTA of the generated kernels
  std::vector<std::string> variants; // kernel families the schedule lists (empty: all)
  std::string kernel;         // only this kernel ("" = all)
  bool analyze = true;        // false: stop before the analyses
  bool reciprocalDiv = true;  // credit-reciprocal-div (creditc --precise-div turns it off)
  bool stageOpt = true;       // credit-merge-stages (creditc --no-stage-opt turns it off)
  /// The consumer computes online statistics (credit.reduce_sumexp): max /
  /// sum-of-exp stage pairs are fused. Off, every reduce_sumexp (a user's
  /// logsumexp) is split into its two-pass form, for a consumer that has no
  /// online statistic of its own. Off by default (creditc --fuse-online): the
  /// fused pass saves a pass over the row but costs an exp per element more
  /// where the row is kept on chip, which is where the dispatch runs.
  bool onlineStatistics = false;
  /// A sum and the centred sum of squares around its mean (LayerNorm's mean
  /// and variance) become one credit.reduce_moments: one pass and one exchange
  /// fewer in every kernel (creditc --fuse-moments).
  bool fuseMoments = false;
  /// Schedule a kernel rejected as one-pass for its reread forms alone (the reread
  /// kernel's own stages, compileRereadStages).
  bool onePassReread = false;
};

/// Where a max / sum-of-exp stage pair is fused into one online statistic
/// (creditc --fuse-online): nowhere; in the reread kernel only, which streams the
/// row from memory in every pass, so the fused stage saves a pass over HBM (the
/// default); or in every kernel.
enum class OnlineFusion { None, Reread, All };

/// `text` with every CRLF and every lone CR replaced by LF.
std::string normalizeLineEnds(llvm::StringRef text);

/// One .credit buffer taken through the front end and the credit passes.
/// Diagnostics (LLVM-style, with source line and caret) go to `diagOS`.
/// Line ends are normalized first: CRLF and a lone CR become LF, so that
/// comments, line numbers and the source lines quoted in diagnostics and in
/// the generated files are the same whatever system wrote the file.
class Compilation {
public:
  enum Status { Ok, UserError };

  Compilation(std::unique_ptr<llvm::MemoryBuffer> buffer, llvm::raw_ostream &diagOS);
  /// One whose diagnostics are kept instead of printed (takeDiagnostics).
  explicit Compilation(std::unique_ptr<llvm::MemoryBuffer> buffer);
  Status run(const PipelineOptions &options);
  /// What a compilation made without a stream has reported so far; cleared.
  std::string takeDiagnostics();

  mlir::ModuleOp module() { return *moduleOp; }
  std::vector<mlir::credit::KernelOp> kernels();
  llvm::StringRef bufferName() const { return name; }
  /// The source text, line ends normalized (what every location points into).
  llvm::StringRef sourceText() const;
  DiagEngine &diags() { return *diagEngine; }
  unsigned numKernelsInFile() const { return static_cast<unsigned>(ast.kernels.size()); }

private:
  /// The buffer, line ends normalized, into the source manager; the diagnostics engine on it.
  void load(std::unique_ptr<llvm::MemoryBuffer> buffer);

  llvm::SourceMgr sm;
  std::string name;
  std::string kept;                              // the kept diagnostics (no stream given)
  std::unique_ptr<llvm::raw_string_ostream> keptOS;
  llvm::raw_ostream &diagOS;
  std::unique_ptr<DiagEngine> diagEngine;
  ast::Module ast;
  std::vector<std::unique_ptr<KernelSymbols>> symbols;
  mlir::MLIRContext ctx;
  std::unique_ptr<mlir::SourceMgrDiagnosticHandler> mlirDiags;
  mlir::OwningOpRef<mlir::ModuleOp> moduleOp;
};

/// The stages the reread kernel runs under OnlineFusion::Reread: `c`'s source
/// through the pipeline again with online statistics (`options` otherwise).
/// Null where that changes nothing (no max / sum-of-exp pair fuses) or fails.
/// Its diagnostics are kept, not printed (the first compilation printed those of
/// the source): what a later use reports on its kernel, takeDiagnostics() returns.
std::unique_ptr<Compilation> compileRereadStages(Compilation &c, const PipelineOptions &options);

/// The reread kernel's stages of `kernel` in `fused` (compileRereadStages):
/// its kernel of the same name where it has fewer stages, else null.
mlir::credit::KernelOp rereadStagesOf(Compilation *fused, mlir::credit::KernelOp kernel);

} // namespace credit

#endif // CREDIT_DRIVER_PIPELINE_H
