//===- Driver.cpp - creditc: .credit → report / MLIR / CUDA ---------------===//
#include "credit/Driver/Driver.h"
#include "credit/Driver/Pipeline.h"

#include "credit/Conversion/ASTToCredit.h"
#include "credit/Dialect/Credit/IR/CreditDialect.h"
#include "credit/Dialect/Credit/Transforms/Passes.h"
#include "credit/Dialect/Credit/Transforms/Schedule.h"
#include "credit/Lang/Parser.h"
#include "credit/Lang/Sema.h"
#include "credit/Model/CostModel.h"
#include "credit/Report/Report.h"
#include "credit/Target/Cpp/ReferenceEmitter.h"
#include "credit/Target/Cuda/CudaEmitter.h"
#include "credit/runtime/Nvrtc.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace credit;

#ifndef CREDIT_VERSION
#define CREDIT_VERSION "0.0.0"
#endif

namespace {

enum class EmitKind { Report, MLIR, Cuda, Header, Reference };

struct Options {
  cl::OptionCategory category{"creditc options"};
  cl::opt<std::string> input{cl::Positional, cl::desc("<input .credit file, or - for stdin>"),
                             cl::Required, cl::cat(category)};
  cl::opt<std::string> output{"o", cl::desc("Write the CUDA C++ translation unit (with --emit=header or "
                                       "--emit=reference: that output) to <file>"),
                              cl::value_desc("file"), cl::cat(category)};
  cl::opt<std::string> header{"header",
                              cl::desc("Also write the C/C++ header declaring the launch API of "
                                       "the generated CUDA to <file>"),
                              cl::value_desc("file"), cl::cat(category)};
  cl::opt<EmitKind> emit{
      "emit", cl::desc("What to print"), cl::init(EmitKind::Report),
      cl::values(clEnumValN(EmitKind::Report, "report", "The static report (default)"),
                 clEnumValN(EmitKind::MLIR, "mlir",
                            "The credit dialect IR after canonicalization, CSE, credit-reciprocal-div, "
                            "the analyses and credit-schedule"),
                 clEnumValN(EmitKind::Cuda, "cuda", "The CUDA C++ translation unit"),
                 clEnumValN(EmitKind::Header, "header",
                            "The C/C++ header declaring its extern \"C\" launch API"),
                 clEnumValN(EmitKind::Reference, "reference",
                            "A float64 C++ reference of the workload (for testing)")),
      cl::cat(category)};
  cl::opt<std::string> report{"report",
                              cl::desc("Print the static report: --report or --report=json"),
                              cl::ValueOptional, cl::value_desc("text|json"), cl::cat(category)};
  cl::opt<long long> N{"N", cl::desc("Row width for the legality table"), cl::init(0),
                       cl::cat(category)};
  cl::opt<std::string> arch{"arch", cl::desc("Target: sm_90, sm_100 or sm_120"),
                            cl::init("sm_90"), cl::cat(category)};
  cl::opt<int> threads{"cta-threads",
                       cl::desc("Threads per CTA of the generated kernels: 128, 256 (default), "
                                "512 or 1024 (changes S_scratch, hence Eq. 3)"),
                       cl::init(256), cl::cat(category)};
  cl::opt<bool> fastMath{"fast-math",
                         cl::desc("Element-level exp, log and division through __expf, __logf "
                                  "and __fdividef (a few ulp; row-level math stays exact)"),
                         cl::cat(category)};
  cl::opt<bool> preciseDiv{"precise-div",
                           cl::desc("Keep every per-element division by a row-level value an IEEE "
                                    "division (default: multiply by the row's reciprocal, computed "
                                    "once per row; within about 1 ulp)"),
                           cl::cat(category)};
  cl::opt<bool> noStageOpt{"no-stage-opt",
                           cl::desc("Keep the stages as written: no merging of independent stages, "
                                    "no online max / sum-of-exp fusion (docs/dsl.md)"),
                           cl::cat(category)};
  cl::opt<std::string> profile{
      "profile",
      cl::desc("Device profile (JSON, credit-calibrate): also generate the model-driven dispatch "
               "API (_plan, _launch_auto, _autotune, _last_plan) with its figures compiled in"),
      cl::value_desc("file"), cl::cat(category)};
  cl::opt<std::string> kernel{"kernel", cl::desc("Only this kernel of the file"),
                              cl::cat(category)};
  cl::list<std::string> variants{
      "variant", cl::desc("Variants to generate: cluster, reread, staged, control (default all)"),
      cl::CommaSeparated, cl::cat(category)};
  cl::opt<bool> standalone{"standalone",
                           cl::desc("Write one self-contained CUDA file: the device library's and the "
                                    "runtime's headers inlined instead of #included"),
                           cl::cat(category)};
  cl::opt<bool> compile{"compile",
                        cl::desc("Compile the generated CUDA through NVRTC and print the ptxas "
                                 "resource usage of every kernel"),
                        cl::cat(category)};
};

/// The profile's figures for `kernel`'s dispatch (docs/cost-model.md,
/// "Dispatch"): the device's figures and the kernel's traffic; prints the
/// error and returns nothing when the profile is unusable.
std::optional<DispatchProfile> dispatchProfile(StringRef path, mlir::credit::KernelOp kernel,
                                               const std::vector<Variant> &variants) {
  auto fail = [](const Twine &msg) -> std::optional<DispatchProfile> {
    WithColor::error(errs(), "creditc") << msg << "\n";
    return std::nullopt;
  };
  auto has = [&](Variant v) { return variants.empty() || llvm::is_contained(variants, v); };
  if (!has(Variant::Staged) && !has(Variant::Reread))
    return fail("--profile: the dispatch times T_B on the staged or reread kernel; generate one "
                "of them (--variant)");
  Expected<model::DeviceProfile> profile = model::loadProfile(path);
  if (!profile)
    return fail(toString(profile.takeError()));
  Expected<model::KernelFacts> facts = model::kernelFacts(kernel);
  if (!facts)
    return fail(toString(facts.takeError()));
  DispatchProfile d;
  d.path = path.str();
  d.deviceName = profile->deviceName;
  d.device = profile->device;
  d.traffic = facts->modelKernel().traffic;
  bool anyGrid = false;
  for (int protocol = 0; protocol < 2; ++protocol)
    for (int l = 1; l < model::kNumClusterSizes; ++l)
      anyGrid |= d.device.gridMeasured[protocol][l] && d.device.gridMeasured[protocol][0];
  if (!anyGrid)
    WithColor::warning(errs(), "creditc")
        << path << " has no control grid (nor control timings with their footprints to fit one): the "
        << "dispatch cannot evaluate a cluster size and runs the baseline; measure the profile with "
        << "credit-calibrate (docs/cost-model.md)\n";
  return d;
}

bool writeAtomically(StringRef path, StringRef contents) {
  // writeToOutput writes to a unique temporary file beside `path` and renames
  // it into place only once everything is written.
  Error err = writeToOutput(path, [&](raw_ostream &os) -> Error {
    os << contents;
    return Error::success();
  });
  if (err) {
    WithColor::error(errs(), "creditc") << "cannot write '" << path << "': "
                                        << toString(std::move(err)) << "\n";
    return false;
  }
  return true;
}

} // namespace

