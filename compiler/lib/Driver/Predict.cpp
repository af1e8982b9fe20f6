//===- Predict.cpp - creditc predict: the profitability model ------------===//
//
//   creditc predict op.credit --profile p.json --M 4096 --N 65536 [--tB 0.52 | --measure-tB]
//       [--baseline=auto|reread|staged] [--kernel=K] [--arch=sm_90]
//       [--cta-threads=256] [--report=json]
//
// Prints dT (Eq. 9) with every term for each legal cluster size and protocol,
// priced as the form the launcher runs there, the chosen P and the verdict
// (docs/cost-model.md). Without --tB, T_B is predicted from the profile. Exit status as creditc:
// 0 a prediction was printed (profitable or not), 1 a usage, input or profile
// error, 2 the kernel is rejected by the structural classification.
//
//===----------------------------------------------------------------------===//
#include "credit/Driver/Driver.h"
#include "credit/Dialect/Credit/Transforms/Schedule.h"
#include "credit/Driver/Output.h"
#include "credit/Driver/Pipeline.h"
#include "credit/Model/CostModel.h"
#include "credit/Target/Cuda/CudaEmitter.h"
#include "credit/runtime/Baseline.h"
#include "credit/runtime/Runtime.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

using namespace llvm;
using namespace credit;

namespace {

struct PredictOptions {
  cl::OptionCategory category{"creditc predict options"};
  cl::opt<std::string> input{cl::Positional, cl::desc("<input .credit file, or - for stdin>"),
                             cl::Required, cl::cat(category)};
  cl::opt<std::string> profile{"profile",
                               cl::desc("Device profile JSON (written by credit-calibrate)"),
                               cl::value_desc("file"), cl::Required, cl::cat(category)};
  cl::opt<long long> M{"M", cl::desc("Rows"), cl::Required, cl::cat(category)};
  cl::opt<long long> N{"N", cl::desc("Row width"), cl::Required, cl::cat(category)};
  cl::opt<double> tB{"tB",
                     cl::desc("T_B: the measured time of the non-clustered kernel at (M, N), ms "
                              "(default: predicted from the profile's copy rate)"),
                     cl::value_desc("ms"), cl::init(0.0), cl::cat(category)};
  cl::opt<bool> measureTB{
      "measure-tB",
      cl::desc("Measure T_B on this machine's GPU instead: generate the kernel, JIT it and time "
               "its non-clustered variant at (M, N) (median of 15, L2 flushed)"),
      cl::cat(category)};
  cl::list<std::string> tSlice{
      "t-slice", cl::CommaSeparated,
      cl::desc("T_slice(P) for a staged T_B: the staged kernel's SMEM form (generic variant "
               "staged_smem) timed at M*P rows of slice(N, P) elements, as P:ms[,P:ms...]"),
      cl::value_desc("P:ms"), cl::cat(category)};
  cl::opt<model::BaselineKind> baseline{
      "baseline", cl::desc("Which kernel T_B timed"), cl::init(model::BaselineKind::Auto),
      cl::values(clEnumValN(model::BaselineKind::Auto, "auto",
                            "staged where Eq. 3 allows P = 1, else reread (default)"),
                 clEnumValN(model::BaselineKind::Reread, "reread", "the global-reread kernel"),
                 clEnumValN(model::BaselineKind::Staged, "staged", "the one-CTA staged kernel")),
      cl::cat(category)};
  cl::opt<std::string> report{"report", cl::desc("Output format: --report=text (default) or json"),
                              cl::init("text"), cl::value_desc("text|json"), cl::cat(category)};
  cl::opt<std::string> kernel{"kernel", cl::desc("Only this kernel of the file"),
                              cl::cat(category)};
  cl::opt<std::string> arch{"arch", cl::desc("Target for Eq. 3: sm_90, sm_100 or sm_120"),
                            cl::init("sm_90"), cl::cat(category)};
  cl::opt<int> threads{"cta-threads",
                       cl::desc("Threads per CTA of the generated kernels (128, 256, 512, 1024)"),
                       cl::init(256), cl::cat(category)};
  cl::opt<bool> noStageOpt{"no-stage-opt",
                           cl::desc("The kernels were generated with --no-stage-opt (the stages "
                                    "as written)"),
                           cl::cat(category)};
  cl::opt<OnlineFusion> fuseOnline{
      "fuse-online", cl::desc("Where the kernels were generated with online statistics (as creditc)"),
      cl::ValueOptional, cl::init(OnlineFusion::Reread),
      cl::values(clEnumValN(OnlineFusion::None, "none", "nowhere"),
                 clEnumValN(OnlineFusion::Reread, "reread", "the reread kernel (default)"),
                 clEnumValN(OnlineFusion::All, "all", "every kernel"),
                 clEnumValN(OnlineFusion::All, "", "--fuse-online alone: every kernel")),
      cl::cat(category)};
  cl::opt<bool> fuseMoments{
      "fuse-moments", cl::desc("The kernels were generated with --fuse-moments (as creditc)"),
      cl::cat(category)};
};

} // namespace

