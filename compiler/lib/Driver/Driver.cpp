//===- Driver.cpp - creditc: .credit → report / MLIR / CUDA ---------------===//
#include "credit/Driver/Driver.h"
#include "credit/Driver/Output.h"
#include "credit/Driver/Pipeline.h"

#include "credit/Conversion/ASTToCredit.h"
#include "credit/Dialect/Credit/IR/CreditDialect.h"
#include "credit/Dialect/Credit/Transforms/Analyses.h"
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

/// The targets --arch takes, for messages.
constexpr const char *kTargetList = "sm_80, sm_86, sm_89, sm_90, sm_100 or sm_120";

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
  cl::opt<std::string> arch{"arch", cl::desc("Target: sm_90, sm_100, sm_120 (clusters), or sm_80, sm_86, sm_89 (the reread and staged kernels only)"),
                            cl::init("sm_90"), cl::cat(category)};
  cl::opt<int> threads{"cta-threads",
                       cl::desc("Threads per CTA of the generated kernels: 128, 256 (default), "
                                "512 or 1024 (changes S_scratch, hence Eq. 3)"),
                       cl::init(256), cl::cat(category)};
  cl::opt<cl::boolOrDefault> fastMath{
      "fast-math",
      cl::desc("Element-level exp, log and division through fast_exp, __logf and __fdividef "
               "(a few ulp; row-level math stays exact); default: on for 16-bit element data"),
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
  cl::opt<OnlineFusion> fuseOnline{
      "fuse-online",
      cl::desc("Where a max stage and the sum-of-exp stage after it become one online statistic: one "
               "pass fewer, one exp per element more where the row is kept on chip (docs/dsl.md)"),
      cl::ValueOptional, cl::init(OnlineFusion::Reread),
      cl::values(clEnumValN(OnlineFusion::None, "none", "nowhere: every kernel runs the stages as merged"),
                 clEnumValN(OnlineFusion::Reread, "reread",
                            "the reread kernel, which streams the row from memory (default)"),
                 clEnumValN(OnlineFusion::All, "all", "every kernel"),
                 clEnumValN(OnlineFusion::All, "", "--fuse-online alone: every kernel")),
      cl::cat(category)};
  cl::opt<bool> fuseMoments{
      "fuse-moments",
      cl::desc("Where a stage sums e and a later one sums (e - mean)^2 around its mean (LayerNorm's "
               "mean and variance), compute both in one stage with Chan's pairwise update: one pass "
               "and one exchange fewer in every kernel; off by default (docs/dsl.md)"),
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
  cl::opt<std::string> prefix{
      "prefix",
      cl::desc("Prefix of every extern \"C\" symbol, macro and the include guard of the generated "
               "files (default credit_<kernel>): two configurations of one kernel in one program "
               "need two prefixes"),
      cl::value_desc("name"), cl::cat(category)};
  cl::opt<bool> compile{"compile",
                        cl::desc("Compile the generated CUDA through NVRTC and print the ptxas "
                                 "resource usage of every kernel"),
                        cl::cat(category)};
};

/// The profile's figures for `kernel`'s dispatch (docs/cost-model.md,
/// "Dispatch"): the device's figures and the kernel's traffic; prints the
/// error and returns nothing when the profile is unusable.
std::optional<DispatchProfile> dispatchProfile(StringRef path, mlir::credit::KernelOp kernel,
                                               mlir::credit::KernelOp rereadKernel,
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
  if (rereadKernel) { // the reread kernel moves its own stages' bytes
    Expected<model::KernelFacts> fused = model::kernelFacts(rereadKernel);
    if (!fused)
      return fail(toString(fused.takeError()));
    model::useRereadStages(*facts, *fused);
  }
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

} // namespace


namespace {

/// What one invocation writes, and where (docs/usage.md, "Output files").
struct OutputPlan {
  std::optional<EmitKind> primary; // none: --compile alone
  std::string primaryPath = "-";   // -o, else standard output
  bool extraReport = false;        // --report besides another primary output
  bool reportJSON = false;
  std::string headerPath;          // --header ("" none)
  bool compile = false;

  bool wants(EmitKind k) const { return primary == k; }
  bool generates() const {
    return compile || !headerPath.empty() ||
           (primary && (*primary == EmitKind::Cuda || *primary == EmitKind::Header ||
                        *primary == EmitKind::Reference));
  }
  bool needsCuda() const { return compile || wants(EmitKind::Cuda); }
  bool needsHeader() const { return wants(EmitKind::Header) || !headerPath.empty(); }
};

StringRef emitName(EmitKind k) {
  switch (k) {
  case EmitKind::Report: return "report";
  case EmitKind::MLIR: return "mlir";
  case EmitKind::Cuda: return "cuda";
  case EmitKind::Header: return "header";
  case EmitKind::Reference: return "reference";
  }
  return "?";
}

Error optionError(const Twine &msg) { return createStringError(inconvertibleErrorCode(), msg); }

/// The outputs the options ask for. `--emit` (default: the report, or the CUDA
/// file when -o is given) is the primary output, written to -o or standard
/// output; --report, --header and --compile add theirs. Options that contradict
/// each other are an error naming them.
Expected<OutputPlan> planOutputs(const Options &opts) {
  OutputPlan p;
  const bool explicitEmit = opts.emit.getNumOccurrences() > 0;
  const bool reportFlag = opts.report.getNumOccurrences() > 0;
  p.reportJSON = opts.report == "json";
  p.compile = opts.compile;
  p.headerPath = opts.header;
  if (explicitEmit)
    p.primary = opts.emit.getValue();
  else if (!opts.output.empty())
    p.primary = EmitKind::Cuda;
  else if (!opts.compile)
    p.primary = EmitKind::Report;
  if (!opts.output.empty()) {
    if (!p.primary)
      return optionError("-o needs an output: --compile alone writes no file (add --emit=cuda)");
    p.primaryPath = opts.output;
  }
  p.extraReport = reportFlag && !p.wants(EmitKind::Report);
  if (p.wants(EmitKind::Header) && !p.headerPath.empty())
    return optionError("--emit=header and --header both ask for the header; use one of them "
                       "(--emit=header -o <file>, or --header=<file> beside the CUDA file)");
  // At most one output on standard output: two would run into each other.
  std::vector<std::string> onStdout;
  if (p.primary && p.primaryPath == "-")
    onStdout.push_back(explicitEmit ? "--emit=" + emitName(*p.primary).str()
                                    : std::string("the report (the default output)"));
  if (p.extraReport)
    onStdout.push_back("--report");
  if (p.compile)
    onStdout.push_back("--compile (its resource table)");
  if (p.headerPath == "-")
    onStdout.push_back("--header=-");
  if (onStdout.size() > 1)
    return optionError(onStdout[0] + " and " + onStdout[1] +
                       " both write to standard output; send one of them to a file (-o <file>" +
                       (p.headerPath == "-" ? ", --header=<file>" : "") + ")");
  return p;
}

std::string compileTable(const NvrtcResult &res, StringRef arch, bool &spills) {
  std::string out;
  raw_string_ostream os(out);
  os << formatv("NVRTC {0} → {1} cubin, {2} bytes\n", res.nvrtcVersion, arch, res.cubin.size());
  os << formatv("  {0,-48} {1,5} {2,12} {3,12} {4,8}\n", "kernel", "regs", "spill st/ld", "stack",
                "smem");
  spills = false;
  for (const KernelResources &kr : res.kernels) {
    os << formatv("  {0,-48} {1,5} {2,5} / {3,-5} {4,8} B {5,7} B\n", kr.name, kr.registers,
                  kr.spillStoreBytes, kr.spillLoadBytes, kr.stackFrameBytes, kr.sharedBytes);
    spills |= kr.spillStoreBytes || kr.spillLoadBytes;
  }
  return out;
}

int compileMain(int argc, char **argv) {
  Options opts;
  // MLIR's printing flags (--mlir-print-debuginfo shows the FileLineColLoc of
  // every op, --mlir-print-op-generic, ...) for --emit=mlir.
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  cl::HideUnrelatedOptions(opts.category);
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << "creditc version " << CREDIT_VERSION << "\n"
       << "  MLIR/LLVM " << LLVM_VERSION_STRING << ", NVRTC " << nvrtcVersionString() << "\n"
       << "  targets: sm_90 (default), sm_100, sm_120; sm_80, sm_86, sm_89 (no clusters)\n";
  });
  if (!cl::ParseCommandLineOptions(argc, argv,
                                   "creditc: clustered reduction-reuse kernels for Hopper\n\n"
                                   "  creditc op.credit --report [--N=65536]\n"
                                   "  creditc op.credit -o op.cu [--header=op.h]\n"
                                   "  creditc predict op.credit --profile p.json --M 4096 --N 65536 "
                                   "[--tB <ms>]   (docs/cost-model.md)\n",
                                   &errs()))
    return kExitUserError;
  auto error = [](const Twine &msg) {
    WithColor::error(errs(), "creditc") << msg << "\n";
    return kExitUserError;
  };

  if (!opts.report.empty() && opts.report != "json" && opts.report != "text")
    return error("--report takes 'text' or 'json', not '" + opts.report + "'");
  if (!findTarget(opts.arch.c_str()).arch)
    return error("unknown --arch '" + opts.arch + "' (expected " + kTargetList + ")");
  if (opts.threads != 128 && opts.threads != 256 && opts.threads != 512 && opts.threads != 1024)
    return error("--cta-threads must be 128, 256, 512 or 1024");
  if (opts.N < 0 || opts.N > kMaxRowElems)
    return error("--N must be positive and at most " + Twine(kMaxRowElems));
  if (opts.prefix.getNumOccurrences())
    if (std::optional<std::string> why = checkSymbolPrefix(opts.prefix))
      return error("--prefix '" + opts.prefix + "' is not a usable symbol prefix: " + *why);
  std::vector<Variant> variants;
  for (const std::string &v : opts.variants) {
    auto parsed = parseVariant(v);
    if (!parsed)
      return error("unknown --variant '" + v + "' (expected cluster, reread, staged or control)");
    variants.push_back(*parsed);
  }
  // Before sm_90 there are no clusters: the baselines only, and no model-driven
  // dispatch (it chooses cluster sizes).
  std::vector<std::string> pipelineVariants = opts.variants;
  if (!hasClusters(findTarget(opts.arch.c_str()))) {
    for (Variant v : variants)
      if (v == Variant::Cluster || v == Variant::Control)
        return error("--variant=" + variantName(v) + " needs thread-block clusters, which --arch=" +
                     opts.arch + " lacks (sm_90 and later have them)");
    if (!opts.profile.empty())
      return error("--profile (the model-driven dispatch) chooses cluster sizes, which --arch=" +
                   opts.arch + " lacks: leave it out; " + "launch_generic with the staged variant "
                   "where max_legal_n allows N, else reread");
    if (variants.empty()) {
      variants = {Variant::Staged, Variant::Reread};
      pipelineVariants = {"staged", "reread"};
    }
  }
  Expected<OutputPlan> planned = planOutputs(opts);
  if (!planned)
    return error(toString(planned.takeError()));
  const OutputPlan &plan = *planned;

  // The destinations are checked before any work: a conflict costs nothing.
  OutputSet outputs;
  outputs.protect(opts.input);
  outputs.protect(opts.profile);
  std::optional<size_t> primaryOut, headerOut, reportOut, compileOut;
  if (plan.primary) {
    primaryOut = outputs.size();
    outputs.add(opts.output.empty() ? "--emit=" + emitName(*plan.primary).str() : "-o",
                plan.primaryPath);
  }
  if (!plan.headerPath.empty()) {
    headerOut = outputs.size();
    outputs.add("--header", plan.headerPath);
  }
  if (plan.extraReport) {
    reportOut = outputs.size();
    outputs.add("--report", "-");
  }
  if (plan.compile) {
    compileOut = outputs.size();
    outputs.add("--compile", "-");
  }
  if (Error err = outputs.check())
    return error(toString(std::move(err)));

  std::string displayName = opts.input == "-" ? "<stdin>" : opts.input.getValue();
  Expected<std::unique_ptr<MemoryBuffer>> file = readSource(opts.input, displayName);
  if (!file)
    return error(toString(file.takeError()));

  Compilation c(std::move(*file), errs());
  PipelineOptions pipeline;
  pipeline.arch = opts.arch;
  pipeline.N = opts.N;
  pipeline.kernel = opts.kernel;
  pipeline.threads = opts.threads;
  pipeline.variants = pipelineVariants;
  pipeline.reciprocalDiv = !opts.preciseDiv;
  pipeline.stageOpt = !opts.noStageOpt;
  pipeline.onlineStatistics = opts.fuseOnline == OnlineFusion::All && !opts.noStageOpt;
  pipeline.fuseMoments = opts.fuseMoments && !opts.noStageOpt;
  if (c.run(pipeline) != Compilation::Ok)
    return kExitUserError;
  std::vector<mlir::credit::KernelOp> kernels = c.kernels();
  // The reread kernel's own stages (--fuse-online=reread): the same source with
  // online statistics, where that fuses a stage pair.
  const bool rereadWanted = variants.empty() || llvm::is_contained(variants, Variant::Reread);
  std::unique_ptr<Compilation> rereadStages =
      opts.fuseOnline == OnlineFusion::Reread && rereadWanted ? compileRereadStages(c, pipeline) : nullptr;
  auto buildReport = [&](mlir::credit::KernelOp k) {
    return ::credit::buildReport(k, rereadStagesOf(rereadStages.get(), k));
  };
  if (plan.generates() && kernels.size() > 1)
    return error("'" + displayName + "' defines " + Twine(kernels.size()) +
                 " kernels; choose the one to generate with --kernel=<name>");

  bool anyRejected = false;
  for (auto k : kernels)
    anyRejected |= !buildReport(k).accepted;
  const bool reports = plan.wants(EmitKind::Report) || plan.extraReport;
  if (reports) {
    std::string text;
    raw_string_ostream os(text);
    if (plan.reportJSON) {
      json::Array all;
      for (auto k : kernels)
        all.push_back(reportToJSON(buildReport(k)));
      os << formatv("{0:2}", all.size() == 1 ? std::move(all[0]) : json::Value(std::move(all)))
         << "\n";
    } else {
      for (size_t i = 0; i < kernels.size(); ++i) {
        if (i)
          os << "\n";
        printReportText(buildReport(kernels[i]), os);
      }
    }
    outputs.setContents(plan.extraReport ? *reportOut : *primaryOut, std::move(text));
  }
  if (plan.wants(EmitKind::MLIR)) {
    std::string text;
    raw_string_ostream os(text);
    c.module().print(os, mlir::OpPrintingFlags());
    outputs.setContents(*primaryOut, std::move(text));
  }

  if (plan.generates()) {
    mlir::credit::KernelOp kernel = kernels.front();
    Report r = buildReport(kernel);
    if (!r.accepted) {
      // Nothing is generated, so no file is written (all or nothing); a report
      // asked for on standard output still says why.
      if (reportOut)
        outs() << outputs.contents(*reportOut);
      else if (plan.wants(EmitKind::Report) && plan.primaryPath == "-")
        outs() << outputs.contents(*primaryOut);
      errs() << r.location << ": error: kernel '" << r.kernel << "' is rejected (" << r.category
             << "), no CUDA is generated: " << r.reason << "\n";
      return kExitRejected;
    }
    // Printing fails with errors on the kernel; those on the reread kernel's own
    // stages were kept by their compilation, and are printed here.
    auto emitFailed = [&] {
      if (rereadStages)
        errs() << rereadStages->takeDiagnostics();
      return kExitUserError;
    };
    CudaEmitOptions emitOpts;
    emitOpts.arch = opts.arch;
    emitOpts.variants = variants;
    emitOpts.sourceName = displayName;
    emitOpts.sourceText = c.sourceText().str();
    emitOpts.threads = opts.threads;
    emitOpts.fastMathByDefault = mlir::credit::hasHalfPrecisionElementData(kernel);
    emitOpts.fastMath = opts.fastMath == cl::BOU_UNSET ? emitOpts.fastMathByDefault : opts.fastMath == cl::BOU_TRUE;
    emitOpts.standalone = opts.standalone;
    emitOpts.prefix = opts.prefix;
    emitOpts.rereadKernel = rereadStagesOf(rereadStages.get(), kernel);
    if (!opts.profile.empty()) {
      std::optional<DispatchProfile> dispatch =
          dispatchProfile(opts.profile, kernel, rereadStagesOf(rereadStages.get(), kernel), variants);
      if (!dispatch)
        return emitFailed();
      emitOpts.dispatch = std::move(*dispatch);
    }
    if (plan.wants(EmitKind::Reference)) {
      std::string text;
      raw_string_ostream os(text);
      if (failed(emitReference(kernel, displayName, os, opts.prefix)))
        return kExitUserError;
      outputs.setContents(*primaryOut, std::move(text));
    }
    if (plan.needsHeader()) {
      std::string text;
      raw_string_ostream os(text);
      if (failed(emitCudaHeader(kernel, emitOpts, os)))
        return emitFailed();
      outputs.setContents(headerOut ? *headerOut : *primaryOut, std::move(text));
    }
    if (plan.needsCuda()) {
      std::string cuda;
      raw_string_ostream os(cuda);
      if (failed(emitCuda(kernel, emitOpts, os)))
        return emitFailed();
      os.flush();
      if (plan.compile) {
        NvrtcOptions nv;
        nv.arch = opts.arch;
        NvrtcResult res = compileToCubin(cuda, r.kernel + ".cu", nv);
        if (!res.ok) {
          errs() << res.log;
          return error("NVRTC failed to compile the generated code");
        }
        bool spills = false;
        outputs.setContents(*compileOut, compileTable(res, opts.arch, spills));
        if (spills)
          WithColor::warning(errs(), "creditc") << "some kernels spill registers\n";
      }
      if (plan.wants(EmitKind::Cuda))
        outputs.setContents(*primaryOut, std::move(cuda));
    }
  }

  if (Error err = outputs.commit())
    return error(toString(std::move(err)));
  // A rejection is the answer to a question about the verdict (a report);
  // the IR alone carries it in its attributes.
  return anyRejected && reports ? kExitRejected : kExitOk;
}

} // namespace

int credit::driverMain(int argc, char **argv) {
  // `creditc predict ...`: the cost model, with its own options (Predict.cpp).
  int status = argc > 1 && StringRef(argv[1]) == "predict" ? predictMain(argc, argv)
                                                           : compileMain(argc, argv);
  // Whatever went to standard output must have arrived (a full disk, a closed
  // pipe): say so instead of exiting 0, or dying in the stream's destructor.
  outs().flush();
  if (outs().has_error()) {
    std::error_code ec = outs().error();
    outs().clear_error();
    WithColor::error(errs(), "creditc") << "cannot write standard output: " << ec.message() << "\n";
    return kExitUserError;
  }
  return status;
}