int credit::driverMain(int argc, char **argv) {
  // `creditc predict ...`: the cost model, with its own options (Predict.cpp).
  if (argc > 1 && StringRef(argv[1]) == "predict")
    return predictMain(argc, argv);
  Options opts;
  // MLIR's printing flags (--mlir-print-debuginfo shows the FileLineColLoc of
  // every op, --mlir-print-op-generic, ...) for --emit=mlir.
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  cl::HideUnrelatedOptions(opts.category);
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << "creditc version " << CREDIT_VERSION << "\n"
       << "  MLIR/LLVM " << LLVM_VERSION_STRING << ", NVRTC " << nvrtcVersionString() << "\n"
       << "  targets: sm_90 (default), sm_100, sm_120\n";
  });
  if (!cl::ParseCommandLineOptions(argc, argv,
                                   "creditc: clustered reduction-reuse kernels for Hopper\n\n"
                                   "  creditc op.credit --report [--N=65536]\n"
                                   "  creditc op.credit -o op.cu [--header=op.h]\n"
                                   "  creditc predict op.credit --profile p.json --M 4096 --N 65536 "
                                   "[--tB <ms>]   (docs/cost-model.md)\n",
                                   &errs()))
    return kExitUserError;

  bool wantReport = opts.report.getNumOccurrences() > 0 ||
                    (opts.emit == EmitKind::Report && opts.output.empty() && !opts.compile);
  bool reportJSON = opts.report == "json";
  if (!opts.report.empty() && opts.report != "json" && opts.report != "text") {
    WithColor::error(errs(), "creditc") << "--report takes 'text' or 'json', not '" << opts.report
                                        << "'\n";
    return kExitUserError;
  }
  if (!findTarget(opts.arch.c_str()).arch) {
    WithColor::error(errs(), "creditc") << "unknown --arch '" << opts.arch
                                        << "' (expected sm_90, sm_100 or sm_120)\n";
    return kExitUserError;
  }
  if (opts.threads != 128 && opts.threads != 256 && opts.threads != 512 && opts.threads != 1024) {
    WithColor::error(errs(), "creditc") << "--cta-threads must be 128, 256, 512 or 1024\n";
    return kExitUserError;
  }
  if (opts.N < 0 || opts.N > kMaxRowElems) {
    WithColor::error(errs(), "creditc") << "--N must be positive and at most " << kMaxRowElems << "\n";
    return kExitUserError;
  }
  std::vector<Variant> variants;
  for (const std::string &v : opts.variants) {
    auto parsed = parseVariant(v);
    if (!parsed) {
      WithColor::error(errs(), "creditc")
          << "unknown --variant '" << v << "' (expected cluster, reread, staged or control)\n";
      return kExitUserError;
    }
    variants.push_back(*parsed);
  }

  ErrorOr<std::unique_ptr<MemoryBuffer>> file = MemoryBuffer::getFileOrSTDIN(opts.input);
  if (std::error_code ec = file.getError()) {
    WithColor::error(errs(), "creditc") << "cannot read '" << opts.input << "': " << ec.message()
                                        << "\n";
    return kExitUserError;
  }
  std::string displayName = opts.input == "-" ? "<stdin>" : opts.input.getValue();
  bool wantReference = opts.emit == EmitKind::Reference;
  bool headerOnly = opts.emit == EmitKind::Header;
  bool wantHeader = headerOnly || !opts.header.empty();
  bool wantCuda = !wantReference && !headerOnly &&
                  (opts.emit == EmitKind::Cuda || !opts.output.empty() || opts.compile ||
                   !opts.header.empty());
  bool onlyMLIR = opts.emit == EmitKind::MLIR && !opts.report.getNumOccurrences();

  Compilation c(MemoryBuffer::getMemBufferCopy((*file)->getBuffer(), displayName), errs());
  PipelineOptions pipeline;
  pipeline.arch = opts.arch;
  pipeline.N = opts.N;
  pipeline.kernel = opts.kernel;
  pipeline.threads = opts.threads;
  pipeline.variants = opts.variants;
  pipeline.reciprocalDiv = !opts.preciseDiv;
  pipeline.stageOpt = !opts.noStageOpt;
  if (c.run(pipeline) != Compilation::Ok)
    return kExitUserError;
  if ((wantCuda || wantHeader || wantReference) && c.kernels().size() > 1) {
    WithColor::error(errs(), "creditc")
        << "'" << displayName << "' defines " << c.kernels().size()
        << " kernels; choose the one to generate with --kernel=<name>\n";
    return kExitUserError;
  }
  if (onlyMLIR) {
    c.module().print(outs(), mlir::OpPrintingFlags());
    return kExitOk;
  }

  std::vector<mlir::credit::KernelOp> kernels = c.kernels();
  bool anyRejected = false;
  for (auto k : kernels)
    anyRejected |= !buildReport(k).accepted;

  if (wantReport) {
    if (reportJSON) {
      json::Array all;
      for (auto k : kernels)
        all.push_back(reportToJSON(buildReport(k)));
      outs() << formatv("{0:2}", all.size() == 1 ? std::move(all[0]) : json::Value(std::move(all)))
             << "\n";
    } else {
      for (size_t i = 0; i < kernels.size(); ++i) {
        if (i)
          outs() << "\n";
        printReportText(buildReport(kernels[i]), outs());
      }
    }
  }
  if (!wantCuda && !wantHeader && !wantReference)
    return anyRejected ? kExitRejected : kExitOk;

  mlir::credit::KernelOp kernel = kernels.front();
  Report r = buildReport(kernel);
  if (!r.accepted) {
    errs() << r.location << ": error: kernel '" << r.kernel << "' is rejected (" << r.category
           << "), no CUDA is generated: " << r.reason << "\n";
    return kExitRejected;
  }

  if (wantReference) {
    std::string ref;
    raw_string_ostream os(ref);
    if (failed(emitReference(kernel, displayName, os)))
      return kExitUserError;
    os.flush();
    if (!opts.output.empty())
      return writeAtomically(opts.output, ref) ? kExitOk : kExitUserError;
    outs() << ref;
    return kExitOk;
  }

  CudaEmitOptions emitOpts;
  emitOpts.arch = opts.arch;
  emitOpts.variants = variants;
  emitOpts.sourceName = displayName;
  emitOpts.sourceText = (*file)->getBuffer().str();
  emitOpts.threads = opts.threads;
  emitOpts.fastMath = opts.fastMath;
  emitOpts.standalone = opts.standalone;
  if (!opts.profile.empty()) {
    std::optional<DispatchProfile> dispatch =
        dispatchProfile(opts.profile, kernel, variants);
    if (!dispatch)
      return kExitUserError;
    emitOpts.dispatch = std::move(*dispatch);
  }
  std::string header;
  if (wantHeader) {
    raw_string_ostream os(header);
    if (failed(emitCudaHeader(kernel, emitOpts, os)))
      return kExitUserError;
  }
  if (headerOnly) {
    if (!opts.output.empty())
      return writeAtomically(opts.output, header) ? kExitOk : kExitUserError;
    outs() << header;
    return kExitOk;
  }
  std::string cuda;
  {
    raw_string_ostream os(cuda);
    if (failed(emitCuda(kernel, emitOpts, os)))
      return kExitUserError;
  }
  if (opts.emit == EmitKind::Cuda)
    outs() << cuda;
  if (!opts.output.empty() && !writeAtomically(opts.output, cuda))
    return kExitUserError;
  if (!opts.header.empty() && !writeAtomically(opts.header, header))
    return kExitUserError;
  if (opts.compile) {
    NvrtcOptions nv;
    nv.arch = opts.arch;
    NvrtcResult res = compileToCubin(cuda, r.kernel + ".cu", nv);
    if (!res.ok) {
      errs() << res.log;
      WithColor::error(errs(), "creditc") << "NVRTC failed to compile the generated code\n";
      return kExitUserError;
    }
    outs() << formatv("NVRTC {0} → {1} cubin, {2} bytes\n", res.nvrtcVersion, opts.arch,
                      res.cubin.size());
    outs() << formatv("  {0,-48} {1,5} {2,12} {3,12} {4,8}\n", "kernel", "regs", "spill st/ld",
                      "stack", "smem");
    bool spills = false;
    for (const KernelResources &kr : res.kernels) {
      outs() << formatv("  {0,-48} {1,5} {2,5} / {3,-5} {4,8} B {5,7} B\n", kr.name, kr.registers,
                        kr.spillStoreBytes, kr.spillLoadBytes, kr.stackFrameBytes, kr.sharedBytes);
      spills |= kr.spillStoreBytes || kr.spillLoadBytes;
    }
    if (spills)
      WithColor::warning(errs(), "creditc") << "some kernels spill registers\n";
  }
  return kExitOk;
}