int credit::predictMain(int argc, char **argv) {
  PredictOptions opts;
  cl::HideUnrelatedOptions(opts.category);
  // argv[1] is "predict": parse the rest as "creditc predict ...".
  std::string prog = std::string(argc > 0 ? argv[0] : "creditc") + " predict";
  std::vector<const char *> args{prog.c_str()};
  for (int i = 2; i < argc; ++i)
    args.push_back(argv[i]);
  if (!cl::ParseCommandLineOptions(static_cast<int>(args.size()), args.data(),
                                   "creditc predict: the clustered-staging profitability model "
                                   "(docs/cost-model.md)\n\n"
                                   "  creditc predict op.credit --profile p.json --M 4096 "
                                   "--N 65536 --tB 0.52\n",
                                   &errs()))
    return kExitUserError;

  auto fail = [](const Twine &msg) {
    WithColor::error(errs(), "creditc") << msg << "\n";
    return kExitUserError;
  };
  if (opts.report != "text" && opts.report != "json")
    return fail("--report takes 'text' or 'json', not '" + opts.report + "'");
  ::credit::TargetInfo target = ::credit::findTarget(opts.arch.c_str());
  if (!target.arch)
    return fail("unknown --arch '" + opts.arch + "' (expected sm_80, sm_86, sm_89, sm_90, sm_100 or sm_120)");
  if (opts.threads != 128 && opts.threads != 256 && opts.threads != 512 && opts.threads != 1024)
    return fail("--cta-threads must be 128, 256, 512 or 1024");
  if (opts.M < 1 || opts.M > model::kMaxRows)
    return fail(formatv("--M must be in [1, {0}] (a grid holds at most 2^31 - 1 CTAs)", model::kMaxRows));
  if (opts.N < 1 || opts.N > ::credit::kMaxRowElems)
    return fail(formatv("--N must be positive and at most {0}", ::credit::kMaxRowElems));
  const bool haveTB = opts.tB.getNumOccurrences() > 0;
  if (haveTB && opts.measureTB)
    return fail("give either --tB <ms> or --measure-tB, not both");
  if (haveTB && (!(opts.tB >= 1e-9) || !std::isfinite(opts.tB)))
    return fail("--tB must be a positive time in milliseconds (at least 1e-9)");

  std::map<int, double> tSliceMs;
  for (const std::string &item : opts.tSlice) {
    StringRef text(item), pText, msText;
    std::tie(pText, msText) = text.split(':');
    int P = 0;
    double ms = 0;
    if (pText.trim().getAsInteger(10, P) || msText.trim().getAsDouble(ms))
      return fail("--t-slice takes P:ms entries (e.g. --t-slice=2:0.164,4:0.163), not '" + item + "'");
    if (P != 2 && P != 4 && P != 8 && P != 16)
      return fail(formatv("--t-slice: P = {0} is not a cluster size (2, 4, 8 or 16)", P));
    if (!(ms >= 1e-9) || !std::isfinite(ms))
      return fail(formatv("--t-slice: the time for P = {0} must be positive, in milliseconds", P));
    if (!tSliceMs.emplace(P, ms).second)
      return fail(formatv("--t-slice: P = {0} is given twice", P));
  }
  if (!tSliceMs.empty() && opts.measureTB)
    return fail("--measure-tB measures T_slice itself; do not give --t-slice with it");
  if (!tSliceMs.empty() && !haveTB)
    return fail("--t-slice prices T_occ against a measured T_B: give --tB too");

  // The profile first: a bad profile is reported before the kernel is compiled.
  llvm::Expected<model::DeviceProfile> profile = model::loadProfile(opts.profile);
  if (!profile)
    return fail(toString(profile.takeError()));

  std::string displayName = opts.input == "-" ? "<stdin>" : opts.input.getValue();
  llvm::Expected<std::unique_ptr<MemoryBuffer>> file = readSource(opts.input, displayName);
  if (!file)
    return fail(toString(file.takeError()));
  Compilation c(std::move(*file), errs());
  PipelineOptions pipeline;
  pipeline.arch = opts.arch;
  pipeline.N = opts.N;
  pipeline.kernel = opts.kernel;
  pipeline.threads = opts.threads;
  pipeline.stageOpt = !opts.noStageOpt; // the generated kernels' stages
  pipeline.onlineStatistics = opts.fuseOnline == OnlineFusion::All && !opts.noStageOpt;
  pipeline.fuseMoments = opts.fuseMoments && !opts.noStageOpt;
  if (c.run(pipeline) != Compilation::Ok)
    return kExitUserError;
  std::vector<mlir::credit::KernelOp> kernels = c.kernels();
  if (kernels.size() > 1)
    return fail("'" + displayName + "' defines " + Twine(kernels.size()) +
                " kernels; choose one with --kernel=<name>");

  llvm::Expected<model::KernelFacts> factsOr = model::kernelFacts(kernels.front());
  if (!factsOr)
    return fail(toString(factsOr.takeError()));
  model::KernelFacts facts = std::move(*factsOr);
  // The reread kernel's own stages, as creditc generates them (--fuse-online=reread).
  std::unique_ptr<Compilation> rereadStages =
      opts.fuseOnline == OnlineFusion::Reread ? compileRereadStages(c, pipeline) : nullptr;
  mlir::credit::KernelOp rereadKernel = rereadStagesOf(rereadStages.get(), kernels.front());
  ::credit::WorkloadGeometry rereadGeometry{};
  if (rereadKernel && facts.accepted) {
    llvm::Expected<model::KernelFacts> fused = model::kernelFacts(rereadKernel);
    if (!fused)
      return fail(toString(fused.takeError()));
    model::useRereadStages(facts, *fused);
    rereadGeometry = fused->geometry;
  }
  if (!facts.accepted) {
    errs() << displayName << ": error: kernel '" << facts.name << "' is rejected ("
           << facts.category << "), nothing to predict: " << facts.reason << "\n";
    return kExitRejected;
  }
  model::Query q;
  q.M = opts.M;
  q.N = opts.N;
  q.tBMs = haveTB ? opts.tB : 0.0; // 0: predicted
  q.baseline = opts.baseline;
  q.tSliceMs = tSliceMs;
  std::string measuredNote;
  if (opts.measureTB) {
    // The baseline kernel predict would assume (auto: staged where Eq. 3
    // allows P = 1), generated, JIT-compiled and timed on this GPU.
    const bool stagedLegal = facts.stagedLegal();
    bool staged = opts.baseline == model::BaselineKind::Staged ||
                  (opts.baseline == model::BaselineKind::Auto && stagedLegal);
    if (opts.baseline == model::BaselineKind::Staged && !stagedLegal)
      return fail(formatv("the staged kernel is not legal at N = {0} (Eq. 3, P = 1)", opts.N));
    // Only the baselines are generated: the schedule says so too.
    mlir::credit::VariantSet baselines{/*cluster=*/false, /*staged=*/true, /*reread=*/true,
                                       /*control=*/false};
    mlir::FailureOr<mlir::credit::KernelSchedule> schedule =
        mlir::credit::computeSchedule(kernels.front(), opts.threads, baselines);
    if (failed(schedule))
      return kExitUserError;
    mlir::credit::writeSchedule(kernels.front(), *schedule);
    CudaEmitOptions emitOpts;
    emitOpts.arch = opts.arch;
    emitOpts.variants = {Variant::Staged, Variant::Reread};
    emitOpts.sourceName = displayName;
    emitOpts.threads = opts.threads;
    emitOpts.rereadKernel = rereadKernel;
    std::string source;
    {
      raw_string_ostream os(source);
      if (failed(emitCuda(kernels.front(), emitOpts, os)))
        return kExitUserError;
    }
    ::credit::Runtime rt;
    ::credit::Status st = ::credit::Runtime::create(rt);
    if (!st.ok())
      return fail("--measure-tB needs a CUDA GPU: " + st.message);
    ::credit::BaselineRequest req;
    req.source = source;
    req.kernel = facts.name;
    req.geometry = facts.geometry;
    req.vectorWidth = facts.vectorWidth;
    req.keptInputs = facts.keptInputs;
    req.rereadGeometry = rereadGeometry;
    req.staged = staged;
    req.M = opts.M;
    req.N = opts.N;
    ::credit::Expected<::credit::BaselineTiming> t = ::credit::timeBaselineKernel(rt, req);
    if (!t.ok())
      return fail("--measure-tB: " + t.status.message);
    q.tBMs = t.value.medianMs;
    q.baseline = staged ? model::BaselineKind::Staged : model::BaselineKind::Reread;
    measuredNote = formatv("T_B measured on {0} ({1}): {2} ms, {3} at grid {4}, median of {5} "
                           "(min {6} ms), L2 flushed before each",
                           rt.device().name, rt.arch(), t.value.medianMs, t.value.function, opts.M,
                           t.value.reps, t.value.minMs)
                       .str();
    // T_slice(P) where the staged kernel runs one CTA per SM on this device
    // (the only shapes where T_occ can change the verdict, docs/cost-model.md).
    if (staged) {
      ::credit::Expected<std::vector<::credit::SliceTiming>> slices = ::credit::timeSliceKernels(rt, req);
      if (!slices.ok())
        return fail("--measure-tB: " + slices.status.message);
      std::string sliceNote;
      for (const ::credit::SliceTiming &s : slices.value) {
        q.tSliceMs[s.P] = s.timing.medianMs;
        sliceNote += formatv("{0}P = {1}: {2} ms ({3} at {4} x {5})", sliceNote.empty() ? "" : "; ", s.P,
                             s.timing.medianMs, s.timing.function, s.rows, s.width)
                         .str();
      }
      if (!sliceNote.empty())
        measuredNote += "; T_slice measured the same way: " + sliceNote;
    }
  }
  llvm::Expected<model::Prediction> p = model::predict(facts, *profile, q);
  if (!p)
    return fail(toString(p.takeError()));
  if (!measuredNote.empty())
    p->notes.insert(p->notes.begin(), measuredNote);
  if (opts.report == "json")
    outs() << formatv("{0:2}", model::predictionToJSON(*p)) << "\n";
  else
    model::printPrediction(*p, outs());
  return kExitOk;
}
