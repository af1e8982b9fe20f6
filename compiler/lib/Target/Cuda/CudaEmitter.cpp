//===- CudaEmitter.cpp - credit dialect → self-contained CUDA C++ ---------===//
//
// One translation unit per accepted `credit.kernel` K:
//   1. a header comment with the report figures and the formulas,
//   2. Layout.h, LaunchCheck.h and credit_device.cuh verbatim,
//   3. a few codegen helpers (vector loads/stores, the saturating f32 -> i8),
//   4. namespace credit_K: constexpr metadata and the ONE device template
//      credit_K_body<VEC, MODE> that holds the whole schedule,
//   5. extern "C" __global__ wrappers with stable names,
//   6. the host launch API (not under NVRTC).
// docs/codegen.md describes the generated code; the schedule is the paper's
// Fig. 2 with the exchange protocols of credit_device.cuh.
//
//===----------------------------------------------------------------------===//
#include "credit/Target/Cuda/CudaEmitter.h"

#include "CudaExpr.h"

#include "credit/Dialect/Credit/Transforms/Analyses.h"
#include "credit/runtime/EmbeddedSources.h"
#include "credit/runtime/Layout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cstdio>
#include <string>

#ifndef CREDIT_VERSION
#define CREDIT_VERSION "0.0.0"
#endif

namespace cr = mlir::credit;
using credit::cudaold::ExprPrinter;
using credit::cudaold::ExprStyle;
using credit::cudaold::NameTable;
using llvm::formatv;
using llvm::raw_ostream;
using llvm::StringRef;
using mlir::Operation;
using mlir::Value;

// The retained slice is stored with the same strided mapping the loops use:
// thread t owns the 16-byte run (VEC = 4) or word (VEC = 1) at element
// VEC*(t + 256k). Runs are VEC words apart and accessed VEC words wide, which
// is conflict-free without padding (seed 002: gcd(S, 32) <= w); the generated
// code repeats this check as a static_assert.
static_assert(!::credit::needsPad(4, 4, 16), "float4 runs 4 words apart must be conflict-free");
static_assert(!::credit::needsPad(1, 4, 4), "scalar runs 1 word apart must be conflict-free");
static_assert(mlir::credit::kThreadsPerCta % 32 == 0, "whole warps");

std::optional<credit::Variant> credit::parseVariant(llvm::StringRef n) {
  return llvm::StringSwitch<std::optional<Variant>>(n)
      .Case("cluster", Variant::Cluster)
      .Case("reread", Variant::Reread)
      .Case("staged", Variant::Staged)
      .Case("control", Variant::Control)
      .Default(std::nullopt);
}

llvm::StringRef credit::variantName(Variant v) {
  switch (v) {
  case Variant::Cluster: return "cluster";
  case Variant::Reread: return "reread";
  case Variant::Staged: return "staged";
  case Variant::Control: return "control";
  }
  return "?";
}

namespace {

/// `name_suffix`, without doubling an underscore that sanitizing added.
std::string derived(const std::string &name, llvm::StringRef suffix) {
  return name + (llvm::StringRef(name).ends_with("_") ? "" : "_") + suffix.str();
}

const char *kindMacro(cr::ReduceKind k) {
  switch (k) {
  case cr::ReduceKind::sum: return "CREDIT_SUM";
  case cr::ReduceKind::max: return "CREDIT_MAX";
  case cr::ReduceKind::min: return "CREDIT_MIN";
  }
  return "CREDIT_SUM";
}

const char *kindWord(cr::ReduceKind k) {
  switch (k) {
  case cr::ReduceKind::sum: return "sum";
  case cr::ReduceKind::max: return "max";
  case cr::ReduceKind::min: return "min";
  }
  return "sum";
}

/// Identifiers the generated body, wrappers and launchers use themselves.
/// Source names never take them (they get a trailing underscore instead).
const char *const kInternalNames[] = {
    // metadata namespace
    "L", "qSum", "qMax", "keepBytesPerElem", "numKept", "keptInputs", "K_sync", "K_mbarrier",
    "kThreads", "kWarps", "kFastMath", "geometry", "target", "smem_bytes", "reread_smem_bytes",
    "max_legal_n", "control_sink", "argNames", "numArgs", "CLUSTER_SYNC", "CLUSTER_MBARRIER",
    "STAGED", "REREAD", "CONTROL_SYNC", "CONTROL_MBARRIER", "STAGED_REGS", "kRegs", "kRegIters",
    "CLUSTER_REGS_SYNC", "CLUSTER_REGS_MBARRIER", "RPT", "kRegPrefetch", "kPrefetchH", "numInputsOnlyHReads", "cluster_regs_smem_bytes", "cluster_slice_fits_registers",
    "it", "credit_copy", "credit_ld_global_if", "in_slice", "kStatusOk", "kStatusBadProtocol",
    "kStatusCudaErrorBase", "kStatusBadVariant", "kStatusNoPlan", "kStatusBadTiming", "host",
    "launch", "status_string", "same", "variant", "dispatch", "credit_plan", "out", "model", "tuned",
    "tB_ms",
    // body
    "VEC", "MODE", "M", "N", "P", "N_f", "kCluster", "kControl", "kRetain", "kSyncExchange",
    "kMbarExchange", "kProtocol", "tid", "warp", "lane", "rank", "row", "slice", "begin", "len",
    "layout", "smem", "warp_partials", "cta_partial", "slots", "bars", "stage_slots",
    "stage_bar", "off", "vi", "stage", "base", "u", "kUnroll", "kBulk", "load_bars", "chunk",
    "c", "cbeg", "cend", "k", "bar",
    // launchers
    "protocol", "stream", "dev", "err", "optin", "sms", "vec4", "ptrs", "elemBytes",
    "vecPtrs", "vecBytes", "smemBytes", "maxLegal", "proto", "kernel", "status", "clusterKernel",
    "args", "lim", "req", "cfg", "attr", "maxCluster", "Kernel", "Args", "Params", "Pc", "maxN",
    "regsKernel", "kWideCtaThreads", "geometry_wide_cta", "smem_bytes_wide_cta", "wide_cta", "launch_geo",
    "THREADS", "device_smem", "perSm", "form", "kNumDataArgs", "kArgKind", "kArgBytes", "timeSlices", "tSlice",
    // the partial-retention form
    "kPartial", "kHasPartialForm", "partialDropped", "geometry_partial", "smem_bytes_partial",
    "CLUSTER_PARTIAL_SYNC", "CLUSTER_PARTIAL_MBARRIER", "partial_retention", "partialOk",
    "kPartialDroppedReadLate", "kKeptInputReadLate",
    // the persistent form
    "CLUSTER_PERSISTENT", "kPersistent", "kSweeps", "kChunked", "numHoistedInputs", "smem_bytes_persistent",
    "persistent", "persistentOk", "persistentMode", "whereFits", "ring", "ring_pieces", "ring_copies", "piece1", "piece_base",
    "piece_elems", "persistent_ring", "kPiece1Sweep", "PIECES", "ring_u0", "ring_lap", "row_unit", "row_parity", "ring_stage", "ring_phase", "ring_load", "rows", "row_first",
    "clusters", "stage_base", "resident", "ring_unit", "ring_refill", "ring_copy", "kRingArrays", "j0", "freed",
    "release_in_h", "halves", "credit_bulk_prefetch_l2",
    // the persistent form's row claims
    "claims", "claim_ahead", "claim_slots", "claim_queue", "claim_handoff", "kClaimThread", "claim_pending", "row_at", "row_claims",
    "row_claims_counter", "launch_persistent", "RowClaimLease", "rowClaims", "credit_send_row_claim",
    "claim_rows_min", "claim_from_share", "claim_from", "claim_sent_at", "kClaims", "CLAIMS", "row_exists",
    "row_index", "claims_kernel", "staticKernel", "claimsKernel"};

struct InputInfo {
  cr::InputOp op;
  std::string src;   // the .credit name
  std::string name;  // C++ name of the element value (row/broadcast) or the row value (scalar)
  std::string gmem;  // body parameter: the global pointer
  std::string slice; // this CTA's slice in global memory (row/broadcast)
  std::string smem;  // the retained slice (kept inputs)
  std::string reg;   // the row held in registers (kept inputs, STAGED_REGS)
  std::string keep;  // constexpr bool of the body: this instantiation retains it in SMEM (kept inputs)
  std::string bulk;  // constexpr bool of the body: ... and fills it with bulk copies
  std::string vec;   // the VEC loaded elements
  int keptIndex = -1; // its SMEM array (and bulk-load mbarriers): the partial form's dropped input is last
  int ringIndex = -1; // the persistent form's copy order: its place among the kept inputs by first read
  int firstPass = -1;
  llvm::SmallVector<int> passes; // passes reading it (row and broadcast inputs)
  bool onlyH = false;  // a streamed row input or broadcast vector that only h reads
  std::string hreg;    // onlyH: its elements loaded at entry (STAGED_REGS, kPrefetchH)
};

struct OutputInfo {
  cr::OutputOp op;
  std::string src, name, gmem, slice, vec;
  bool perElement = false;
  bool i8 = false;
  int applyResult = -1;
};

struct PassInfo {
  Operation *op = nullptr; // StageOp or ApplyOp
  bool isStage = false;
  int stage = -1; // 0-based stage index
  llvm::SmallVector<InputInfo *> rowInputs, broadcastInputs;
};

/// A kept input whose every read after its first pass goes through the same
/// element expression T(x, row-level values): from pass `pass` on, the
/// retained slice holds T(x) instead of x (written back by that pass), so the
/// later passes load T(x) instead of recomputing it -- exactly the same value,
/// computed once. REREAD recomputes T from x, as before.
struct Materialized {
  InputInfo *input = nullptr;
  int pass = -1;                               // the pass that computes and stores T(x)
  std::string name, vec;                       // C++ names: T(x) per element, its VEC array
  llvm::DenseMap<Operation *, Operation *> endOf; // element region -> T's root op in it
  llvm::DenseSet<Operation *> chainOps;        // every op of T, in every region
  std::string math;                            // T printed for the header comment
};

struct StageInfo {
  cr::StageOp op;
  int index = 0; // 0-based
  llvm::SmallVector<cr::ReduceOp> reds;
  llvm::SmallVector<std::string> acc;    // per-thread accumulators
  llvm::SmallVector<std::string> result; // combined statistic r_{l,j}
  int qPrefix = 0;                       // q_1 + ... + q_{l-1}
};

class KernelEmitter {
public:
  KernelEmitter(cr::KernelOp kernel, const credit::CudaEmitOptions &options, raw_ostream &os)
      : kernel(kernel), options(options), os(os), rowP(ExprStyle::Cuda),
        mathP(ExprStyle::Math) {}

  mlir::LogicalResult run();
  /// The C/C++ header declaring the extern "C" API that run() defines.
  mlir::LogicalResult runHeader();
  /// The analyses only: the partial-retention and persistent forms run() would
  /// generate, with the constants their launcher rules use.
  mlir::FailureOr<credit::LauncherForms> forms();

private:
  mlir::LogicalResult analyze();
  mlir::LogicalResult check(ExprPrinter &p);
  ExprStyle elementStyle() const { return options.fastMath ? ExprStyle::CudaFast : ExprStyle::Cuda; }
  bool wants(credit::Variant v) const {
    return options.variants.empty() ||
           llvm::is_contained(options.variants, v);
  }

  // Sections.
  void emitHeader();
  void emitEmbedded();
  void emitHelpers();
  void emitMetadata();
  void emitBody();
  void emitKernels();
  void emitHost();
  void emitApiHeader();
  void emitDispatch();
  std::string dispatchPrototypes() const;

  // Body pieces.
  /// The register forms' entry loads: a loop over this thread's elements in the
  /// passes' layout (`it`, `u` compile-time, `off`, `in_slice`), `loads` printing
  /// the predicated loads at 8 spaces.
  void emitSweepLoads(llvm::function_ref<void()> loads) {
    os << "    #pragma unroll\n";
    os << "    for (int it = 0; it < kRegIters; ++it) {\n";
    os << "      #pragma unroll\n";
    os << "      for (int u = 0; u < kUnroll; ++u) {\n";
    os << "        const unsigned off = VEC * tid + it * (kUnroll * VEC * kThreads) + u * VEC * kThreads;\n";
    os << "        const bool in_slice = off < len;  // past the slice: no access, zeros (never read)\n";
    loads();
    os << "      }\n";
    os << "    }\n";
  }
  void emitRowLevelOp(Operation *op, const std::string &indent);
  void emitStage(StageInfo &s);
  void emitPassLoop(PassInfo &pass, const std::string &indent);
  void emitApply(PassInfo &pass);
  std::string passLabel(int pass) const;
  std::string laterReaders(const InputInfo &in) const;

  // Signatures.
  std::string bodyParams() const;      // parameter list of the body template
  std::string kernelParams() const;    // data parameters of the __global__ wrappers
  std::string hostParams() const;      // data parameters of the launchers
  /// Threads of the wide-CTA twins (0: none) and whether the register-resident
  /// forms are generated: credit::wideCtaThreads / hasRegisterForms (Layout.h).
  int wideCtaThreads() const { return credit::wideCtaThreads(geo.threads); }
  bool registerForms() const { return credit::hasRegisterForms(geo.threads); }
  std::string argNames() const;        // comma-joined data argument names
  // The extern "C" functions of the launch API, shared by the definitions
  // (emitHost) and the declarations (emitApiHeader).
  enum class Api { Cluster, Staged, Reread, Control, Signature, MaxLegalN, Generic, StatusString };
  std::string prototype(Api fn) const;
  std::string signatureString() const;

  cr::KernelOp kernel;
  const credit::CudaEmitOptions &options;
  raw_ostream &os;

  std::string K;   // kernel name
  std::string ns;  // credit_K
  ::credit::TargetInfo target{};
  cr::Traffic traffic;
  cr::Barriers barriers;
  ::credit::WorkloadGeometry geo{};
  int L = 0;

  NameTable names;
  credit::cudaold::LetNames letNames;
  ExprPrinter rowP;  // row-level values, CUDA
  ExprPrinter mathP; // header comment

  std::vector<std::unique_ptr<InputInfo>> inputs; // declaration order
  llvm::DenseMap<Operation *, InputInfo *> inputOf;
  std::vector<OutputInfo> outputs; // IR order
  std::vector<cr::ParamOp> params;
  std::vector<PassInfo> passes;
  std::vector<StageInfo> stages;
  cr::ApplyOp apply;
  std::vector<Materialized> materialized;
  mlir::LogicalResult findMaterializations();
  /// The materialization `op` belongs to, if it is in effect in pass `pass`.
  const Materialized *materializedOp(Operation *op, int pass) const {
    for (const Materialized &m : materialized)
      if (pass >= m.pass && m.chainOps.contains(op))
        return &m;
    return nullptr;
  }
  /// The partial-retention form (two or more kept inputs): the kept input it
  /// re-reads from global memory instead of retaining; null: no such form.
  InputInfo *partialDropped = nullptr;
  void choosePartialRetention();
  /// The partial form's geometry (`geometry_partial`): one kept f32 input
  /// fewer; the full geometry where there is no such form.
  ::credit::WorkloadGeometry partialGeometry() const {
    ::credit::WorkloadGeometry g = geo;
    if (partialDropped)
      g.keepBytesPerElem -= 4;
    return g;
  }
  /// Whether the dropped input is first read after the first pass over the
  /// kept inputs (its slice would sit idle in SMEM until then).
  bool partialDroppedReadLate() const {
    if (!partialDropped)
      return false;
    for (cr::InputOp k : traffic.kept)
      if (inputOf.lookup(k)->firstPass < partialDropped->firstPass)
        return true;
    return false;
  }
  /// Whether some kept input is first read by a later pass than another one
  /// (softmax_logits_bwd's dy, first read by stage 3): credit::persistentRing.
  bool keptInputReadLate() const {
    int first = -1, last = -1;
    for (cr::InputOp k : traffic.kept) {
      const int p = inputOf.lookup(k)->firstPass;
      first = first < 0 || p < first ? p : first;
      last = p > last ? p : last;
    }
    return last > first;
  }
  /// Inputs only h reads (InputInfo::onlyH).
  int numOnlyH() const {
    int n = 0;
    for (const auto &in : inputs)
      n += in->onlyH ? 1 : 0;
    return n;
  }
  /// Broadcast inputs only h reads: the persistent form loads them once per CTA.
  int numHoisted() const {
    int n = 0;
    for (const auto &in : inputs)
      n += in->onlyH && in->op.isBroadcast() ? 1 : 0;
    return n;
  }
  /// The persistent form is generated (credit::usePersistent can hold).
  bool persistentForm() const { return !traffic.kept.empty() && registerForms() && wideCtaThreads() > 0; }
  /// The wide-CTA twins' geometry (`geometry_wide_cta`): the full geometry at
  /// the twin's threads (the file's own where it has no twin).
  ::credit::WorkloadGeometry wideCtaGeometry() const {
    ::credit::WorkloadGeometry g = geo;
    g.threads = wideCtaThreads() ? wideCtaThreads() : geo.threads;
    return g;
  }
  /// A row input only h reads: the persistent form asks L2 for its slice at each
  /// row's start, and h's loads find it there.
  bool prefetchedIntoL2(const InputInfo &in) const {
    cr::InputOp op = in.op;  // the op's accessors are not const
    return persistentForm() && op.isRow() && in.onlyH;
  }
  /// The generated text (emitCuda's buffer): emitBody indents the row loop's body.
  std::string *text = nullptr;
public:
  void setText(std::string *t) { text = t; }
private:
  llvm::DenseMap<Operation *, std::string> tempName; // row-level temporaries
  std::vector<std::string> statNames;                // every statistic, for the control sink
  bool genFailed = false;
};

//===----------------------------------------------------------------------===//
// Analysis: names, passes, stages
//===----------------------------------------------------------------------===//

mlir::LogicalResult KernelEmitter::check(ExprPrinter &p) {
  if (p.ok())
    return mlir::success();
  if (Operation *op = p.failure())
    return op->emitError("cannot generate CUDA: ") << p.failureReason();
  return kernel.emitError("cannot generate CUDA: ") << p.failureReason();
}

mlir::LogicalResult KernelEmitter::analyze() {
  K = kernel.getSymName().str();
  ns = "credit_" + K;
  for (char c : K)
    if (!(llvm::isAlnum(c) || c == '_'))
      return kernel.emitError("cannot generate CUDA: kernel name '")
             << K << "' is not a C identifier";
  target = ::credit::findTarget(options.arch.c_str());
  if (!target.arch)
    return kernel.emitError("cannot generate CUDA: unknown target '") << options.arch << "'";

  traffic = cr::computeTraffic(kernel);
  barriers = cr::computeBarriers(kernel);
  geo = cr::computeGeometry(kernel, options.threads);
  L = static_cast<int>(traffic.L);
  if (L < 1)
    return kernel.emitError("cannot generate CUDA: the kernel has no stage");
  if (!cr::isSupportedCtaSize(geo.threads))
    return kernel.emitError("cannot generate CUDA: threads per CTA must be 128, 256, 512 or 1024");

  for (const char *n : kInternalNames)
    names.reserve(n);

  // Inputs, params, outputs: their names first, so that they keep their
  // source spelling whenever possible; derived names after.
  for (cr::InputOp in : kernel.getInputOps()) {
    auto info = std::make_unique<InputInfo>();
    info->op = in;
    info->src = in.getName().str();
    info->name = names.unique(info->src);
    inputOf[in] = info.get();
    inputs.push_back(std::move(info));
  }
  for (cr::ParamOp p : kernel.getParamOps()) {
    params.push_back(p);
    // Params live in the metadata namespace next to q[] (which locals may shadow).
    NameTable paramScope = names;
    paramScope.reserve("q");
    std::string n = paramScope.unique(p.getName());
    names.reserve(n);
    rowP.bind(p.getResult(), n);
    mathP.bind(p.getResult(), p.getName().str());
  }
  for (cr::OutputOp out : kernel.getOutputOps()) {
    OutputInfo o;
    o.op = out;
    o.src = out.getName().str();
    o.name = names.unique(o.src);
    o.perElement = cr::isRowValue(out.getValue());
    o.i8 = cr::elementBytes(out.getValue().getType()) == 1;
    if (!o.perElement && o.i8)
      return out.emitError("cannot generate CUDA: per-row i8 outputs are not supported");
    outputs.push_back(o);
  }
  for (auto &in : inputs) {
    in->gmem = names.unique(derived(in->name, "gmem"));
    if (!in->op.isScalar()) {
      in->slice = names.unique(derived(in->name, "slice"));
      in->vec = names.unique(derived(in->name, "v"));
    }
    rowP.bind(in->op.getResult(), in->name);
    mathP.bind(in->op.getResult(), in->src);
  }
  for (OutputInfo &o : outputs) {
    o.gmem = names.unique(derived(o.name, "gmem"));
    if (o.perElement) {
      o.slice = names.unique(derived(o.name, "slice"));
      o.vec = names.unique(derived(o.name, "v"));
    }
  }
  for (auto [i, in] : llvm::enumerate(traffic.kept)) {
    InputInfo *info = inputOf.lookup(in);
    if (!info || !info->op.isRow())
      return kernel.emitError("cannot generate CUDA: kept input is not a row input");
    info->keptIndex = static_cast<int>(i);
    info->smem = names.unique(derived(info->name, "smem"));
    info->reg = names.unique(derived(info->name, "r"));
    info->keep = names.unique(derived(info->name, "keep"));
    info->bulk = names.unique(derived(info->name, "bulk"));
  }

  // Passes: every stage, then h. The inputs a pass loads are the row and
  // broadcast operands of its reduce/apply regions (canonicalization leaves
  // exactly the operands the regions use).
  apply = kernel.getApplyOp();
  int qPrefix = 0;
  for (Operation &op : kernel.getBodyBlock()) {
    auto stage = llvm::dyn_cast<cr::StageOp>(op);
    if (!stage)
      continue;
    StageInfo s;
    s.op = stage;
    s.index = static_cast<int>(stages.size());
    s.qPrefix = qPrefix;
    for (Operation &inner : stage.getBodyBlock()) {
      if (auto sel = llvm::dyn_cast<cr::SelectOp>(inner))
        return sel.emitError("cannot generate CUDA: selections are not reductions");
      if (auto red = llvm::dyn_cast<cr::ReduceOp>(inner))
        s.reds.push_back(red);
    }
    qPrefix += static_cast<int>(s.reds.size());
    stages.push_back(std::move(s));
  }
  if (static_cast<int>(stages.size()) != L)
    return kernel.emitError("cannot generate CUDA: stage count disagrees with the traffic analysis");
  for (StageInfo &s : stages)
    if (static_cast<int>(s.reds.size()) != traffic.q[s.index])
      return s.op.emitError("cannot generate CUDA: q disagrees with the traffic analysis");

  auto collect = [&](PassInfo &pass, cr::ElementRegionOpInterface region) -> mlir::LogicalResult {
    for (Value operand : region.getInputs()) {
      if (!cr::isRowValue(operand))
        continue;
      auto in = operand.getDefiningOp<cr::InputOp>();
      if (!in)
        return region->emitError("cannot generate CUDA: a row operand that is not an input");
      InputInfo *info = inputOf.lookup(in);
      auto &list = in.isBroadcast() ? pass.broadcastInputs : pass.rowInputs;
      if (!llvm::is_contained(list, info))
        list.push_back(info);
    }
    return mlir::success();
  };
  auto byDecl = [](InputInfo *a, InputInfo *b) { return a->op->isBeforeInBlock(b->op); };
  for (StageInfo &s : stages) {
    PassInfo pass;
    pass.op = s.op;
    pass.isStage = true;
    pass.stage = s.index;
    for (cr::ReduceOp red : s.reds)
      if (failed(collect(pass, llvm::cast<cr::ElementRegionOpInterface>(red.getOperation()))))
        return mlir::failure();
    llvm::sort(pass.rowInputs, byDecl);
    llvm::sort(pass.broadcastInputs, byDecl);
    passes.push_back(std::move(pass));
  }
  if (apply) {
    PassInfo pass;
    pass.op = apply;
    if (failed(collect(pass, llvm::cast<cr::ElementRegionOpInterface>(apply.getOperation()))))
      return mlir::failure();
    llvm::sort(pass.rowInputs, byDecl);
    llvm::sort(pass.broadcastInputs, byDecl);
    passes.push_back(std::move(pass));
    for (auto [i, res] : llvm::enumerate(apply.getResults()))
      for (OutputInfo &o : outputs)
        if (o.op.getValue() == res)
          o.applyResult = static_cast<int>(i);
  }
  for (auto [p, pass] : llvm::enumerate(passes))
    for (const auto *list : {&pass.rowInputs, &pass.broadcastInputs})
      for (InputInfo *in : *list) {
        if (in->firstPass < 0)
          in->firstPass = static_cast<int>(p);
        in->passes.push_back(static_cast<int>(p));
      }
  // Inputs only h reads (never kept: one pass reads them): the staged register
  // forms may load them at entry with the kept row (credit::prefetchInputsOfH).
  for (auto &in : inputs)
    if (in->keptIndex < 0 && in->passes.size() == 1 && !passes[in->passes.front()].isStage) {
      in->onlyH = true;
      in->hreg = names.unique(derived(in->name, "hr"));
    }
  // Consistency with the geometry (credit::isLightRegisterRow reads it).
  if (numOnlyH() != geo.hOnlyArrays)
    return kernel.emitError(formatv("cannot generate CUDA: {0} inputs only h reads, the geometry counts {1}",
                                    numOnlyH(), geo.hOnlyArrays)
                                .str());
  // Consistency with the traffic analysis: an input is kept iff several
  // passes read it.
  for (auto &in : inputs)
    if (in->op.isRow() && ((in->passes.size() > 1) != (in->keptIndex >= 0)))
      return in->op.emitError("cannot generate CUDA: the passes reading '")
             << in->src << "' disagree with the traffic analysis";

  // Statistics and reduce results.
  for (Operation &op : kernel.getBodyBlock())
    if (auto rw = llvm::dyn_cast<cr::RowWidthOp>(op)) {
      rowP.bind(rw.getResult(), "N_f");
      mathP.bind(rw.getResult(), "N");
    }
  for (StageInfo &s : stages) {
    cr::YieldOp yield = s.op.getYieldOp();
    llvm::DenseMap<Value, std::string> claimed;
    for (unsigned i = 0; i < s.op.getNumResults(); ++i) {
      std::string stat = names.unique(s.op.getResultName(i));
      statNames.push_back(stat);
      rowP.bind(s.op.getResult(i), stat);
      mathP.bind(s.op.getResult(i), s.op.getResultName(i).str());
      Value y = yield.getOperand(i);
      Operation *def = y.getDefiningOp();
      if (!claimed.count(y) && def && def->getBlock() == &s.op.getBodyBlock() &&
          (llvm::isa<cr::ReduceOp>(def) ||
           (ExprPrinter::isExprOp(def) && !llvm::isa<mlir::arith::ConstantOp>(def)))) {
        claimed[y] = stat;
        if (!llvm::isa<cr::ReduceOp>(def))
          tempName[def] = stat;
      }
    }
    for (auto [j, red] : llvm::enumerate(s.reds)) {
      s.acc.push_back(names.unique(formatv("acc{0}_{1}", s.index + 1, j + 1).str()));
      auto it = claimed.find(red.getResult());
      std::string r = it != claimed.end()
                          ? it->second
                          : names.unique(formatv("r{0}_{1}", s.index + 1, j + 1).str());
      s.result.push_back(r);
      rowP.bind(red.getResult(), r);
      mathP.bind(red.getResult(), formatv("r_{{{0},{1}}", s.index + 1, j + 1).str());
    }
  }

  // Row-level temporaries (kernel body and stage post-math), in program order.
  int counter = 0;
  auto nameRowOps = [&](mlir::Block &block) {
    for (Operation &op : block) {
      if (!ExprPrinter::isExprOp(&op) || llvm::isa<mlir::arith::ConstantOp>(op))
        continue;
      std::optional<std::string> let = letNames.lookup(&op);
      if (tempName.count(&op))
        continue;
      if (!credit::cudaold::needsTemporary(&op, let.has_value()))
        continue;
      tempName[&op] = names.unique(let ? *let : formatv("t{0}", counter++).str());
      if (let)
        mathP.bind(op.getResult(0), *let);
    }
  };
  nameRowOps(kernel.getBodyBlock());
  for (StageInfo &s : stages)
    nameRowOps(s.op.getBodyBlock());
  for (auto &[op, n] : tempName)
    rowP.bind(op->getResult(0), n);
  if (failed(findMaterializations()))
    return mlir::failure();
  choosePartialRetention();
  // Anything else in the kernel body we do not know.
  for (Operation &op : kernel.getBodyBlock()) {
    if (llvm::isa<cr::InputOp, cr::ParamOp, cr::RowWidthOp, cr::StageOp, cr::ApplyOp,
                  cr::OutputOp>(op) ||
        ExprPrinter::isExprOp(&op))
      continue;
    return op.emitError("cannot generate CUDA: unsupported op '")
           << op.getName().getStringRef() << "'";
  }
  return mlir::success();
}

/// Which kept input the partial-retention form re-reads: the one whose reads
/// after the first are fewest (each is a read from global memory, served by
/// L2 when the passes are close), never one the retained slice holds as T(x)
/// (that saving would be lost) unless every kept input is; on a tie the last
/// the analyses list (they list inputs in the order the passes first read
/// them). softmax_logits_bwd: dy (read by stage 3 and h only, while x is read
/// by all four passes and holds exp(x - m)); pearson_bwd: y.
void KernelEmitter::choosePartialRetention() {
  if (traffic.kept.size() < 2)
    return;
  auto isMaterialized = [&](const InputInfo *in) {
    return llvm::any_of(materialized, [&](const Materialized &m) { return m.input == in; });
  };
  bool allMaterialized = true;
  for (cr::InputOp k : traffic.kept)
    allMaterialized &= isMaterialized(inputOf.lookup(k));
  for (cr::InputOp k : traffic.kept) {
    InputInfo *in = inputOf.lookup(k);
    if (!allMaterialized && isMaterialized(in))
      continue;
    if (!partialDropped || in->passes.size() <= partialDropped->passes.size())
      partialDropped = in;
  }
  // Its SMEM array goes last, so that the partial form's layout is the full
  // form's without the last array: every other array keeps its offset.
  int slot = 0;
  for (cr::InputOp k : traffic.kept) {
    InputInfo *in = inputOf.lookup(k);
    if (in != partialDropped)
      in->keptIndex = slot++;
  }
  partialDropped->keptIndex = slot;
}

namespace {
/// One step of a unary chain: the op, which operand carries the chain, and
/// its other operands (outer row-level values or constants).
struct ChainStep {
  Operation *op = nullptr;
  unsigned chainOperand = 0;
  llvm::SmallVector<std::pair<Value, mlir::Attribute>> others; // (outer value | constant)
  bool sameAs(const ChainStep &o) const {
    return op->getName() == o.op->getName() && op->getAttrDictionary() == o.op->getAttrDictionary() &&
           chainOperand == o.chainOperand && others == o.others;
  }
};

bool isCostly(Operation *op) {
  return llvm::isa<mlir::math::ExpOp, mlir::math::LogOp, mlir::math::SqrtOp, mlir::math::RsqrtOp,
                   mlir::math::TanhOp, mlir::arith::DivFOp>(op);
}

/// The ops applied to block argument `argNo` of `region` alone: each value of
/// the chain has exactly one use, by a pure expression op whose other
/// operands are row-level (not per-element) values or constants. Empty when
/// the argument has several uses.
std::vector<ChainStep> unaryChain(cr::ElementRegionOpInterface region, unsigned argNo) {
  std::vector<ChainStep> chain;
  mlir::Block &body = region.getBodyBlock();
  Value cur = body.getArgument(argNo);
  while (cur.hasOneUse()) {
    Operation *user = *cur.user_begin();
    if (!ExprPrinter::isExprOp(user) || user->getNumResults() != 1 ||
        llvm::isa<mlir::arith::ConstantOp>(user))
      break;
    ChainStep step;
    step.op = user;
    bool ok = true;
    for (auto [i, operand] : llvm::enumerate(user->getOperands())) {
      if (operand == cur) {
        step.chainOperand = static_cast<unsigned>(i);
        continue;
      }
      if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(operand)) {
        Value outer = region->getOperand(arg.getArgNumber());
        if (arg.getOwner() != &body || cr::isRowValue(outer)) {
          ok = false;
          break;
        }
        step.others.push_back({outer, mlir::Attribute()});
      } else if (auto c = operand.getDefiningOp<mlir::arith::ConstantOp>()) {
        step.others.push_back({Value(), c.getValue()});
      } else {
        ok = false;
        break;
      }
    }
    if (!ok || llvm::count(user->getOperands(), cur) != 1)
      break;
    chain.push_back(step);
    cur = user->getResult(0);
  }
  return chain;
}
} // namespace

mlir::LogicalResult KernelEmitter::findMaterializations() {
  auto regionsOf = [&](const PassInfo &pass) {
    llvm::SmallVector<cr::ElementRegionOpInterface> out;
    if (pass.isStage) {
      for (cr::ReduceOp red : stages[pass.stage].reds)
        out.push_back(llvm::cast<cr::ElementRegionOpInterface>(red.getOperation()));
    } else {
      out.push_back(llvm::cast<cr::ElementRegionOpInterface>(apply.getOperation()));
    }
    return out;
  };
  for (auto &inPtr : inputs) {
    InputInfo *in = inPtr.get();
    // Worth it only if a pass after the materializing one reads T(x).
    if (in->keptIndex < 0 || in->passes.size() < 3)
      continue;
    // Every region of every pass after the first that reads `in`.
    std::vector<std::pair<cr::ElementRegionOpInterface, std::vector<ChainStep>>> uses;
    bool ok = true;
    for (int p : llvm::ArrayRef<int>(in->passes).drop_front()) {
      for (cr::ElementRegionOpInterface r : regionsOf(passes[p])) {
        auto operands = r->getOperands();
        auto it = llvm::find(operands, in->op.getResult());
        if (it == operands.end())
          continue;
        unsigned argNo = static_cast<unsigned>(it - operands.begin());
        std::vector<ChainStep> chain = unaryChain(r, argNo);
        if (chain.empty()) {
          ok = false;
          break;
        }
        uses.push_back({r, std::move(chain)});
      }
      if (!ok)
        break;
    }
    if (!ok || uses.empty())
      continue;
    // The longest chain every use shares, cut after its last costly op.
    size_t common = uses.front().second.size();
    for (auto &[r, chain] : uses) {
      size_t k = 0;
      while (k < common && k < chain.size() && chain[k].sameAs(uses.front().second[k]))
        ++k;
      common = k;
    }
    size_t len = 0;
    for (size_t k = 0; k < common; ++k)
      if (isCostly(uses.front().second[k].op))
        len = k + 1;
    if (len == 0)
      continue;
    Materialized m;
    m.input = in;
    m.pass = in->passes[1];
    m.name = names.unique(derived(in->name, "m"));
    m.vec = names.unique(derived(in->name, "m_v"));
    for (auto &[r, chain] : uses) {
      m.endOf[r.getOperation()] = chain[len - 1].op;
      for (size_t k = 0; k < len; ++k)
        m.chainOps.insert(chain[k].op);
    }
    // The header comment: T in the source's names.
    {
      auto [r, chain] = uses.front();
      ExprPrinter p(ExprStyle::Math);
      mlir::Block &body = r.getBodyBlock();
      for (unsigned i = 0; i < body.getNumArguments(); ++i) {
        Value operand = r->getOperand(i);
        if (cr::isRowValue(operand))
          p.bind(body.getArgument(i), inputOf.lookup(operand.getDefiningOp())->src);
        else
          p.bind(body.getArgument(i), mathP.ref(operand));
      }
      m.math = p.ref(chain[len - 1].op->getResult(0));
    }
    materialized.push_back(std::move(m));
  }
  return mlir::success();
}

//===----------------------------------------------------------------------===//
// Header comment
//===----------------------------------------------------------------------===//

void KernelEmitter::emitHeader() {
  os << "// " << ns << ".cu -- generated by creditc " << CREDIT_VERSION << " from "
     << (options.sourceName.empty() ? std::string("<unknown>") : options.sourceName)
     << ". Do not edit.\n";
  os << "//\n// Kernel '" << K << "': the clustered reduction-reuse schedule (paper Fig. 2) and its\n"
     << "// matched baselines. docs/codegen.md describes this file.\n//\n";
  os << "// Report (per element of the row unless noted):\n";
  os << formatv("//   L = {0}, q = [", L);
  for (int i = 0; i < L; ++i)
    os << (i ? ", " : "") << traffic.q[i];
  os << formatv("] (sum {0}, max {1})\n", geo.qSum, geo.qMax);
  os << formatv("//   bytes/element: baseline {0}, cluster {1}, reread {2}, keep {3}", traffic.baseline,
                traffic.cluster, traffic.reread, traffic.keep);
  if (!traffic.kept.empty()) {
    os << " (kept in SMEM: ";
    for (auto [i, in] : llvm::enumerate(traffic.kept))
      os << (i ? ", " : "") << in.getName();
    os << ")";
  }
  os << "\n";
  os << formatv("//   fixed traffic: {0} B/element of broadcast vectors, {1} B/row of per-row values\n",
                traffic.fixedBroadcastPerElement, traffic.fixedPerRow);
  os << formatv("//   ceiling {0:F2}x (baseline / cluster)\n", traffic.ceiling);
  os << formatv("//   cluster barriers per row K: sync {0} (2 per stage), mbarrier {1} (set-up only)\n",
                barriers.sync, barriers.mbarrier);
  os << "//   passes over the row (global-reread schedule):";
  for (auto [p, pass] : llvm::enumerate(passes)) {
    os << "\n//     " << passLabel(static_cast<int>(p)) << ": ";
    bool first = true;
    for (InputInfo *in : pass.rowInputs)
      os << (first ? "" : ", ") << in->src, first = false;
    for (InputInfo *in : pass.broadcastInputs)
      os << (first ? "" : ", ") << in->src << " (broadcast)", first = false;
    if (first)
      os << "(no row input)";
  }
  os << "\n";
  os << formatv("//   target {0}: dynamic SMEM opt-in limit {1} B, clusters up to {2} (portable {3})\n",
                target.arch, target.smemOptinBytes, target.maxNonPortableCluster,
                target.maxPortableCluster);
  if (options.fastMath)
    os << "//   --fast-math: element-level exp, log and division through __expf, __logf, __fdividef\n";
  for (const Materialized &m : materialized) {
    os << "//   retained slice rewritten in place: " << m.input->src << " -> " << m.math << " by "
       << passLabel(m.pass) << " (read as such by";
    for (int q : m.input->passes)
      if (q > m.pass)
        os << " " << passLabel(q);
    os << "; reread recomputes it)\n";
  }
  if (partialDropped) {
    os << "//   partial-retention form (cluster_partial_*): " << partialDropped->src
       << " not retained, read from global memory (L2) by";
    for (int q : partialDropped->passes)
      os << " " << passLabel(q);
    os << formatv("; keep {0}; run where the full form fits one CTA per SM and it fits two or more, {1}\n",
                  partialGeometry().keepBytesPerElem,
                  partialDroppedReadLate()
                      ? "at any P (" + partialDropped->src + " is first read after the first pass)"
                      : "at P = 16 (" + partialDropped->src + " is read by the first pass)");
  }
  os << "//   Eq. 3 (keep * sliceElems(N, P) + S_scratch <= limit):\n";
  os << "//        P   S_scratch sync / mbarrier      max N (sync)   max N (mbarrier)\n";
  for (int P : {1, 2, 4, 8, 16}) {
    if (P > target.maxNonPortableCluster)
      break;
    os << formatv("//     {0,4}   {1,9} / {2,-8}   {3,16}   {4,16}\n", P,
                  ::credit::scratchBytes(geo, P, ::credit::Protocol::Sync),
                  ::credit::scratchBytes(geo, P, ::credit::Protocol::Mbarrier),
                  ::credit::maxLegalN(geo, P, ::credit::Protocol::Sync, target.smemOptinBytes),
                  ::credit::maxLegalN(geo, P, ::credit::Protocol::Mbarrier, target.smemOptinBytes));
  }
  os << "//\n// Formulas (source names; r_{l,j} is statistic j of stage l, combined over the row):\n";

  // Stages: g per statistic, then the statistics.
  auto regionMath = [&](cr::ElementRegionOpInterface region) {
    ExprPrinter p(ExprStyle::Math);
    mlir::Block &body = region.getBodyBlock();
    for (unsigned i = 0; i < body.getNumArguments(); ++i)
      p.bind(body.getArgument(i), mathP.ref(region->getOperand(i)));
    std::vector<std::string> out;
    for (Value y : region.getYieldedValues())
      out.push_back(p.ref(y));
    return out;
  };
  for (Operation &op : kernel.getBodyBlock()) {
    if (auto stage = llvm::dyn_cast<cr::StageOp>(op)) {
      StageInfo &st = stages[stage.getStageIndex()];
      os << formatv("//   stage {0} (q_{0} = {1}):\n", st.index + 1, st.reds.size());
      for (auto [j, red] : llvm::enumerate(st.reds)) {
        std::string g =
            regionMath(llvm::cast<cr::ElementRegionOpInterface>(red.getOperation()))[0];
        os << formatv("//     r_{{{0},{1}} = {2}_i g_{{{0},{1}},   g_{{{0},{1}} = {3}\n",
                      st.index + 1, j + 1, kindWord(red.getKind()), g);
      }
      for (unsigned i = 0; i < stage.getNumResults(); ++i) {
        Value y = stage.getYieldOp().getOperand(i);
        Operation *def = y.getDefiningOp();
        std::string rhs = def && ExprPrinter::isExprOp(def) ? mathP.expr(def) : mathP.ref(y);
        os << formatv("//     {0} = {1}\n", stage.getResultName(i), rhs);
      }
    } else if (ExprPrinter::isExprOp(&op) && !llvm::isa<mlir::arith::ConstantOp>(op)) {
      std::optional<std::string> let = letNames.lookup(&op);
      if (let)
        os << formatv("//   let {0} = {1}\n", *let, mathP.expr(&op));
    } else if (auto ap = llvm::dyn_cast<cr::ApplyOp>(op)) {
      std::vector<std::string> hs =
          regionMath(llvm::cast<cr::ElementRegionOpInterface>(ap.getOperation()));
      os << "//   h:\n";
      for (const OutputInfo &o : outputs)
        if (o.applyResult >= 0)
          os << formatv("//     {0}[i] = {1}\n", o.src, hs[o.applyResult]);
    }
  }
  for (OutputInfo &o : outputs)
    if (!o.perElement)
      os << formatv("//   per-row output: {0} = {1}\n", o.src, mathP.ref(o.op.getValue()));
  os << "//\n";
}

//===----------------------------------------------------------------------===//
// Embedded runtime headers and helpers
//===----------------------------------------------------------------------===//

void KernelEmitter::emitEmbedded() {
  auto embed = [&](StringRef what, StringRef text) {
    os << "// ===== begin embedded " << what << " (verbatim) =====\n" << text;
    if (!text.ends_with("\n"))
      os << "\n";
    os << "// ===== end embedded " << what << " =====\n\n";
  };
  embed("credit/runtime/Layout.h", ::credit::embedded::kLayoutH);
  embed("credit/runtime/LaunchCheck.h", ::credit::embedded::kLaunchCheckH);
  embed("credit/device/credit_device.cuh", ::credit::embedded::kDevicePreludeCuh);
}

void KernelEmitter::emitHelpers() {
  os << R"cuda(// ===== codegen helpers (the same in every generated file) =====
#ifndef CREDIT_CODEGEN_HELPERS
#define CREDIT_CODEGEN_HELPERS
#if defined(__CUDACC_RTC__) && !defined(CREDIT_INT8_DEFINED)
#define CREDIT_INT8_DEFINED
// NVRTC has no <stdint.h> and the prelude defines only the 32/64-bit types;
// this is CCCL's NVRTC definition, so <cuda/std/cstdint> stays compatible.
typedef signed char int8_t;
#endif

// The DSL's i8(a): truncation toward zero, saturated to [-128, 127], NaN -> 0
// (docs/dsl.md). fmaxf/fminf return the non-NaN operand, so the NaN test comes
// first; the clamped value converts exactly.
CREDIT_DEVICE_INLINE int8_t credit_f32_to_i8(float a) {
  if (a != a) return 0;
  return static_cast<int8_t>(static_cast<int>(fminf(fmaxf(a, -128.0f), 127.0f)));
}

// VEC consecutive elements: one 16-byte access for VEC = 4 (the pointer is
// 16-byte aligned: slices start at multiples of 4 elements and the launcher
// picks VEC = 4 only when every row start is aligned), one 4-byte access for
// VEC = 1. Global memory goes through __ldg / __stwb so that the access width
// is exactly what is written here (ld.global.nc.v4.f32 / st.global.wb.v4.f32):
// plain aggregate stores were seen split into 4 + 4 + 8 bytes by NVVM.
template <int VEC>
CREDIT_DEVICE_INLINE void credit_ld_global(float (&v)[VEC], const float* p) {
  if constexpr (VEC == 4) {
    const float4 t = __ldg(reinterpret_cast<const float4*>(p));
    v[0] = t.x; v[1] = t.y; v[2] = t.z; v[3] = t.w;
  } else {
    v[0] = __ldg(p);
  }
}
// 16 bytes if `pred`, else zeros: one predicated ld.global.nc.v4 (no branch),
// so that a run of them stays a run of independent loads in flight together
// (the register-resident forms' loads at entry).
CREDIT_DEVICE_INLINE void credit_ld_global_if(float (&v)[4], const float* p, bool pred) {
  asm("{\n\t.reg .pred q;\n\t"
      "setp.ne.b32 q, %5, 0;\n\t"
      "mov.b32 %0, 0;\n\tmov.b32 %1, 0;\n\tmov.b32 %2, 0;\n\tmov.b32 %3, 0;\n\t"
      "@q ld.global.nc.v4.f32 {%0, %1, %2, %3}, [%4];\n\t}"
      : "=f"(v[0]), "=f"(v[1]), "=f"(v[2]), "=f"(v[3])
      : "l"(p), "r"(static_cast<int>(pred)));
}
template <int VEC>
CREDIT_DEVICE_INLINE void credit_st_global(float* p, const float (&v)[VEC]) {
  if constexpr (VEC == 4) {
    __stwb(reinterpret_cast<float4*>(p), make_float4(v[0], v[1], v[2], v[3]));
  } else {
    __stwb(p, v[0]);
  }
}
template <int VEC>
CREDIT_DEVICE_INLINE void credit_st_global(int8_t* p, const int8_t (&v)[VEC]) {
  if constexpr (VEC == 4) {
    // One 4-byte store (p is 4-byte aligned): the 4 bytes packed little-endian.
    const unsigned packed = static_cast<unsigned>(static_cast<unsigned char>(v[0])) |
                            static_cast<unsigned>(static_cast<unsigned char>(v[1])) << 8 |
                            static_cast<unsigned>(static_cast<unsigned char>(v[2])) << 16 |
                            static_cast<unsigned>(static_cast<unsigned char>(v[3])) << 24;
    __stwb(reinterpret_cast<unsigned*>(p), packed);
  } else {
    *p = v[0];
  }
}
// VEC floats, register to register (the STAGED_REGS row).
template <int VEC>
CREDIT_DEVICE_INLINE void credit_copy(float (&dst)[VEC], const float (&src)[VEC]) {
  #pragma unroll
  for (int i = 0; i < VEC; ++i) dst[i] = src[i];
}
// The retained slice in this CTA's SMEM (ld/st.shared.v4.f32 for VEC = 4).
template <int VEC>
CREDIT_DEVICE_INLINE void credit_ld_smem(float (&v)[VEC], const float* p) {
  if constexpr (VEC == 4) {
    const float4 t = *reinterpret_cast<const float4*>(p);
    v[0] = t.x; v[1] = t.y; v[2] = t.z; v[3] = t.w;
  } else {
    v[0] = *p;
  }
}
template <int VEC>
CREDIT_DEVICE_INLINE void credit_st_smem(float* p, const float (&v)[VEC]) {
  if constexpr (VEC == 4) {
    *reinterpret_cast<float4*>(p) = make_float4(v[0], v[1], v[2], v[3]);
  } else {
    *p = v[0];
  }
}
#endif  // CREDIT_CODEGEN_HELPERS

)cuda";
}

//===----------------------------------------------------------------------===//
// Metadata
//===----------------------------------------------------------------------===//

void KernelEmitter::emitMetadata() {
  os << "// ===== kernel metadata =====\n";
  os << R"cuda(// Tuning knobs (-D on the nvcc / NVRTC command line): batch depth of the
// element loops (independent loads in flight per thread and input) and the
// minimum CTAs per SM promised to ptxas (__launch_bounds__), which caps the
// registers per thread. Every variant uses the same values.
#ifndef CREDIT_UNROLL_VEC4
#define CREDIT_UNROLL_VEC4 4
#endif
#ifndef CREDIT_UNROLL_VEC1
#define CREDIT_UNROLL_VEC1 8
#endif
// The persistent form reads its kept slices from SMEM only (the next rows' bulk
// copies are in flight meanwhile) and holds its hoisted inputs in registers: a
// shallower batch keeps it within the 512-thread twin's 128 registers (ptxas,
// layernorm: 4 spills 88 bytes, 2 none).
#ifndef CREDIT_UNROLL_PERSISTENT
#define CREDIT_UNROLL_PERSISTENT 2
#endif
// The persistent form's row claims (Layout.h): the share of every cluster's rows,
// in percent, claimed at run time (the last ones; the rest are static).
#ifndef CREDIT_ROW_CLAIM_SHARE
#define CREDIT_ROW_CLAIM_SHARE 100
#endif
)cuda";
  // 768 threads' worth of CTAs per SM: 85 registers per thread at most, which
  // every variant fits without spilling (256 threads: 3 CTAs).
  os << formatv("#ifndef CREDIT_MIN_CTAS_PER_SM\n#define CREDIT_MIN_CTAS_PER_SM {0}\n#endif\n",
                std::max(1, 768 / geo.threads));
  // The wide register-resident kernels hold 32 elements per thread and kept
  // input: 512 threads' worth per SM, 128 registers per thread.
  os << formatv("#ifndef CREDIT_MIN_CTAS_PER_SM_WIDE_REGS\n#define CREDIT_MIN_CTAS_PER_SM_WIDE_REGS {0}\n#endif\n",
                std::max(1, 512 / geo.threads));
  // The wide-CTA twins run where one CTA fills an SM's shared memory.
  if (wideCtaThreads() > 0)
    os << "#ifndef CREDIT_MIN_CTAS_PER_SM_WIDE_CTA\n#define CREDIT_MIN_CTAS_PER_SM_WIDE_CTA 1\n#endif\n";
  os << R"cuda(static_assert(CREDIT_UNROLL_VEC4 >= 1 && CREDIT_UNROLL_VEC1 >= 1 && CREDIT_UNROLL_PERSISTENT >= 1, "unroll depth");
static_assert(CREDIT_ROW_CLAIM_SHARE >= 0 && CREDIT_ROW_CLAIM_SHARE <= 100, "a percentage");

// This file's namespaces have hidden visibility: a shared library built from it
// exports its extern "C" API only. A process may load several files generated for the same
// kernel name (other --cta-threads, --profile, creditc versions) in different
// shared libraries; their inline constants and the dispatch cache would
// otherwise be process-wide unique symbols (STB_GNU_UNIQUE) that the dynamic
// linker merges across libraries, whatever dlopen's flags.
#ifndef CREDIT_LOCAL
#if defined(__GNUC__) && !defined(__CUDACC_RTC__)
#define CREDIT_LOCAL __attribute__((visibility("hidden")))
#else
#define CREDIT_LOCAL
#endif
#endif

)cuda";
  os << "namespace CREDIT_LOCAL " << ns << " {\n\n";
  os << formatv("inline constexpr int L = {0};  // stages\n", L);
  os << "inline constexpr int q[L] = {";
  for (int i = 0; i < L; ++i)
    os << (i ? ", " : "") << traffic.q[i];
  os << "};  // statistics per stage\n";
  os << formatv("inline constexpr int qSum = {0};\ninline constexpr int qMax = {1};\n", geo.qSum, geo.qMax);
  os << formatv("inline constexpr int keepBytesPerElem = {0};  // b_keep: SMEM bytes retained per row element\n",
                geo.keepBytesPerElem);
  os << formatv("inline constexpr int numKept = {0};\n", traffic.kept.size());
  os << formatv("inline constexpr int numInputsOnlyHReads = {0};  // streamed row inputs and broadcast vectors "
                "only h reads (credit::prefetchInputsOfH)\n",
                numOnlyH());
  os << formatv("inline constexpr int numHoistedInputs = {0};  // broadcast vectors only h reads: the persistent "
                "form loads them once per CTA (credit::usePersistent)\n",
                numHoisted());
  os << "inline constexpr const char* keptInputs[" << std::max<size_t>(1, traffic.kept.size()) << "] = {";
  if (traffic.kept.empty())
    os << "nullptr";
  llvm::SmallVector<const InputInfo *> keptOrder(traffic.kept.size());
  for (cr::InputOp k : traffic.kept) {
    const InputInfo *in = inputOf.lookup(k);
    keptOrder[in->keptIndex] = in;
  }
  for (auto [i, in] : llvm::enumerate(keptOrder))
    os << (i ? ", " : "") << "\"" << in->src << "\"";
  os << "};  // SMEM arrays after the scratch, in this order\n";
  os << formatv("inline constexpr int K_sync = {0};      // cluster barriers per row, sync protocol (2 per stage)\n",
                barriers.sync);
  os << formatv("inline constexpr int K_mbarrier = {0};  // cluster barriers per row, mbarrier protocol (set-up)\n",
                barriers.mbarrier);
  os << formatv("inline constexpr int kThreads = {0};  // threads per CTA, every variant\n", geo.threads);
  os << "inline constexpr int kWarps = kThreads / 32;\n";
  os << formatv("inline constexpr bool kFastMath = {0};  // --fast-math: element-level __expf, __logf, "
                "__fdividef\n",
                options.fastMath ? "true" : "false");
  os << formatv("inline constexpr credit::WorkloadGeometry geometry = {{{0}, {1}, {2}, {3}, {4}, {5}};  "
                "// keepBytesPerElem, numStages, qMax, qSum, threads, hOnlyArrays\n",
                geo.keepBytesPerElem, geo.numStages, geo.qMax, geo.qSum, geo.threads, geo.hOnlyArrays);
  os << "static_assert(geometry.threads == kThreads && geometry.numStages == L, \"geometry\");\n";
  os << formatv("inline constexpr int kWideCtaThreads = {0};  // the wide-CTA twins' threads (2 kThreads; 0: none)\n",
                wideCtaThreads());
  const ::credit::WorkloadGeometry wg = wideCtaGeometry();
  os << formatv("inline constexpr credit::WorkloadGeometry geometry_wide_cta = {{{0}, {1}, {2}, {3}, {4}, {5}};\n",
                wg.keepBytesPerElem, wg.numStages, wg.qMax, wg.qSum, wg.threads, wg.hOnlyArrays);
  // The partial-retention form: one kept input fewer in SMEM (credit::usePartialRetention).
  os << formatv("inline constexpr bool kHasPartialForm = {0};  // CLUSTER_PARTIAL_*: two or more kept inputs\n",
                partialDropped ? "true" : "false");
  os << "inline constexpr const char* partialDropped = "
     << (partialDropped ? "\"" + partialDropped->src + "\"" : std::string("nullptr"))
     << ";  // the kept input the partial form re-reads from global memory (L2)\n";
  os << formatv("inline constexpr bool kPartialDroppedReadLate = {0};  // first read after the first pass "
                "(credit::usePartialRetention)\n",
                partialDroppedReadLate() ? "true" : "false");
  os << formatv("inline constexpr bool kKeptInputReadLate = {0};  // a kept input first read after the first pass "
                "(credit::persistentRing: whole slices)\n",
                keptInputReadLate() ? "true" : "false");
  const ::credit::WorkloadGeometry pg = partialGeometry();
  os << formatv("inline constexpr credit::WorkloadGeometry geometry_partial = {{{0}, {1}, {2}, {3}, {4}, {5}};\n",
                pg.keepBytesPerElem, pg.numStages, pg.qMax, pg.qSum, pg.threads, pg.hOnlyArrays);
  os << formatv("inline constexpr credit::TargetInfo target = credit::findTarget(\"{0}\");  // --arch\n",
                target.arch);
  os << "\n// Params of the .credit source.\n";
  for (cr::ParamOp p : params) {
    float value = p.getValue().convertToFloat();
    os << formatv("inline constexpr float {0} = {1};\n", rowP.ref(p.getResult()),
                  credit::cudaold::cudaFloatLiteral(value));
  }
  if (params.empty())
    os << "// (none)\n";
  os << R"cuda(
// Dynamic shared memory per CTA (bytes) of the cluster kernels (protocol as
// launched) and of the staged kernel (P = 1, Sync): credit::smemLayout.
CREDIT_HD constexpr long long smem_bytes(long long N, int P, credit::Protocol protocol) {
  return credit::smemBytes(geometry, N, P, protocol);
}
// The wide-CTA twins (kWideCtaThreads threads): the same layout with their
// warp count.
CREDIT_HD constexpr long long smem_bytes_wide_cta(long long N, int P, credit::Protocol protocol) {
  return credit::smemBytes(geometry_wide_cta, N, P, protocol);
}
// The partial-retention form (kHasPartialForm): the same layout without the
// dropped input's array.
CREDIT_HD constexpr long long smem_bytes_partial(long long N, int P, credit::Protocol protocol) {
  return credit::smemBytes(geometry_partial, N, P, protocol);
}
// The persistent form (the wide-CTA twin's threads, `ring` units of one piece,
// `ring_pieces` pieces a slice): credit::smemLayoutPersistent.
CREDIT_HD constexpr long long smem_bytes_persistent(long long N, int P, int ring, int ring_pieces) {
  return credit::persistentSmemBytes(geometry_wide_cta, N, P, ring, ring_pieces);
}
// The reread kernel retains nothing: scratch only.
CREDIT_HD constexpr long long reread_smem_bytes() {
  return credit::scratchBytes(geometry, 1, credit::Protocol::Sync);
}
// The cluster kernels with the slice in registers: the exchange scratch only.
CREDIT_HD constexpr long long cluster_regs_smem_bytes(int P, credit::Protocol protocol) {
  return credit::scratchBytes(geometry, P, protocol);
}
// Whether the slice fits the register form of the cluster kernels
// (CLUSTER_REGS_*, the generic variant "cluster_regs"). Not the default: it
// needs 32 elements' registers per thread and kept input (2 CTAs per SM at 256
// threads, against 3 for the SMEM form), and on the H200 the SMEM form with
// its bulk copies was faster at 19 of the 24 shapes N = 16384..131072, best P
// each (docs/results/README.md).
CREDIT_HD constexpr bool cluster_slice_fits_registers(long long N, int P) {
  return N >= 1 && P >= 1 && credit::sliceElems(N, P) <= credit::regsWideMaxN(kThreads);
}
// Largest legal N (Eq. 3) for cluster size P under an SMEM limit (default: --arch's).
CREDIT_HD constexpr long long max_legal_n(int P, credit::Protocol protocol,
                                          long long smemLimit = target.smemOptinBytes) {
  return credit::maxLegalN(geometry, P, protocol, smemLimit);
}

// MODE of credit_)cuda" << K << R"cuda(_body: where the row comes from and how partials are combined.
enum : int {
  CLUSTER_SYNC = 0,      // P CTAs per row, retained slice, 2 cluster barriers per stage
  CLUSTER_MBARRIER = 1,  // P CTAs per row, retained slice, per-stage transaction mbarriers
  STAGED = 2,            // 1 CTA per row, retained row (no cluster)
  REREAD = 3,            // 1 CTA per row, every pass streams the row from HBM (no cluster)
  CONTROL_SYNC = 4,      // CLUSTER_SYNC's grid, SMEM and barriers, no global memory work
  CONTROL_MBARRIER = 5,  // CLUSTER_MBARRIER's grid, SMEM and barriers, no global memory work
  STAGED_REGS = 6,       // STAGED with the row in registers (RPT elements per thread and kept input)
  CLUSTER_REGS_SYNC = 7,      // CLUSTER_SYNC with the slice in registers instead of SMEM
  CLUSTER_REGS_MBARRIER = 8,  // CLUSTER_MBARRIER with the slice in registers instead of SMEM
  CLUSTER_PARTIAL_SYNC = 9,      // CLUSTER_SYNC retaining every kept input but partialDropped, which
                                 // every later pass reads from global memory again (L2)
  CLUSTER_PARTIAL_MBARRIER = 10, // the same, mbarrier protocol
  CLUSTER_PERSISTENT = 11,       // CLUSTER_MBARRIER over many rows per cluster: a grid of the resident
                                 // clusters, the kept slices through a ring of `ring` units (slices or half slices)
                                 // filled by bulk copies, broadcast inputs only h reads in registers
                                 // (credit::usePersistent)
};

// Launcher status codes: 0 ok; 1..99 credit::LaunchStatus (LaunchCheck.h);
// kStatusBadProtocol, kStatusBadVariant, kStatusNoPlan, kStatusBadTiming (the
// dispatch API, with --profile); kStatusCudaErrorBase + cudaError_t for a
// failed CUDA call.
inline constexpr int kStatusOk = 0;
inline constexpr int kStatusBadProtocol = 100;
inline constexpr int kStatusBadVariant = 101;
inline constexpr int kStatusNoPlan = 102;
inline constexpr int kStatusBadTiming = 103;
inline constexpr int kStatusCudaErrorBase = 1000;

// The only global store of the control kernels (never executed, see the body).
__device__ float control_sink;

)cuda";
  if (persistentForm())
    os << "// The persistent form's row claims (Layout.h): [0] the next row to claim, less the static\n"
          "// ones; [1] the clusters done. Zero at load; each launch that uses it leaves it zero, and\n"
          "// the launcher hands it to one launch at a time per device (host::RowClaimLease).\n"
          "__device__ unsigned row_claims_counter[2];\n\n";
}

//===----------------------------------------------------------------------===//
// The body template
//===----------------------------------------------------------------------===//

std::string KernelEmitter::bodyParams() const {
  std::string s;
  for (auto &in : inputs)
    s += formatv("    const float* __restrict__ {0},  // {1}: {2}\n", in->gmem, in->src,
                 in->op.isRow()         ? "row input [M][N]"
                 : in->op.isBroadcast() ? "broadcast input [N]"
                                        : "per-row input [M]")
             .str();
  for (const OutputInfo &o : outputs)
    s += formatv("    {0}* __restrict__ {1},  // {2}: {3}\n", o.i8 ? "int8_t" : "float", o.gmem,
                 o.src, o.perElement ? (o.i8 ? "output i8 [M][N]" : "output f32 [M][N]")
                                     : "per-row output f32 [M]")
             .str();
  return s;
}

std::string KernelEmitter::kernelParams() const {
  std::string s;
  for (auto &in : inputs)
    s += formatv("const float* __restrict__ {0}, ", in->name).str();
  for (const OutputInfo &o : outputs)
    s += formatv("{0}* __restrict__ {1}, ", o.i8 ? "int8_t" : "float", o.name).str();
  return s;
}

std::string KernelEmitter::hostParams() const {
  std::string s;
  for (auto &in : inputs)
    s += formatv("const float* {0}, ", in->name).str();
  for (const OutputInfo &o : outputs)
    s += formatv("{0}* {1}, ", o.i8 ? "int8_t" : "float", o.name).str();
  return s;
}

std::string KernelEmitter::argNames() const {
  std::string s;
  for (auto &in : inputs)
    s += (s.empty() ? "" : ", ") + in->name;
  for (const OutputInfo &o : outputs)
    s += (s.empty() ? "" : ", ") + o.name;
  return s;
}

std::string KernelEmitter::passLabel(int p) const {
  const PassInfo &pass = passes[p];
  return pass.isStage ? formatv("stage {0}", pass.stage + 1).str() : std::string("h");
}

std::string KernelEmitter::laterReaders(const InputInfo &in) const {
  std::string s;
  for (int p : in.passes)
    if (p != in.firstPass)
      s += (s.empty() ? "" : ", ") + passLabel(p);
  return s;
}

void KernelEmitter::emitRowLevelOp(Operation *op, const std::string &indent) {
  auto it = tempName.find(op);
  if (it == tempName.end())
    return; // inlined into its user
  os << indent << "const " << ExprPrinter::cudaType(op->getResult(0).getType()) << " "
     << it->second << " = " << rowP.expr(op) << ";\n";
}

/// The loop over this CTA's slice for one pass. Thread t handles elements
/// begin + VEC*(t + 256k), k = 0, 1, ...: the same mapping in every pass and
/// every MODE. Batches of kUnroll k's: every load of a batch is issued first
/// (kUnroll independent accesses per input in flight per thread: the cluster
/// kernels run few warps per SM, so memory parallelism must come from each
/// thread), then the batch is consumed in increasing k.
void KernelEmitter::emitPassLoop(PassInfo &pass, const std::string &ind) {
  const int p = static_cast<int>(&pass - passes.data());
  // The pass that first reads a kept input walks the slice chunk by chunk in
  // the bulk-load kernels, waiting for each chunk's copies to land.
  llvm::SmallVector<InputInfo *> landing;
  for (InputInfo *in : pass.rowInputs)
    if (in->firstPass == p && in->keptIndex >= 0)
      landing.push_back(in);
  const std::string c1 = ind + "  ", c2 = ind + "    ";
  const std::string loopInd = landing.empty() ? ind : c1;
  const std::string in1 = loopInd + "  ", in2 = loopInd + "    ", in3 = loopInd + "      ",
                    in4 = loopInd + "        ", in5 = loopInd + "          ";
  std::string lim = "len";
  os << ind << "if constexpr (!kControl) {\n";
  std::string loopHeader;
  if (!landing.empty()) {
    lim = "cend";
    os << c1 << "// kChunked: chunk c of the slice once its bulk copies have landed (one sweep otherwise;\n"
       << c1 << "// the persistent form waits for each ring piece in the sweep loop below).\n";
    os << c1 << "for (int c = 0; c < (kChunked ? credit::kLoadChunks : 1); ++c) {\n";
    os << c2 << "const unsigned cbeg = kChunked ? (c * chunk < len ? c * chunk : len) : 0u;\n";
    os << c2 << "const unsigned cend = kChunked ? (cbeg + chunk < len ? cbeg + chunk : len) : len;\n";
    os << c2 << "if constexpr (kChunked) {\n";
    for (InputInfo *in : landing)
      os << c2 << "  " << (in == partialDropped ? "if constexpr (" + in->bulk + ") " : std::string())
         << "credit_mbar_wait(credit_smem_addr(load_bars + " << in->keptIndex
         << " * credit::kLoadChunks + c), 0u);  // " << in->src << "[chunk c] has landed\n";
    os << c2 << "}\n";
    loopHeader = "for (unsigned base = cbeg + VEC * tid; base < cend; base += kUnroll * VEC * kThreads) {\n";
  } else {
    loopHeader = "for (unsigned base = VEC * tid; base < len; base += kUnroll * VEC * kThreads) {\n";
  }
  // The loop body, printed once per loop form below (`os` is the body's stream).
  auto body = [&](raw_ostream &os) {
  // An input only h reads: its register copy where kPrefetchH loaded it at
  // entry, then "else " before the global load the caller prints.
  auto prefetchedElse = [&](InputInfo *in, StringRef what) {
    os << in3;
    if (in->onlyH)
      os << "if constexpr (kPrefetchH" << (in->op.isBroadcast() ? " || kPersistent" : "") << ") credit_copy<VEC>("
         << in->vec << "[u], " << in->hreg << "[it][u]);  // " << in->src << ": " << what
         << "loaded into registers at entry" << (in->op.isBroadcast() ? " (persistent: once per CTA)" : "") << "\n"
         << in3 << "else ";
  };
  // Loads.
  for (InputInfo *in : pass.rowInputs)
    os << in2 << "float " << in->vec << "[kUnroll][VEC];\n";
  for (InputInfo *in : pass.broadcastInputs)
    os << in2 << "float " << in->vec << "[kUnroll][VEC];\n";
  os << in2 << "#pragma unroll\n";
  os << in2 << "for (int u = 0; u < kUnroll; ++u) {\n";
  os << in3 << "const unsigned off = base + u * VEC * kThreads;\n";
  os << in3 << "if (off >= " << lim << ") break;\n";
  for (InputInfo *in : pass.rowInputs) {
    if (in->firstPass == p && in->keptIndex >= 0) {
      os << in3 << "if constexpr (kRegPrefetch) credit_copy<VEC>(" << in->vec << "[u], " << in->reg
         << "[it][u]);  // " << in->src << ": loaded into registers at entry\n";
      os << in3 << "else if constexpr (" << in->bulk << ") credit_ld_smem<VEC>(" << in->vec << "[u], " << in->smem
         << "_at + (off - piece_base));  // " << in->src << ": landed by the bulk copy\n";
      os << in3 << "else credit_ld_global<VEC>(" << in->vec << "[u], " << in->slice << " + off);"
         << "  // " << in->src << ": first read, from HBM\n";
    } else if (in->firstPass == p) {
      prefetchedElse(in, "");
      os << "credit_ld_global<VEC>(" << in->vec << "[u], " << in->slice << " + off);"
         << "  // " << in->src << ": first read, from HBM" << (prefetchedIntoL2(*in) ? " (persistent form: L2)" : "")
         << "\n";
    } else {
      os << in3 << "if constexpr (kRegs) credit_copy<VEC>(" << in->vec << "[u], " << in->reg
         << "[it][u]);  // " << in->src << ": held in registers\n";
      os << in3 << "else if constexpr (" << in->keep << ") credit_ld_smem<VEC>(" << in->vec << "[u], " << in->smem
         << "_at + (off - piece_base));  // " << in->src << ": the retained slice\n";
      os << in3 << "else credit_ld_global<VEC>(" << in->vec << "[u], " << in->slice << " + off);  // REREAD"
         << (in == partialDropped ? ", CLUSTER_PARTIAL_*" : "") << ": " << in->src << " again from global memory\n";
    }
  }
  for (InputInfo *in : pass.broadcastInputs) {
    prefetchedElse(in, "broadcast, ");
    os << "credit_ld_global<VEC>(" << in->vec << "[u], " << in->slice << " + off);  // "
       << in->src << ": broadcast, from global in every pass that reads it\n";
  }
  os << in2 << "}\n";
  // Consume.
  os << in2 << "#pragma unroll\n";
  os << in2 << "for (int u = 0; u < kUnroll; ++u) {\n";
  os << in3 << "const unsigned off = base + u * VEC * kThreads;\n";
  os << in3 << "if (off >= " << lim << ") break;\n";
  for (InputInfo *in : pass.rowInputs) {
    if (in->firstPass != p || in->keptIndex < 0)
      continue;
    os << in3 << "if constexpr (kRegs && !kRegPrefetch) credit_copy<VEC>(" << in->reg << "[it][u], " << in->vec
       << "[u]);  // keep " << in->src << " in registers\n";
    os << in3 << "if constexpr (" << in->keep << " && !kBulk) credit_st_smem<VEC>(" << in->smem << "_at + (off - piece_base), "
       << in->vec << "[u]);  // deposit " << in->src << ", read again by " << laterReaders(*in)
       << "\n";
  }
  if (!pass.isStage)
    for (const OutputInfo &o : outputs)
      if (o.applyResult >= 0)
        os << in3 << (o.i8 ? "int8_t " : "float ") << o.vec << "[VEC];\n";
  for (const Materialized &m : materialized)
    if (m.pass == p)
      os << in3 << "float " << m.vec << "[VEC];  // T(" << m.input->src << ") for the retained slice\n";
  os << in3 << "#pragma unroll\n";
  os << in3 << "for (int vi = 0; vi < VEC; ++vi) {\n";
  for (InputInfo *in : pass.rowInputs)
    os << in4 << "const float " << in->name << " = " << in->vec << "[u][vi];\n";
  for (InputInfo *in : pass.broadcastInputs)
    os << in4 << "const float " << in->name << " = " << in->vec << "[u][vi];\n";

  // One element-region op: bind its block arguments, emit its temporaries.
  const int p_ = p;
  llvm::SmallVector<const Materialized *> declared; // T(x) already named in this element scope
  NameTable scope = names;
  int counter = 0;
  auto region = [&](cr::ElementRegionOpInterface r, ExprPrinter &p) {
    mlir::Block &body = r.getBodyBlock();
    for (unsigned i = 0; i < body.getNumArguments(); ++i) {
      Value operand = r->getOperand(i);
      if (cr::isRowValue(operand))
        p.bind(body.getArgument(i), inputOf.lookup(operand.getDefiningOp())->name);
      else
        p.bind(body.getArgument(i), rowP.ref(operand));
    }
    for (Operation &op : body) {
      if (!ExprPrinter::isExprOp(&op)) {
        if (!llvm::isa<cr::YieldOp>(op))
          p.expr(&op); // records the failure
        continue;
      }
      // A materialized T(x): computed once (this pass stores it), or loaded.
      if (const Materialized *m = materializedOp(&op, p_)) {
        auto end = m->endOf.find(r.getOperation());
        if (end == m->endOf.end() || end->second != &op)
          continue; // inside T: printed through T's root
        if (!llvm::is_contained(declared, m)) {
          declared.push_back(m);
          os << in4 << "const float " << m->name << " = ";
          if (p_ == m->pass)
            os << p.expr(&op) << ";  // T(" << m->input->src << ") = " << m->math
               << ", stored below for the later passes\n";
          else
            os << "(" << m->input->keep << " || kRegs) ? " << m->input->name << " : " << p.expr(&op)
               << ";  // the retained slice holds T(" << m->input->src << ") = " << m->math << "\n";
        }
        p.bind(op.getResult(0), m->name);
        continue;
      }
      std::optional<std::string> let = letNames.lookup(&op);
      if (!credit::cudaold::needsTemporary(&op, let.has_value()))
        continue;
      std::string n = scope.unique(let ? *let : formatv("t{0}", counter++).str());
      os << in4 << "const " << ExprPrinter::cudaType(op.getResult(0).getType()) << " " << n
         << " = " << p.expr(&op) << ";\n";
      p.bind(op.getResult(0), n);
    }
  };
  if (pass.isStage) {
    StageInfo &st = stages[pass.stage];
    for (auto [j, red] : llvm::enumerate(st.reds)) {
      ExprPrinter p(elementStyle());
      region(llvm::cast<cr::ElementRegionOpInterface>(red.getOperation()), p);
      os << in4 << st.acc[j] << " = credit_combine<" << kindMacro(red.getKind()) << ">("
         << st.acc[j] << ", " << p.ref(red.getYieldOp().getOperand(0)) << ");\n";
      if (failed(check(p)))
        genFailed = true;
    }
  } else {
    ExprPrinter p(elementStyle());
    region(llvm::cast<cr::ElementRegionOpInterface>(apply.getOperation()), p);
    for (const OutputInfo &o : outputs)
      if (o.applyResult >= 0)
        os << in4 << o.vec << "[vi] = " << p.ref(apply.getYieldOp().getOperand(o.applyResult))
           << ";\n";
    if (failed(check(p)))
      genFailed = true;
  }
  for (const Materialized &m : materialized)
    if (m.pass == p)
      os << in4 << m.vec << "[vi] = " << m.name << ";\n";
  os << in3 << "}\n";
  for (const Materialized &m : materialized)
    if (m.pass == p)
    {
      os << in3 << "if constexpr (" << m.input->keep << ") credit_st_smem<VEC>(" << m.input->smem
         << "_at + (off - piece_base), " << m.vec
         << ");  // " << m.input->src << " -> T(" << m.input->src << ") in place: same thread, same elements\n";
      os << in3 << "if constexpr (kRegs) credit_copy<VEC>(" << m.input->reg << "[it][u], " << m.vec << ");\n";
    }
  if (!pass.isStage)
    for (const OutputInfo &o : outputs)
      if (o.applyResult >= 0)
        os << in3 << "credit_st_global<VEC>(" << o.slice << " + off, " << o.vec << ");\n";
  os << in2 << "}\n";
  };
  std::string text;
  {
    llvm::raw_string_ostream bs(text);
    body(bs);
  }
  // STAGED_REGS, CLUSTER_REGS_*, CLUSTER_PERSISTENT (kSweeps): the same body in a
  // loop unrolled over the kRegIters sweeps (`it` a compile-time constant, so the
  // register arrays stay registers); every other mode: the plain loop (`it` is 0
  // and unused there).
  std::string deeper;
  for (llvm::StringRef line : llvm::split(llvm::StringRef(text), '\n'))
    if (!line.empty())
      deeper += "  " + line.str() + "\n";
  // The kept inputs this pass reads from SMEM: through `<smem>_at`, the ring piece
  // the sweep lies in (persistent form; the slice elsewhere), at off - piece_base.
  llvm::SmallVector<InputInfo *> smemInputs;
  for (InputInfo *in : pass.rowInputs)
    if (in->keptIndex >= 0)
      smemInputs.push_back(in);
  os << in1 << "if constexpr (kSweeps) {\n";
  os << in2 << "#pragma unroll\n";
  os << in2 << "for (int it = 0; it < kRegIters; ++it) {\n";
  os << in3 << "const unsigned base = VEC * tid + it * (kUnroll * VEC * kThreads);\n";
  if (!pass.isStage && !traffic.kept.empty()) {
    // h is the row's last reader: once every thread is past the first pieces,
    // their units take the next copies, half an h earlier than at the row's end.
    // Before the exit test: with a second piece no thread has left the loop.
    os << in3 << "if constexpr (kPersistent && ring_pieces > 1) {\n";
    os << in3 << "  if (it == kPiece1Sweep && release_in_h) {  // the same for every thread of the CTA\n";
    os << in3 << "    __syncthreads();  // every thread has read this row's first pieces\n";
    os << in3 << "    if (tid == 0) {\n";
    os << in3 << "      credit_fence_proxy_async_smem();  // those reads (generic proxy) before the copies' writes\n";
    os << in3 << "      ring_refill(ring_copy, 0);  // copies `ring` ahead into the first pieces' units\n";
    os << in3 << "    }\n";
    os << in3 << "  }\n";
    os << in3 << "}\n";
  }
  os << in3 << "if (base >= len) break;\n";
  if (!smemInputs.empty()) {
    os << in3 << "// Persistent form: the ring piece this sweep lies in (whole sweeps per piece).\n";
    os << in3 << "const bool piece1 = kPersistent && it >= kPiece1Sweep;  // a compile-time constant (unrolled `it`)\n";
    os << in3 << "const unsigned piece_base = piece1 ? piece_elems : 0u;\n";
    for (InputInfo *in : smemInputs)
      os << in3 << "float* const " << in->smem << "_at = piece1 ? " << in->smem << "_p1 : " << in->smem << ";\n";
    if (!landing.empty()) {
      // A piece's copies are waited for at its first sweep: the first piece's at
      // sweep 0, the second's at kPiece1Sweep (compile-time tests).
      os << in3 << "if constexpr (kPersistent) {\n";
      for (int piece = 0; piece < 2; ++piece) {
        os << in3 << "  " << (piece == 0 ? "if (it == 0) {" : "if (it == kPiece1Sweep) {")
           << (piece == 0 ? "  // the first piece's first sweep\n" : "  // the second piece's\n");
        for (InputInfo *in : landing) {
          std::string q = formatv("{0} * ring_pieces{1}", in->ringIndex, piece ? " + 1" : "").str();
          os << in3 << "    " << (in == partialDropped ? "if constexpr (" + in->bulk + ") " : std::string())
             << "credit_mbar_wait(credit_smem_addr(load_bars + row_unit(" << q << ")), row_parity(" << q
             << "));  // " << in->src << "[piece " << piece << "] has landed\n";
        }
        os << in3 << "  }\n";
      }
      os << in3 << "}\n";
    }
  }
  os << deeper;
  os << in2 << "}\n";
  os << in1 << "} else {\n";
  os << in2 << loopHeader;
  os << in3 << "constexpr int it = 0;  // the sweep index of STAGED_REGS\n";
  os << in3 << "(void)it;\n";
  if (!smemInputs.empty()) {
    os << in3 << "constexpr unsigned piece_base = 0u;  // one piece: the slice\n";
    for (InputInfo *in : smemInputs)
      os << in3 << "float* const " << in->smem << "_at = " << in->smem << ";\n";
  }
  os << deeper;
  os << in2 << "}\n";
  os << in1 << "}\n";
  if (!landing.empty())
    os << c1 << "}\n";
  os << ind << "}\n";
  (void)in5;
}

void KernelEmitter::emitStage(StageInfo &st) {
  const int l = st.index + 1;
  const int q = static_cast<int>(st.reds.size());
  const std::string I = "  ";
  os << "\n  // ======== stage " << l << " of " << L << " (q_" << l << " = " << q << "): ";
  for (unsigned i = 0; i < st.op.getNumResults(); ++i)
    os << (i ? ", " : "") << st.op.getResultName(i);
  os << " ========\n";
  PassInfo &pass = passes[st.index];
  for (auto [j, red] : llvm::enumerate(st.reds))
    os << I << "float " << st.acc[j] << " = credit_identity<" << kindMacro(red.getKind())
       << ">();  // this thread's partial of r_{" << l << "," << j + 1 << "}\n";
  emitPassLoop(pass, I);

  // CTA-local reduction.
  os << I << "// CTA-local reduction: warp shuffles, then warp 0 combines the kWarps warp partials.\n";
  for (auto [j, red] : llvm::enumerate(st.reds))
    os << I << st.acc[j] << " = credit_warp_reduce<" << kindMacro(red.getKind()) << ">("
       << st.acc[j] << ");\n";
  os << I << "if (lane == 0) {\n";
  for (auto [j, red] : llvm::enumerate(st.reds))
    os << I << "  warp_partials[warp * qMax + " << j << "] = " << st.acc[j] << ";\n";
  os << I << "}\n";
  os << I << "__syncthreads();  // warp partials written before warp 0 reads them\n";
  os << I << "if (warp == 0) {\n";
  for (auto [j, red] : llvm::enumerate(st.reds)) {
    os << I << "  " << st.acc[j] << " = lane < kWarps ? warp_partials[lane * qMax + " << j
       << "] : credit_identity<" << kindMacro(red.getKind()) << ">();\n";
    os << I << "  " << st.acc[j] << " = credit_warp_reduce<" << kindMacro(red.getKind()) << ">("
       << st.acc[j] << ");\n";
  }
  os << I << "  if (lane == 0) {\n";
  for (auto [j, red] : llvm::enumerate(st.reds))
    os << I << "    cta_partial[" << j << "] = " << st.acc[j] << ";\n";
  os << I << "  }\n";
  os << I << "}\n";
  os << I << "__syncthreads();  // CTA partial written before it is pushed or read; warp partials free again\n";

  // Exchange.
  os << I << "// Exchange (stage " << l << "): every CTA ends with the same r_{" << l << ",j}.\n";
  for (auto [j, red] : llvm::enumerate(st.reds))
    os << I << "float " << st.result[j] << ";  // r_{" << l << "," << j + 1 << "}\n";
  os << I << "if constexpr (kSyncExchange) {\n";
  if (st.index == 0)
    os << I << "  credit_cluster_wait();  // rule 0: every CTA of the cluster has started (arrived at entry)\n";
  os << I << "  credit_push_sync<" << q
     << ">(cta_partial, slots, P);  // threads < P: our q partials -> slots[rank][*] of peer t (self included)\n";
  os << I << "  credit_cluster_sync();  // stage " << l
     << " barrier 1 of 2: every partial has landed in every CTA\n";
  for (auto [j, red] : llvm::enumerate(st.reds))
    os << I << "  " << st.result[j] << " = credit_combine_slots<" << kindMacro(red.getKind())
       << ">(slots, " << j << ", " << q << ", P);  // the same association in every CTA\n";
  os << I << "  credit_cluster_sync();  // stage " << l << " barrier 2 of 2: slots read everywhere";
  if (st.index + 1 < L)
    os << " before stage " << l + 1 << " overwrites them\n";
  else
    os << "; last stage: exit rule (no CTA exits while a peer may still write to it)\n";
  os << I << "} else if constexpr (kMbarExchange) {\n";
  if (st.index == 0)
    os << I << "  if (!kPersistent || k == 0) credit_cluster_wait();  // set-up barrier, second half: every CTA started, its mbarriers initialised\n";
  os << I << "  // Stage " << l << "'s own [P][" << q << "] slot set and mbarrier, never reused, except in the\n"
     << I << "  // persistent form: two sets by row parity, phase (k / 2) % 2. A CTA is at most one row\n"
     << I << "  // ahead of a peer (it finishes row k + 1 only with the peer's row-(k + 1) partials,\n"
     << I << "  // pushed after the peer has read its row-k slots), so the set is free again.\n";
  os << I << "  float* const stage_slots = slots + P * (" << st.qPrefix << " + (kPersistent ? static_cast<int>(k & 1) * qSum : 0));\n";
  os << I << "  uint64_t* const stage_bar = bars + " << st.index << " + (kPersistent ? static_cast<int>(k & 1) * L : 0);\n";
  if (st.index == 0)
    os << I << "  if (tid == 0) credit_mbar_arrive_expect_tx(credit_smem_addr(stage_bar), P * " << q
       << " * 4 + (claim_sent_at(k) ? 4 : 0));  // P * q_" << l << " * 4 bytes will land here, and rank 0's row claim\n";
  else
    os << I << "  if (tid == 0) credit_mbar_arrive_expect_tx(credit_smem_addr(stage_bar), P * " << q
       << " * 4);  // P * q_" << l << " * 4 bytes will land here\n";
  os << I << "  credit_push_async<" << q
     << ">(cta_partial, stage_slots, stage_bar, P);  // threads < P: st.async to peer t, complete_tx on its bar\n";
  if (st.index == 0)
    os << I << "  if (rank == 0 && claim_sent_at(k))  // row k + claim_ahead: threads < P, each to its peer, on the same mbarrier\n"
       << I << "    credit_send_row_claim(claim_slots + (k & 1), stage_bar, *claim_handoff, P);\n";
  os << I << "  if (P == 1) __syncthreads();  // P = 1: thread 0 stored the slots locally (see credit_push_async)\n";
  os << I << "  credit_mbar_wait(credit_smem_addr(stage_bar), kPersistent ? static_cast<uint32_t>((k >> 1) & 1) : 0u);"
     << "  // the phase completes once all P * q_" << l << " * 4 bytes have landed\n";
  if (st.index == 0)
    os << I << "  if (tid == 0 && claim_sent_at(k))  // used from row k + claim_ahead on (its slot is free again at row k + 2)\n"
       << I << "    claim_queue[(k + claim_ahead) & (credit::kRowClaimQueue - 1)] = claim_slots[k & 1];\n";
  for (auto [j, red] : llvm::enumerate(st.reds))
    os << I << "  " << st.result[j] << " = credit_combine_slots<" << kindMacro(red.getKind())
       << ">(stage_slots, " << j << ", " << q << ", P);  // the same association in every CTA\n";
  if (st.index + 1 == L)
    os << I << "  // No exit barrier: this CTA has waited for every byte pushed into it (all L\n"
       << I << "  // stages), so no peer still writes to its SMEM when it exits.\n";
  os << I << "} else {\n";
  for (auto [j, red] : llvm::enumerate(st.reds))
    os << I << "  " << st.result[j] << " = cta_partial[" << j
       << "];  // one CTA per row: the CTA partial is the statistic\n";
  os << I << "}\n";

  // Row-level post-math of the stage, then the statistics not yet named.
  bool any = false;
  for (Operation &op : st.op.getBodyBlock()) {
    if (!ExprPrinter::isExprOp(&op) || !tempName.count(&op))
      continue;
    if (!any)
      os << I << "// Row-level math of stage " << l << " (every thread, in registers).\n";
    any = true;
    emitRowLevelOp(&op, I);
  }
  cr::YieldOp yield = st.op.getYieldOp();
  for (unsigned i = 0; i < st.op.getNumResults(); ++i) {
    std::string stat = rowP.ref(st.op.getResult(i));
    std::string value = rowP.ref(yield.getOperand(i));
    if (value != stat)
      os << I << "const float " << stat << " = " << value << ";\n";
  }
}

void KernelEmitter::emitBody() {
  os << "// ===== the schedule: ONE device template, every variant =====\n";
  os << "// Thread t of CTA `rank` handles elements begin + VEC*(t + 256k) of its slice in every\n"
        "// pass and every MODE; MODE only changes where elements come from (HBM / retained\n"
        "// SMEM slice) and how CTA partials are combined (DSMEM exchange / none).\n";
  os << "template <int VEC, int MODE, int RPT, int THREADS, int PIECES = 1, bool CLAIMS = false>\n";
  os << "__device__ __forceinline__ void " << ns << "_body(\n" << bodyParams();
  os << "    long long M, int N, int P, int ring, unsigned* row_claims = nullptr) {\n";
  os << R"cuda(  static_assert(VEC == 4 || VEC == 1, "VEC is 4 (16-byte accesses) or 1 (4-byte accesses)");
  static_assert(MODE >= CLUSTER_SYNC && MODE <= CLUSTER_PERSISTENT, "MODE");
  // CLUSTER_PERSISTENT: many rows per cluster, a ring of `ring` units, each kept
  // slice copied in PIECES pieces (credit::persistentRing; `ring` is 0 elsewhere).
  constexpr bool kPersistent = MODE == CLUSTER_PERSISTENT;
  static_assert(!kPersistent || (VEC == 4 && THREADS == )cuda" << ns << R"cuda(::kWideCtaThreads && )cuda" << ns << R"cuda(::numKept > 0),
                "no such form");
  // CLUSTER_PARTIAL_*: the partial-retention form (its own geometry_partial).
  constexpr bool kPartial = MODE == CLUSTER_PARTIAL_SYNC || MODE == CLUSTER_PARTIAL_MBARRIER;
  // THREADS: this instantiation's CTA size, kThreads or kWideCtaThreads (the
  // wide-CTA twins). The body's kThreads, kWarps and geometry are its own.
  static_assert(THREADS == )cuda" << ns << R"cuda(::kThreads || THREADS == )cuda" << ns << R"cuda(::kWideCtaThreads, "THREADS");
  constexpr int kThreads = THREADS;
  constexpr int kWarps = THREADS / 32;
  static_assert(!kPartial || ()cuda" << ns << R"cuda(::kHasPartialForm && THREADS == )cuda" << ns << R"cuda(::kThreads), "no such form");
  constexpr credit::WorkloadGeometry geometry = THREADS != )cuda" << ns << R"cuda(::kThreads ? )cuda" << ns << R"cuda(::geometry_wide_cta
                                                : kPartial ? )cuda" << ns << R"cuda(::geometry_partial : )cuda" << ns << R"cuda(::geometry;
  // Seed 002: thread t's runs of VEC words, VEC words apart, accessed VEC words
  // wide, are bank-conflict-free without a pad (gcd(S, 32) <= w).
  static_assert(!credit::needsPad(VEC, 4, 4 * VEC), "the retained slice needs no padding");
  constexpr bool kCluster = MODE == CLUSTER_SYNC || MODE == CLUSTER_MBARRIER ||
                            MODE == CONTROL_SYNC || MODE == CONTROL_MBARRIER ||
                            MODE == CLUSTER_REGS_SYNC || MODE == CLUSTER_REGS_MBARRIER || kPartial || kPersistent;
  constexpr bool kControl = MODE == CONTROL_SYNC || MODE == CONTROL_MBARRIER;
  constexpr bool kRetain = MODE == CLUSTER_SYNC || MODE == CLUSTER_MBARRIER || MODE == STAGED || kPartial || kPersistent;
  // STAGED_REGS, CLUSTER_REGS_*: the row (slice) stays in registers, up to
  // RPT elements per thread and kept input in kRegIters sweeps of kUnroll x VEC,
  // every sweep index a compile-time constant (the pass loops are unrolled), so
  // no local memory. The launchers pick these forms when the slice fits.
  constexpr bool kRegs = MODE == STAGED_REGS || MODE == CLUSTER_REGS_SYNC || MODE == CLUSTER_REGS_MBARRIER;
  static_assert((kRegs || kPersistent) == (RPT > 0), "RPT > 0 exactly in the register-resident and persistent modes");
  // The pass loops walk RPT elements per thread in compile-time sweeps (so that
  // register arrays stay registers): the register forms, and the persistent form
  // for its hoisted inputs (its kept slices are in SMEM).
  constexpr bool kSweeps = kRegs || kPersistent;
  constexpr bool kSyncExchange = MODE == CLUSTER_SYNC || MODE == CONTROL_SYNC || MODE == CLUSTER_REGS_SYNC ||
                                 MODE == CLUSTER_PARTIAL_SYNC;
  constexpr bool kMbarExchange = MODE == CLUSTER_MBARRIER || MODE == CONTROL_MBARRIER ||
                                 MODE == CLUSTER_REGS_MBARRIER || MODE == CLUSTER_PARTIAL_MBARRIER || kPersistent;
  constexpr credit::Protocol kProtocol =
      kMbarExchange ? credit::Protocol::Mbarrier : credit::Protocol::Sync;
  // Retaining kernels on the float4 path fill the retained slice with bulk
  // asynchronous copies (TMA) issued at entry: every kept input's whole slice in
  // flight at once, through no registers. VEC == 4 guarantees what they need
  // (rows 16-byte aligned and N % 4 == 0, so every slice and chunk starts
  // 16-byte aligned and is a multiple of 16 bytes long).
  constexpr bool kBulk = kRetain && VEC == 4 && geometry.keepBytesPerElem > 0;
  // One row per launch: each kept slice in credit::kLoadChunks copies, so the first
  // pass starts on the first chunk. The persistent form copies whole slices, one
  // row ahead: they have landed by the time the row is reached.
  constexpr bool kChunked = kBulk && !kPersistent;
  // Loads in flight per thread and input in every pass (see the loops).
  constexpr int kUnroll = VEC == 4 ? (kPersistent ? CREDIT_UNROLL_PERSISTENT : CREDIT_UNROLL_VEC4) : CREDIT_UNROLL_VEC1;
  constexpr int kRegIters = kSweeps ? (RPT + kUnroll * VEC - 1) / (kUnroll * VEC) : 1;
  // Float4 register forms load every kept input's row (slice) at entry; the
  // scalar ones (kUnroll = 8: four times the loads) keep them as the first
  // pass reads them, which needs fewer registers at once and does not spill.
  constexpr bool kRegPrefetch = kRegs && VEC == 4;
  if constexpr (!kCluster) P = 1;
  if constexpr (!kPersistent) ring = 0;
  static_assert(PIECES == 1 || (kPersistent && PIECES == credit::kPersistentMaxPieces), "PIECES");
  constexpr int ring_pieces = PIECES;
  // Every sweep of the pass loops lies in one ring piece (credit::persistentPieceElems).
  static_assert(!kPersistent || credit::kPersistentMaxUnroll % kUnroll == 0, "CREDIT_UNROLL_PERSISTENT: 1, 2 or 4");
  // Two pieces at most: a sweep's piece is selected from two pointers per input.
  static_assert(credit::kPersistentMaxPieces == 2, "the pass loops select between two pieces");
  // Two pieces: the slice (at most RPT * THREADS elements, credit::persistentFits)
  // splits at credit::persistentPieceElems = kVecElems * kPersistentMaxUnroll * THREADS,
  // a compile-time sweep: the pass loops pick the piece and wait for it with no
  // run-time test.
  static_assert(PIECES == 1 || RPT * THREADS <= 2 * credit::kVecElems * credit::kPersistentMaxUnroll * THREADS,
                "a slice splits into two pieces at a fixed sweep");
  constexpr int kPiece1Sweep = PIECES > 1 ? credit::kPersistentMaxUnroll / kUnroll : kRegIters;  // the second piece's first sweep

  const unsigned tid = threadIdx.x;
  const unsigned warp = tid / 32;
  const unsigned lane = tid % 32;
  const int rank = kCluster ? static_cast<int>(credit_cluster_ctarank()) : 0;  // c
  // The grid has one CTA (cluster variants: P CTAs) per row, except in the
  // persistent form: the resident clusters only, cluster `row_first` taking rows
  // row_first, row_first + clusters, ... (`rows` of them; every other form: one).
  const long long row_first = kCluster ? static_cast<long long>(blockIdx.x / static_cast<unsigned>(P))
                                       : static_cast<long long>(blockIdx.x);
  const long long clusters = kPersistent ? static_cast<long long>(gridDim.x / static_cast<unsigned>(P)) : 1;
  const long long rows = kPersistent ? (row_first < M ? (M - 1 - row_first) / clusters + 1 : 0) : 1;
  // This CTA's slice [begin, begin + len) of the row; it may be empty (len == 0):
  // the loops then do nothing, but every barrier below is still reached by
  // every thread (there is no early return anywhere).
  const long long slice = credit::sliceElems(N, P);
  const long long begin = rank * slice < N ? rank * slice : N;
  const unsigned len = static_cast<unsigned>((begin + slice < N ? begin + slice : N) - begin);
  // The persistent form's ring piece, in elements (the whole slice elsewhere).
  const unsigned piece_elems = static_cast<unsigned>(kPersistent ? credit::persistentPieceElems(geometry, N, P, ring_pieces) : slice);
  (void)piece_elems;
  // Two pieces, the second not empty: h refills the first pieces' units once every
  // thread is past them, and the row's end only the second pieces' (the same for
  // every thread of the CTA).
  const bool release_in_h = kPersistent && ring_pieces > 1 && len > piece_elems;
  (void)release_in_h;

  // Dynamic SMEM, exactly credit::smemLayout(geometry, N, P, protocol): scratch
  // first, then one slice-long array per kept input (REREAD: scratch only); the
  // persistent form: credit::smemLayoutPersistent, `ring` units of one piece.
  const credit::SmemLayout layout = kPersistent ? credit::smemLayoutPersistent(geometry, N, P, ring, ring_pieces)
                                                : credit::smemLayout(geometry, N, P, kProtocol);
  unsigned char* const smem = credit_dynamic_smem();
  float* const warp_partials = reinterpret_cast<float*>(smem + layout.warpPartialsOffset);  // [kWarps][qMax]
  float* const cta_partial = reinterpret_cast<float*>(smem + layout.ctaPartialOffset);      // [qMax]
  float* const slots = reinterpret_cast<float*>(smem + layout.slotsOffset);  // sync: [P][q_l]; mbarrier: per stage
  uint64_t* const bars = reinterpret_cast<uint64_t*>(smem + layout.mbarOffset);  // mbarrier: L of them
  uint64_t* const load_bars = reinterpret_cast<uint64_t*>(smem + layout.loadBarOffset);  // [kept array][kLoadChunks]; persistent: [ring unit]
  const unsigned chunk = static_cast<unsigned>(credit::loadChunkElems(len, kThreads));  // bulk-load chunk
  (void)bars;
  (void)slots;
  (void)load_bars;
  (void)chunk;
  // The persistent form's rows: cluster row_first takes rows row_first + k * clusters.
  // With row claims (row_claims: the launcher's counter, zero at entry) only its first
  // claim_ahead rows (the ring's depth) are those: rank 0 claims each later row that many
  // rows ahead (atomicAdd on row_claims[0]) and sends it with stage 1's partials, and
  // thread 0 queues it for the ring's copies and every thread's row (credit::kRowClaimQueue).
  // CLAIMS: a kernel of its own (the launcher's choice, credit::useRowClaims), so that the
  // static rows' kernels carry none of this (a runtime test cost them 1-5% at P = 16).
  constexpr bool kClaims = CLAIMS && kPersistent;
  const bool claims = kClaims && row_claims != nullptr;
  constexpr int ring_copies = static_cast<int>(credit::numKeptArrays(geometry)) * ring_pieces;  // C, copies a row
  const int claim_ahead = kPersistent && ring_copies > 0 ? (ring + ring_copies - 1) / ring_copies : 0;
  // The cluster's first claimed row: the last CREDIT_ROW_CLAIM_SHARE percent of the rows every
  // cluster has (M / clusters), and never one of the first claim_ahead (issued before any claim).
  const long long claim_rows_min = kPersistent ? M / clusters : 0;
  const long long claim_from_share = claim_rows_min - (claim_rows_min * CREDIT_ROW_CLAIM_SHARE + 99) / 100;
  const long long claim_from = claim_from_share > claim_ahead ? claim_from_share : claim_ahead;
  auto claim_sent_at = [&](long long kk) {  // whether row kk's stage 1 sends a claimed row (kk + claim_ahead)
    return claims && kk + claim_ahead >= claim_from;
  };
  unsigned* const claim_slots = reinterpret_cast<unsigned*>(smem + layout.claimsOffset);  // [2]: by row parity
  unsigned* const claim_queue = claim_slots + 2;  // [kRowClaimQueue]: claimed row kk at kk % kRowClaimQueue
  unsigned* const claim_handoff = claim_queue + credit::kRowClaimQueue;  // [1]: the row stage 1 sends next
  // The thread of rank 0 that claims rows: warp 1's lane 0, a row before its index is sent.
  // Measured on the H200 against thread 0 claiming at the start of the row that sends it
  // (docs/results/row-claims/): thread 0's stage-1 arrive and the copies it issues waited
  // for the atomic.
  constexpr unsigned kClaimThread = 32;
  static_assert(!kClaims || THREADS > static_cast<int>(kClaimThread), "the claims' thread is in warp 1");
  static_assert((credit::kRowClaimQueue & (credit::kRowClaimQueue - 1)) == 0, "the queue's index is a mask");
  auto row_at = [&](long long kk) -> long long {  // the cluster's kk-th row; M: none
    const long long r = claims && kk >= claim_from
        ? claim_from * clusters + claim_queue[kk & (credit::kRowClaimQueue - 1)]
        : row_first + kk * clusters;
    return r < M ? r : M;
  };
  auto row_exists = [&](long long kk) { return kClaims ? row_at(kk) < M : kk < rows; };  // the cluster has a kk-th row
  auto row_index = [&](long long kk) { return kClaims ? row_at(kk) : row_first + kk * clusters; };  // which (if it has)
  (void)claim_slots;
  (void)claim_handoff;
  (void)row_at;
  (void)claim_sent_at;
  (void)row_exists;
  (void)row_index;
)cuda";
  // Kept arrays: whether this instantiation retains each (the partial form
  // re-reads one of them from global memory), and where (the pointers: per
  // row, in the row loop below).
  for (cr::InputOp k : traffic.kept) {
    InputInfo *in = inputOf.lookup(k);
    os << "  constexpr bool " << in->keep << " = kRetain" << (in == partialDropped ? " && !kPartial" : "")
       << ";  // " << in->src << " retained in SMEM"
       << (in == partialDropped ? " (the partial form reads it from global memory again)" : "") << "\n";
    os << "  constexpr bool " << in->bulk << " = kBulk && " << in->keep << ";\n";
    os << "  float " << in->reg << "[kRegs ? kRegIters : 1][kUnroll][VEC];  // STAGED_REGS: this thread's "
       << in->src << "\n";
    os << "  (void)" << in->reg << ";\n";
  }
  if (numOnlyH() > 0) {
    os << "  // The staged register forms also load the inputs only h reads at entry, where the\n"
          "  // row's data registers allow it (credit::prefetchInputsOfH): their latency then\n"
          "  // hides behind the stage passes instead of stalling h. The persistent form loads\n"
          "  // the broadcast ones once per CTA, for all its rows.\n";
    os << "  constexpr bool kPrefetchH = kRegPrefetch && MODE == STAGED_REGS &&\n"
          "                              credit::prefetchInputsOfH(numKept, numInputsOnlyHReads, RPT, THREADS != "
       << ns << "::kThreads);\n";
    for (auto &in : inputs)
      if (in->onlyH)
        os << "  float " << in->hreg << "[" << (in->op.isBroadcast() ? "(kPrefetchH || kPersistent)" : "kPrefetchH")
           << " ? kRegIters : 1][kUnroll][VEC];  // kPrefetchH"
           << (in->op.isBroadcast() ? ", kPersistent" : "") << ": this thread's " << in->src << "\n  (void)"
           << in->hreg << ";\n";
  }
  // Broadcast vectors: this CTA's slice, the same for every row.
  for (auto &in : inputs)
    if (in->op.isBroadcast())
      os << "  const float* const " << in->slice << " = kControl ? nullptr : " << in->gmem
         << " + begin;  // this CTA's slice of " << in->src << " (every row)\n";
  // Row-level values available from the start.
  bool hasN = false;
  for (Operation &op : kernel.getBodyBlock())
    hasN |= llvm::isa<cr::RowWidthOp>(op);
  if (hasN)
    os << "  const float N_f = static_cast<float>(N);  // N, the row width, as f32\n";

  os << R"cuda(
  // ---- set-up ----
  if constexpr (kMbarExchange) {
    if (tid == 0) {
      // 1 arrival each: our expect_tx. The persistent form has two sets (row parity).
      for (int stage = 0; stage < (kPersistent ? 2 : 1) * L; ++stage) credit_mbar_init(credit_smem_addr(bars + stage), 1);
      credit_fence_mbarrier_init_cluster();  // release the inits to the cluster (peers' complete_tx)
    }
    // The set-up cluster barrier (the only one of this protocol), split so that
    // it overlaps stage 1's pass: arrive.release here publishes the inits; the
    // wait before the first push guarantees that every CTA has started and
    // initialised its mbarriers before any st.async reaches them.
    credit_cluster_arrive();
  } else if constexpr (kSyncExchange) {
    // Rule 0 (credit_device.cuh): no CTA touches a peer's SMEM before every CTA
    // of the cluster has started. A relaxed arrival here, the wait before the
    // first push: one extra barrier phase, overlapped with stage 1's pass (not
    // counted in K_sync, which counts the 2 per stage).
    credit_cluster_arrive_relaxed();
  }
)cuda";
  llvm::SmallVector<InputInfo *> keptByFirstRead;
  for (cr::InputOp k : traffic.kept)
    keptByFirstRead.push_back(inputOf.lookup(k));
  llvm::stable_sort(keptByFirstRead, [](InputInfo *a, InputInfo *b) { return a->firstPass < b->firstPass; });
  if (!traffic.kept.empty()) {
    os << "  // Bulk loads (kBulk): thread 0 initialises one mbarrier per kept input and chunk\n"
          "  // (persistent form: one per ring unit) before any copy signals one.\n";
    os << "  if constexpr (kBulk) {\n";
    os << "    if (tid == 0) {\n";
    os << "      for (int k = 0; k < (kPersistent ? ring : credit::numKeptArrays(geometry) * credit::kLoadChunks); ++k) credit_mbar_init(credit_smem_addr(load_bars + k), 1);  // 1 arrival: the expect_tx\n";
    os << "      credit_fence_mbarrier_init_cluster();  // the inits, visible to the async proxy\n";
    os << "    }\n";
    os << "    __syncthreads();  // initialised before any thread waits on them or a copy signals them\n";
    os << "  }\n";
    // The persistent form's ring, counted in copies (credit::smemLayoutPersistent).
    for (auto [i, in] : llvm::enumerate(keptByFirstRead))
      in->ringIndex = static_cast<int>(i);
    os << "  // Persistent form: the CTA's kept-slice copies are numbered j = 0, 1, ...: with\n"
          "  // C = A * ring_pieces copies a row, copy j is piece j % ring_pieces of kept input\n"
          "  // (j % C) / ring_pieces (by first read) of its row j / C, into ring unit j % ring, and\n"
          "  // completes phase (j / ring) % 2 of that unit's mbarrier. Thread 0 issues copy j + ring\n"
          "  // once the row of copy j has finished with its unit.\n";
    os << "  constexpr int kRingArrays = static_cast<int>(credit::numKeptArrays(geometry));  // A\n";
    os << "  auto ring_unit = [&](long long j) { return credit::ringUnit(j, ring); };\n";
    os << "  auto ring_load = [&](long long j) {\n";
    os << "    const long long r = row_index(credit::ringRow(j, ring_copies));\n";
    os << "    const uint32_t bar = credit_smem_addr(load_bars + ring_unit(j));\n";
    os << "    const uint32_t dst = credit_smem_addr(smem + layout.keepOffset + ring_unit(j) * layout.keepBytes);\n";
    os << "    const unsigned pfirst = credit::ringPiece(j, ring_pieces) * piece_elems;\n";
    os << "    const unsigned pbeg = pfirst < len ? pfirst : len;\n";
    os << "    const unsigned pend = pbeg + piece_elems < len ? pbeg + piece_elems : len;\n";
    os << "    credit_mbar_arrive_expect_tx(bar, (pend - pbeg) * 4);  // an empty piece completes at once\n";
    os << "    if (pend > pbeg) {\n";
    os << "      switch (credit::ringArray(j, kRingArrays, ring_pieces)) {\n";
    for (InputInfo *in : keptByFirstRead) {
      std::string rowOff = in->op.isRow() ? "r * N + " : "";
      os << "        case " << in->ringIndex << ": credit_bulk_load(dst, " << in->gmem << " + " << rowOff
         << "begin + pbeg, (pend - pbeg) * 4, bar); break;  // " << in->src << "\n";
    }
    os << "      }\n";
    os << "    }\n";
    os << "  };\n";
    os << "  // After row copies [j0, j0 + C) are read: copy j + ring into the unit of each\n"
          "  // copy j among them of piece `freed` (-1: every piece), for rows that exist.\n";
    os << "  auto ring_refill = [&](long long j0, int freed) {\n";
    os << "    for (int q = 0; q < ring_copies; ++q) {\n";
    os << "      const long long j = j0 + ring + q;\n";
    os << "      if (!row_exists(credit::ringRow(j, ring_copies))) break;\n";
    os << "      if (freed < 0 || credit::ringPiece(q, ring_pieces) == freed) ring_load(j);\n";
    os << "    }\n";
    os << "  };\n";
    os << "  (void)ring_unit;\n  (void)ring_load;\n  (void)ring_refill;\n";
    os << "  // The row's first copy: its unit and lap parity, advanced row by row (credit::ringAdvance),\n"
          "  // so that no thread divides 64-bit numbers per row.\n";
    os << "  int ring_u0 = 0;\n  unsigned ring_lap = 0;\n";
    os << "  auto row_unit = [&](int q) { return credit::ringUnitAt(ring_u0, q, ring); };\n";
    os << "  auto row_parity = [&](int q) { return static_cast<uint32_t>(credit::ringParityAt(ring_lap, ring_u0, q, ring)); };\n";
    os << "  (void)row_unit;\n  (void)row_parity;\n";
    os << "  if constexpr (kPersistent) {\n";
    os << "    if (tid == 0) {\n";
    os << "      for (long long j = 0; j < ring && row_exists(credit::ringRow(j, ring_copies)); ++j) ring_load(j);  // the first rows\n";
    os << "    }\n";
    if (numHoisted() > 0) {
      os << "    // The broadcast vectors only h reads: this CTA's slice, once, for every row.\n";
      emitSweepLoads([&] {
        for (auto &in : inputs)
          if (in->onlyH && in->op.isBroadcast())
            os << "        credit_ld_global_if(" << in->hreg << "[it][u], " << in->slice
               << " + (in_slice ? off : 0u), in_slice);  // " << in->src << "\n";
      });
    }
    os << "  }\n";
  }

  // The row loop: its body is printed into the text, then indented.
  os << "\n  // Row claims: rank 0's kClaimThread claims each row a row before it is sent (the first\n"
        "  // here) and hands it over in claim_handoff at the start of the row that sends it.\n";
  os << "  unsigned claim_pending = 0;\n";
  os << "  if (rank == 0 && tid == kClaimThread && claim_sent_at(0)) claim_pending = atomicAdd(row_claims, 1u);\n";
  os << "  (void)claim_pending;\n";
  os << "\n  // ---- rows: one per CTA (cluster); the persistent form: while the cluster has a k-th row ----\n";
  os << "  for (long long k = 0; row_exists(k); ++k) {\n";
  os.flush();
  const size_t loopBodyStart = text ? text->size() : 0;
  os << "  const long long row = row_index(k);\n";
  os << "  // Row claims: hand the row stage 1 sends (claimed a row ago) to its senders, threads < P (the\n"
        "  // __syncthreads before the exchange orders it), and claim the next one: a whole row for the atomic.\n";
  os << "  if (rank == 0 && tid == kClaimThread) {\n";
  os << "    if (claim_sent_at(k)) *claim_handoff = claim_pending;\n";
  os << "    if (claim_sent_at(k + 1)) claim_pending = atomicAdd(row_claims, 1u);\n";
  os << "  }\n";
  if (!traffic.kept.empty()) {
    os << "  // Persistent form: the copy of this row's first kept input's first piece (ring_load above).\n";
    os << "  const long long ring_copy = k * ring_copies;\n";
    os << "  (void)ring_copy;\n";
  }
  for (cr::InputOp k : traffic.kept) {
    InputInfo *in = inputOf.lookup(k);
    os << "  float* const " << in->smem << " = !" << in->keep << " ? nullptr\n"
       << "      : kPersistent ? reinterpret_cast<float*>(smem + layout.keepOffset + row_unit("
       << in->ringIndex << " * ring_pieces) * layout.keepBytes)\n"
       << "      : reinterpret_cast<float*>(smem + layout.keepOffset)"
       << (in->keptIndex == 0 ? std::string() : formatv(" + {0} * slice", in->keptIndex).str())
       << ";  // retained slice of " << in->src << " [slice] (persistent: its first piece)\n";
    os << "  float* const " << in->smem << "_p1 = !" << in->keep << " || !kPersistent || ring_pieces < 2 ? "
       << in->smem << "\n"
       << "      : reinterpret_cast<float*>(smem + layout.keepOffset + row_unit(" << in->ringIndex
       << " * ring_pieces + 1) * layout.keepBytes);  // persistent: the second piece of " << in->src << "\n";
  }
  // Global pointers of this CTA's slice (never formed in the control kernels,
  // whose pointers are null).
  os << "  // This CTA's slice of the row in global memory (the control kernels get null pointers).\n";
  for (auto &in : inputs)
    if (in->op.isRow())
      os << "  const float* const " << in->slice << " = kControl ? nullptr : " << in->gmem
         << " + row * N + begin;\n";
  for (const OutputInfo &o : outputs)
    if (o.perElement)
      os << "  " << (o.i8 ? "int8_t" : "float") << "* const " << o.slice << " = kControl ? nullptr : "
         << o.gmem << " + row * N + begin;\n";
  for (auto &in : inputs) {
    if (!in->op.isScalar() && in->passes.empty())
      os << "  (void)" << in->slice << ";  // " << in->src << " is read by no pass\n";
  }
  for (auto &in : inputs)
    if (prefetchedIntoL2(*in)) {
      // One thread asks L2 for the row's slice, so h's loads of it hit L2 rather
      // than wait for HBM after the stages (float4 form: aligned).
      os << "  if constexpr (kPersistent && !kControl) {\n";
      os << "    if (tid == 0 && len > 0) credit_bulk_prefetch_l2(" << in->slice
         << ", len * 4);  // " << in->src << ": into L2 while the stages run\n";
      os << "  }\n";
    }
  for (auto &in : inputs)
    if (in->op.isScalar())
      os << "  const float " << in->name << " = kControl ? 0.0f : " << in->gmem
         << "[row];  // per-row input, read once\n"
         << (in->op.getResult().use_empty() ? "  (void)" + in->name + ";\n" : std::string());
  if (!traffic.kept.empty()) {
    os << "  // Bulk loads (kChunked): thread 0 issues every chunk's copy, in the order the\n"
          "  // passes first read them. Each phase-0 completion (the expected bytes landed)\n"
          "  // releases one chunk; the first pass over an input waits for each of its chunks in turn.\n";
    os << "  if constexpr (kChunked) {\n";
    os << "    if (tid == 0) {\n";
    for (InputInfo *in : keptByFirstRead) {
      std::string ind = "      ";
      if (in == partialDropped) {
        os << "      if constexpr (" << in->bulk << ") {  // not in the partial form\n";
        ind += "  ";
      }
      os << ind << "for (int c = 0; c < credit::kLoadChunks; ++c) {  // " << in->src << "\n";
      os << ind << "  const unsigned cbeg = c * chunk < len ? c * chunk : len;\n";
      os << ind << "  const unsigned cend = cbeg + chunk < len ? cbeg + chunk : len;\n";
      os << ind << "  const uint32_t bar = credit_smem_addr(load_bars + " << in->keptIndex
         << " * credit::kLoadChunks + c);\n";
      os << ind << "  credit_mbar_arrive_expect_tx(bar, (cend - cbeg) * 4);  // an empty chunk completes at once\n";
      os << ind << "  if (cend > cbeg) credit_bulk_load(credit_smem_addr(" << in->smem << " + cbeg), "
         << in->slice << " + cbeg, (cend - cbeg) * 4, bar);\n";
      os << ind << "}\n";
      if (in == partialDropped)
        os << "      }\n";
    }
    os << "    }\n";
    os << "  }\n";
  }

  if (!traffic.kept.empty()) {
    os << "  // Register-resident forms (float4): every kept input's whole row (slice) is\n"
          "  // loaded at entry, all loads in flight at once (predicated, no early exit),\n"
          "  // like the bulk copies of the SMEM forms; the passes then read the registers.\n";
    os << "  if constexpr (kRegPrefetch) {\n";
    emitSweepLoads([&] {
      for (cr::InputOp k : traffic.kept) {
        InputInfo *in = inputOf.lookup(k);
        os << "        credit_ld_global_if(" << in->reg << "[it][u], " << in->slice
           << " + (in_slice ? off : 0u), in_slice);  // " << in->src << "\n";
      }
      for (auto &in : inputs)
        if (in->onlyH)
          os << "        if constexpr (kPrefetchH) credit_ld_global_if(" << in->hreg << "[it][u], " << in->slice
             << " + (in_slice ? off : 0u), in_slice);  // " << in->src << ": only h reads it\n";
    });
    os << "  }\n";
  }

  // Program order: stages, row-level lets, h, per-row outputs.
  bool inLets = false;
  for (Operation &op : kernel.getBodyBlock()) {
    if (!ExprPrinter::isExprOp(&op))
      inLets = false;
    if (auto stage = llvm::dyn_cast<cr::StageOp>(op)) {
      emitStage(stages[stage.getStageIndex()]);
    } else if (ExprPrinter::isExprOp(&op)) {
      if (tempName.count(&op)) {
        if (!inLets)
          os << "  // Row-level lets (every thread, in registers).\n";
        inLets = true;
        os << "  ";
        emitRowLevelOp(&op, "");
        continue;
      }
    } else if (llvm::isa<cr::ApplyOp>(op)) {
      os << "\n  // ======== h: the elementwise outputs over this CTA's slice ========\n";
      os << "  // Every input h reads: kept ones from the retained slice (REREAD: HBM again),\n"
            "  // the others streamed from HBM. The deposits of the first pass are read back by\n"
            "  // the thread that wrote them (same mapping), and __syncthreads separate the\n"
            "  // passes anyway: no extra barrier is needed.\n";
      emitPassLoop(passes.back(), "  ");
    } else if (auto out = llvm::dyn_cast<cr::OutputOp>(op)) {
      const OutputInfo &o = *llvm::find_if(outputs, [&](const OutputInfo &x) { return x.op == out; });
      if (o.perElement)
        continue;
      os << "\n  // Per-row output " << o.src << ": written once per row, by thread 0 of rank 0.\n";
      os << "  if constexpr (!kControl) {\n";
      os << "    if (rank == 0 && tid == 0) " << o.gmem << "[row] = " << rowP.ref(out.getValue())
         << ";\n";
      os << "  }\n";
    }
  }
  os << "\n  if constexpr (kControl) {\n";
  os << "    // The control kernels do no global memory work. This store keeps the exchanged\n"
        "    // statistics (hence the whole reduction and exchange) alive and never executes:\n"
        "    // N >= 1 always, which the compiler cannot know.\n";
  os << "    if (N < 0) control_sink = ";
  for (auto [i, s] : llvm::enumerate(statNames))
    os << (i ? " + " : "") << s;
  os << ";\n  }\n";
  if (!traffic.kept.empty()) {
    os << "  if constexpr (kPersistent) {\n";
    os << "    __syncthreads();  // every thread has read this row's units (h is the last pass)\n";
    os << "    if (tid == 0 && row_exists(credit::ringRow(ring_copy + ring, ring_copies))) {  // copies `ring` ahead into the freed units\n";
    os << "      credit_fence_proxy_async_smem();  // the reads above (generic proxy) before the copies' writes (async proxy)\n";
    os << "      ring_refill(ring_copy, release_in_h ? 1 : -1);  // the first pieces' went in h\n";
    os << "    }\n";
    os << "    credit::ringAdvance(ring_u0, ring_lap, ring_copies, ring);  // the next row's first copy\n";
    os << "  }\n";
  }
  // Indent the row loop's body one level.
  os.flush();
  if (text) {
    std::string loopBody = text->substr(loopBodyStart), indented;
    for (llvm::StringRef line : llvm::split(llvm::StringRef(loopBody), '\n'))
      indented += (line.empty() ? std::string() : "  " + line.str()) + "\n";
    indented.pop_back();  // split() yields one piece after the last newline
    text->resize(loopBodyStart);
    *text += indented;
  }
  os << "  }\n";
  os << "  // Row claims: the last cluster done leaves the counter zero for the next launch. Each\n"
        "  // cluster's claims come before its count (the same thread; the fence orders them).\n";
  os << "  if (claims && rank == 0 && tid == kClaimThread) {\n";
  os << "    __threadfence();\n";
  os << "    if (atomicAdd(row_claims + 1, 1u) == static_cast<unsigned>(clusters) - 1u) {\n";
  os << "      atomicExch(row_claims, 0u);\n";
  os << "      atomicExch(row_claims + 1, 0u);\n";
  os << "    }\n";
  os << "  }\n";
  os << "  // Persistent form: no exit barrier either. Every byte pushed into this CTA and\n"
        "  // every bulk copy it issued has been waited for.\n";
  os << "}\n\n";
  os << "}  // namespace " << ns << "\n\n";
}

//===----------------------------------------------------------------------===//
// __global__ wrappers
//===----------------------------------------------------------------------===//

void KernelEmitter::emitKernels() {
  os << "// ===== kernels: extern \"C\", stable names =====\n";
  os << "// Data kernels take (" << argNames() << ", M, N[, P]); pointers as in " << ns
     << "_body.\n";
  // rpt: register elements per thread and kept input ("0": not register-resident).
  // wideCta: the twin with kWideCtaThreads threads (suffix _cta<threads>).
  auto dataKernel = [&](StringRef suffix, StringRef mode, int vec, bool cluster, StringRef note,
                        StringRef rpt = "0", bool wideCta = false) {
    bool wideRegs = rpt == "credit::kRegsWideElemsPerThread";
    os << "// " << note << "\n";
    os << "extern \"C\" __global__ void __launch_bounds__("
       << (wideCta ? wideCtaThreads() : geo.threads) << ", "
       << (wideCta ? "CREDIT_MIN_CTAS_PER_SM_WIDE_CTA"
                   : wideRegs ? "CREDIT_MIN_CTAS_PER_SM_WIDE_REGS" : "CREDIT_MIN_CTAS_PER_SM")
       << ") " << ns << "_" << suffix << (wideCta ? formatv("_cta{0}", wideCtaThreads()).str() : "")
       << "(\n    " << kernelParams() << "long long M, int N" << (cluster ? ", int P" : "")
       << ") {\n";
    os << "  " << ns << "::" << ns << "_body<" << vec << ", " << ns << "::" << mode << ", " << rpt << ", "
       << ns << "::" << (wideCta ? "kWideCtaThreads" : "kThreads") << ">(" << argNames() << ", M, N, "
       << (cluster ? "P" : "1") << ", 0);\n";
    os << "}\n";
  };
  const bool twins = wideCtaThreads() > 0;
  if (wants(credit::Variant::Cluster)) {
    dataKernel("cluster_sync_v4", "CLUSTER_SYNC", 4, true,
               "Cluster of P CTAs per row (grid M*P, cluster dim P), sync protocol, float4 accesses.");
    dataKernel("cluster_sync_v1", "CLUSTER_SYNC", 1, true, "Same, scalar accesses (any N, any alignment).");
    dataKernel("cluster_mbarrier_v4", "CLUSTER_MBARRIER", 4, true,
               "Cluster of P CTAs per row, mbarrier protocol, float4 accesses.");
    dataKernel("cluster_mbarrier_v1", "CLUSTER_MBARRIER", 1, true, "Same, scalar accesses.");
    const char *wide = "credit::kRegsWideElemsPerThread";
    if (registerForms()) {
      dataKernel("cluster_regs_sync_v4", "CLUSTER_REGS_SYNC", 4, true,
                 "The cluster kernels for slices of at most credit::regsWideMaxN(kThreads) elements: the slice in\n"
                 "// registers instead of SMEM. Sync protocol, float4.", wide);
      dataKernel("cluster_regs_sync_v1", "CLUSTER_REGS_SYNC", 1, true, "Same, scalar accesses.", wide);
      dataKernel("cluster_regs_mbarrier_v4", "CLUSTER_REGS_MBARRIER", 4, true, "Same, mbarrier protocol, float4.", wide);
      dataKernel("cluster_regs_mbarrier_v1", "CLUSTER_REGS_MBARRIER", 1, true, "Same, scalar accesses.", wide);
    }
    if (twins) {
      dataKernel("cluster_sync_v4", "CLUSTER_SYNC", 4, true,
                 "The wide-CTA twins (kWideCtaThreads threads), run where the SMEM footprint allows one CTA\n"
                 "// per SM (credit::useWideCta).", "0", true);
      dataKernel("cluster_sync_v1", "CLUSTER_SYNC", 1, true, "Same, scalar accesses.", "0", true);
      dataKernel("cluster_mbarrier_v4", "CLUSTER_MBARRIER", 4, true, "Same, mbarrier protocol.", "0", true);
      dataKernel("cluster_mbarrier_v1", "CLUSTER_MBARRIER", 1, true, "Same, scalar accesses.", "0", true);
    }
    if (persistentForm()) {
      os << "// The persistent form (credit::usePersistent): a grid of the resident clusters of P CTAs, each\n"
            "// walking rows; the kept slices through a ring of `ring` SMEM units filled by bulk copies,\n"
            "// broadcast inputs only h reads in registers (loaded once). kWideCtaThreads threads, float4,\n"
            "// mbarrier protocol. row_claims (the _claims kernels; ignored by the others): a zeroed counter\n"
            "// of two words that the kernel leaves zero (rows claimed at run time, Layout.h), or nullptr\n"
            "// (the static rows); one launch at a time.\n";
      // One kernel per ring shape: whole slices, or two pieces a slice (the body's PIECES).
      auto persistentKernel = [&](StringRef suffix, StringRef piecesArg, StringRef claimsArg) {
        os << "extern \"C\" __global__ void __launch_bounds__(" << wideCtaThreads()
           << ", CREDIT_MIN_CTAS_PER_SM_WIDE_CTA) " << ns << "_" << suffix
           << formatv("_cta{0}", wideCtaThreads()).str() << "(\n    " << kernelParams()
           << "long long M, int N, int P, int ring, unsigned* row_claims) {\n";
        os << "  " << ns << "::" << ns << "_body<4, " << ns << "::CLUSTER_PERSISTENT, credit::kRegsWideElemsPerThread, "
           << ns << "::kWideCtaThreads" << piecesArg << claimsArg << ">(" << argNames() << ", M, N, P, ring, row_claims);\n";
        os << "}\n";
      };
      persistentKernel("cluster_persistent_v4", "", "");
      os << "// Same, each kept slice copied in two pieces (credit::persistentRing).\n";
      persistentKernel("cluster_persistent_halves_v4", ", 2", "");
      os << "// The two with rows claimed at run time (row_claims; nullptr: the static rows).\n";
      persistentKernel("cluster_persistent_claims_v4", ", 1", ", true");
      persistentKernel("cluster_persistent_halves_claims_v4", ", 2", ", true");
    }
    if (partialDropped) {
      dataKernel("cluster_partial_sync_v4", "CLUSTER_PARTIAL_SYNC", 4, true,
                 "The partial-retention form: every kept input but " + partialDropped->src +
                     " in SMEM, " + partialDropped->src +
                     " read from global memory (L2) by every pass;\n"
                     "// run where the full form's footprint allows one CTA per SM and credit::usePartialRetention holds. Sync, float4.");
      dataKernel("cluster_partial_sync_v1", "CLUSTER_PARTIAL_SYNC", 1, true, "Same, scalar accesses.");
      dataKernel("cluster_partial_mbarrier_v4", "CLUSTER_PARTIAL_MBARRIER", 4, true, "Same, mbarrier protocol, float4.");
      dataKernel("cluster_partial_mbarrier_v1", "CLUSTER_PARTIAL_MBARRIER", 1, true, "Same, scalar accesses.");
    }
  }
  if (wants(credit::Variant::Staged)) {
    dataKernel("staged_v4", "STAGED", 4, false,
               "One CTA per row (grid M, no cluster), the row retained in SMEM, float4 accesses.");
    dataKernel("staged_v1", "STAGED", 1, false, "Same, scalar accesses.");
    if (registerForms()) {
      dataKernel("staged_regs_v4", "STAGED_REGS", 4, false,
                 "The staged kernel for rows of at most credit::regsMaxN(kThreads) elements: the row in registers, float4.",
                 "credit::kRegsElemsPerThread");
      dataKernel("staged_regs_v1", "STAGED_REGS", 1, false, "Same, scalar accesses.", "credit::kRegsElemsPerThread");
      dataKernel("staged_regs_wide_v4", "STAGED_REGS", 4, false,
                 "Same for rows of at most credit::regsWideMaxN(kThreads) elements, float4.",
                 "credit::kRegsWideElemsPerThread");
      dataKernel("staged_regs_wide_v1", "STAGED_REGS", 1, false, "Same, scalar accesses.",
                 "credit::kRegsWideElemsPerThread");
    }
    if (twins) {
      dataKernel("staged_v4", "STAGED", 4, false,
                 "The wide-CTA twins (kWideCtaThreads threads), run where the SMEM staged kernel would fit one\n"
                 "// CTA per SM (credit::useWideCta): the row in SMEM, float4.", "0", true);
      dataKernel("staged_v1", "STAGED", 1, false, "Same, scalar accesses.", "0", true);
      dataKernel("staged_regs_wide_v4", "STAGED_REGS", 4, false,
                 "Same, the row in registers (at most credit::regsWideMaxN(kWideCtaThreads) elements), float4.",
                 "credit::kRegsWideElemsPerThread", true);
      dataKernel("staged_regs_wide_v1", "STAGED_REGS", 1, false, "Same, scalar accesses.",
                 "credit::kRegsWideElemsPerThread", true);
      if (credit::hasDeepRegisterForm(geo)) {
        dataKernel("staged_regs_deep_v4", "STAGED_REGS", 4, false,
                   "One kept input: the twin holds rows of at most credit::regsDeepMaxN(kWideCtaThreads)\n"
                   "// elements in registers (credit::kTwinDataRegs per thread), float4.",
                   "credit::kRegsDeepElemsPerThread", true);
        dataKernel("staged_regs_deep_v1", "STAGED_REGS", 1, false, "Same, scalar accesses.",
                   "credit::kRegsDeepElemsPerThread", true);
      }
    }
  }
  if (wants(credit::Variant::Reread)) {
    dataKernel("reread_v4", "REREAD", 4, false,
               "One CTA per row (grid M, no cluster), every pass streams the row from HBM, float4.");
    dataKernel("reread_v1", "REREAD", 1, false, "Same, scalar accesses.");
  }
  if (wants(credit::Variant::Control)) {
    std::string nulls;
    for (size_t i = 0; i < inputs.size() + outputs.size(); ++i)
      nulls += "nullptr, ";
    for (StringRef proto : {"sync", "mbarrier"}) {
      os << "// Work-free control: the cluster kernel's grid, P, SMEM and barriers (" << proto
         << " protocol), no global memory work.\n";
      os << "extern \"C\" __global__ void __launch_bounds__(" << geo.threads << ", CREDIT_MIN_CTAS_PER_SM) " << ns
         << "_control_" << proto << "(long long M, int N, int P) {\n";
      os << "  " << ns << "::" << ns << "_body<1, " << ns << "::"
         << (proto == "sync" ? "CONTROL_SYNC" : "CONTROL_MBARRIER") << ", 0, " << ns << "::kThreads>(" << nulls
         << "M, N, P, 0);\n";
      os << "}\n";
    }
  }
  os << "\n";
}

//===----------------------------------------------------------------------===//
// Host launch API
//===----------------------------------------------------------------------===//

void KernelEmitter::emitHost() {
  const size_t numPtrs = inputs.size() + outputs.size();
  std::string ptrList, elemList, vecPtrList, vecElemList;
  int numVec = 0;
  for (auto &in : inputs) {
    ptrList += (ptrList.empty() ? "" : ", ") + in->name;
    elemList += (elemList.empty() ? "" : ", ") + std::string("4");
    if (!in->op.isScalar()) {
      vecPtrList += (vecPtrList.empty() ? "" : ", ") + in->name;
      vecElemList += (vecElemList.empty() ? "" : ", ") + std::string("4");
      ++numVec;
    }
  }
  for (const OutputInfo &o : outputs) {
    ptrList += (ptrList.empty() ? "" : ", ") + o.name;
    elemList += (elemList.empty() ? "" : ", ") + std::string(o.i8 ? "1" : "4");
    if (o.perElement) {
      vecPtrList += (vecPtrList.empty() ? "" : ", ") + o.name;
      vecElemList += (vecElemList.empty() ? "" : ", ") + std::string(o.i8 ? "1" : "4");
      ++numVec;
    }
  }

  os << "// ===== host launch API (not compiled by NVRTC) =====\n";
  os << "#if !defined(__CUDACC_RTC__)\n#include <cuda_runtime.h>\n";
  if (persistentForm())
    os << "#include <mutex>  // host::RowClaimLease\n";
  os << "\n";
  os << "namespace CREDIT_LOCAL " << ns << " {\nnamespace host {\n";
  os << R"cuda(// Queries the device, validates the launch with credit::validateLaunch
// (LaunchCheck.h) and launches. Returns 0, a credit::LaunchStatus (1..99; the
// kernel is NOT launched) or kStatusCudaErrorBase + cudaError_t.
// `geo`: the launched kernel's geometry (`geometry`, or `geometry_wide_cta` for
// the wide-CTA twins): its threads per CTA and its Eq. 3 bound. `persistent`:
// a grid of min(M, resident clusters) clusters instead of M (CLUSTER_PERSISTENT).
template <typename... Params, typename... Args>
inline int launch_impl(void (*kernel)(Params...), credit::WorkloadGeometry geo, bool clusterKernel, bool loadBalance,
                       bool persistent, int P, long long M, long long N, long long smemBytes, bool checkLegal,
                       credit::Protocol proto, const void* const* ptrs, const int* elemBytes, int numPtrs,
                       cudaStream_t stream, Args... args) {
  int dev = 0, optin = 0, sms = 0;
  cudaError_t err = cudaGetDevice(&dev);
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  if (err != cudaSuccess) return kStatusCudaErrorBase + static_cast<int>(err);

  // Eq. 3 bound (credit::maxLegalN) for this P under THIS device's opt-in
  // limit; 0 = not checked (REREAD retains nothing).
  const long long maxN = checkLegal ? credit::maxLegalN(geo, P < 1 ? 1 : P, proto, optin) : 0;
  credit::LaunchRequest req{ptrs, elemBytes, numPtrs, M, N, P, clusterKernel,
                            static_cast<size_t>(smemBytes < 0 ? 0 : smemBytes), maxN};
  // First every check that needs no kernel attribute (the cluster limit is not
  // known yet), so that the attribute calls below only see sane values.
  credit::DeviceLimits lim{optin, clusterKernel ? P : 1, sms};
  credit::LaunchStatus status = credit::validateLaunch(req, lim);
  if (status != credit::LaunchStatus::Ok) return static_cast<int>(status);

  err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(smemBytes));
  if (err != cudaSuccess) return kStatusCudaErrorBase + static_cast<int>(err);
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(static_cast<unsigned>(M * P), 1, 1);
  cfg.blockDim = dim3(static_cast<unsigned>(geo.threads), 1, 1);
  cfg.dynamicSmemBytes = static_cast<size_t>(smemBytes);
  cfg.stream = stream;
  cudaLaunchAttribute attr[2];
  if (clusterKernel) {
    if (P > 8 &&
        cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess)
      (void)cudaGetLastError();  // not allowed here: the query below then reports <= 8
    int maxCluster = 0;
    err = cudaOccupancyMaxPotentialClusterSize(&maxCluster, kernel, &cfg);  // ignores cluster dims
    if (err != cudaSuccess) return kStatusCudaErrorBase + static_cast<int>(err);
    lim.maxClusterSize = maxCluster;
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = static_cast<unsigned>(P);
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    if (loadBalance) {  // credit::clusterLoadBalancing (Layout.h): several CTAs of a cluster may share an SM
      attr[1].id = cudaLaunchAttributeClusterSchedulingPolicyPreference;
      attr[1].val.clusterSchedulingPolicyPreference = cudaClusterSchedulingPolicyLoadBalancing;
      cfg.numAttrs = 2;
    }
  }
  status = credit::validateLaunch(req, lim);
  if (status != credit::LaunchStatus::Ok) return static_cast<int>(status);
  if (persistent && clusterKernel) {  // the resident clusters only; each walks its rows
    int resident = 0;
    err = cudaOccupancyMaxActiveClusters(&resident, kernel, &cfg);
    if (err != cudaSuccess) return kStatusCudaErrorBase + static_cast<int>(err);
    if (resident < 1) return static_cast<int>(credit::LaunchStatus::ClusterTooLarge);
    cfg.gridDim = dim3(static_cast<unsigned>((M < resident ? M : resident) * P), 1, 1);
  }
  err = cudaLaunchKernelEx(&cfg, kernel, args...);
  return err == cudaSuccess ? kStatusOk : kStatusCudaErrorBase + static_cast<int>(err);
}

template <typename... Params, typename... Args>
inline int launch_geo(void (*kernel)(Params...), credit::WorkloadGeometry geo, bool clusterKernel, bool loadBalance, int P,
                      long long M, long long N, long long smemBytes, bool checkLegal, credit::Protocol proto,
                      const void* const* ptrs, const int* elemBytes, int numPtrs, cudaStream_t stream,
                      Args... args) {
  return launch_impl(kernel, geo, clusterKernel, loadBalance, false, P, M, N, smemBytes, checkLegal, proto, ptrs,
                     elemBytes, numPtrs, stream, args...);
}

template <typename... Params, typename... Args>
inline int launch(void (*kernel)(Params...), bool clusterKernel, bool loadBalance, int P, long long M, long long N,
                  long long smemBytes, bool checkLegal, credit::Protocol proto,
                  const void* const* ptrs, const int* elemBytes, int numPtrs, cudaStream_t stream,
                  Args... args) {
  return launch_geo(kernel, geometry, clusterKernel, loadBalance, P, M, N, smemBytes, checkLegal, proto, ptrs, elemBytes,
                    numPtrs, stream, args...);
}

// This device's SMEM per SM and per block (opt-in), for the wide-CTA and
// partial-retention rules; both 0 where there is neither form or the query
// fails (the full form then; the launch reports the error).
inline void device_smem(int& perSm, int& optin) {
  perSm = 0;
  optin = 0;
  if (kWideCtaThreads == 0 && !kHasPartialForm) return;
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&perSm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess) {
    (void)cudaGetLastError();
    perSm = 0;
    optin = 0;
  }
}

// Whether this device runs the partial-retention form instead of the full one
// of `smemBytes` (credit::usePartialRetention).
inline bool partial_retention(long long smemBytes, long long partialSmemBytes, int P) {
  if (!kHasPartialForm) return false;
  int perSm = 0, optin = 0;
  device_smem(perSm, optin);
  return credit::usePartialRetention(smemBytes, partialSmemBytes, P, kPartialDroppedReadLate, perSm, optin);
}

// Whether this device runs the wide-CTA twin for a kernel of `smemBytes`
// (credit::useWideCta).
inline bool wide_cta(long long smemBytes, long long wideSmemBytes) {
  int perSm = 0, optin = 0;
  device_smem(perSm, optin);
  return credit::useWideCta(kWideCtaThreads, smemBytes, wideSmemBytes, perSm, optin);
}

// The persistent form's ring at (N, P) on this device: no units where the
// launcher does not run it (credit::usePersistent; `whereFits`: wherever it can
// run, credit::persistentFits), else credit::persistentRing. Half slices only
// where every kept input is first read by the first pass (kKeptInputReadLate).
inline credit::PersistentRing persistent_ring(long long N, int P, bool whereFits) {
  int perSm = 0, optin = 0;
  device_smem(perSm, optin);
  constexpr bool halves = !kKeptInputReadLate;
  const bool run = whereFits ? credit::persistentFits(geometry_wide_cta, kThreads, N, P, optin, halves)
                             : credit::usePersistent(geometry_wide_cta, numHoistedInputs, kThreads, N, P, perSm, optin, halves);
  return run ? credit::persistentRing(geometry_wide_cta, N, P, optin, halves) : credit::PersistentRing{0, 1};
}

)cuda";
  if (persistentForm())
    os << R"cuda(// Row claims (Layout.h): row_claims_counter, handed to one persistent launch at a
// time per device. Each launch first waits, on its own stream, for the event recorded
// after the previous one, whatever that one's stream, so that no two launches run on the
// counter at once; each leaves it zero. No counter (the static rows) while the stream is
// being captured (a graph may be launched on any stream, any number of times at once),
// for more than INT_MAX rows, on a device past kRowClaimMaxDevices, or where a call fails.
constexpr int kRowClaimMaxDevices = 64;
class RowClaimLease {
 public:
  RowClaimLease(bool wanted, long long M, cudaStream_t stream) : stream_(stream) {
    if (!wanted || M > 0x7fffffffLL) return;
    int dev = 0;
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaStreamIsCapturing(stream, &capture) != cudaSuccess) {
      (void)cudaGetLastError();  // ours: the launch below reports what is wrong with the device or stream
      return;
    }
    if (dev < 0 || dev >= kRowClaimMaxDevices || capture != cudaStreamCaptureStatusNone) return;
    static std::mutex mutex;
    static cudaEvent_t last[kRowClaimMaxDevices] = {};
    lock_ = std::unique_lock<std::mutex>(mutex);
    if (last[dev] == nullptr && cudaEventCreateWithFlags(&last[dev], cudaEventDisableTiming) != cudaSuccess) {
      last[dev] = nullptr;
      (void)cudaGetLastError();
      lock_.unlock();
      return;
    }
    // The counter's address is looked up on every launch, not kept: after cudaDeviceReset the
    // module, and the variable with it, is loaded again, possibly elsewhere. The event is kept
    // whatever its wait returns: one made afresh would not order this launch after the last.
    void* counter = nullptr;
    if (cudaGetSymbolAddress(&counter, row_claims_counter) != cudaSuccess) {
      (void)cudaGetLastError();
      lock_.unlock();
      return;
    }
    if (cudaStreamWaitEvent(stream, last[dev], 0) != cudaSuccess) {
      (void)cudaGetLastError();
      lock_.unlock();
      return;
    }
    counter_ = static_cast<unsigned*>(counter);
    event_ = last[dev];
  }
  RowClaimLease(const RowClaimLease&) = delete;
  RowClaimLease& operator=(const RowClaimLease&) = delete;
  unsigned* counter() const { return counter_; }
  // After a launch with the counter: the next one waits for this one (here, if the
  // event cannot be recorded).
  void launched() {
    if (counter_ == nullptr) return;
    if (cudaEventRecord(event_, stream_) != cudaSuccess) {
      (void)cudaGetLastError();
      (void)cudaStreamSynchronize(stream_);
    }
  }

 private:
  cudaStream_t stream_;
  std::unique_lock<std::mutex> lock_;
  unsigned* counter_ = nullptr;
  cudaEvent_t event_ = nullptr;
};

// The persistent form: launch_impl with a grid of the resident clusters. With a row-claim
// counter (rowClaims, and the lease got one) the claims' kernel with the counter as its last
// argument, else the static rows' kernel (nullptr there).
template <typename... Params, typename... Args>
inline int launch_persistent(void (*staticKernel)(Params...), void (*claimsKernel)(Params...), bool rowClaims, int P,
                             long long M, long long N, long long smemBytes, credit::Protocol proto,
                             const void* const* ptrs, const int* elemBytes, int numPtrs, cudaStream_t stream,
                             Args... args) {
  RowClaimLease lease(rowClaims, M, stream);
  const int status = launch_impl(lease.counter() != nullptr ? claimsKernel : staticKernel, geometry_wide_cta, true,
                                 false, true, P, M, N, smemBytes, true, proto, ptrs, elemBytes, numPtrs, stream,
                                 args..., lease.counter());
  if (status == kStatusOk) lease.launched();
  return status;
}

)cuda";
  os << R"cuda(// C-string equality (no <cstring> needed).
inline bool same(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) ++a, ++b;
  return *a == *b;
}

}  // namespace host
}  // namespace )cuda" << ns << "\n\n";

  auto pre = [&](bool vecTest) {
    os << "  if (M == 0) return " << ns << "::kStatusOk;  // no rows: nothing to launch\n";
    os << "  const void* ptrs[" << std::max<size_t>(1, numPtrs) << "] = {"
       << (ptrList.empty() ? "nullptr" : ptrList) << "};\n";
    os << "  const int elemBytes[" << std::max<size_t>(1, numPtrs) << "] = {"
       << (elemList.empty() ? "4" : elemList) << "};\n";
    if (vecTest) {
      os << "  const void* vecPtrs[" << std::max(1, numVec) << "] = {"
         << (vecPtrList.empty() ? "nullptr" : vecPtrList) << "};\n";
      os << "  const int vecBytes[" << std::max(1, numVec) << "] = {"
         << (vecElemList.empty() ? "4" : vecElemList) << "};\n";
      os << "  const bool vec4 = credit::canUseVec4(vecPtrs, vecBytes, " << numVec << ", N);\n";
    }
  };
  std::string args = argNames();
  std::string castArgs = args + (args.empty() ? "" : ", ") + "M, static_cast<int>(N)";

  // host::cluster: the SMEM form (regsOk false: the launch API) or, where the
  // slice fits, the register form (the generic variant "cluster_regs"); the
  // SMEM form retains every kept input (partialOk false: the generic variant
  // "cluster_full") or, where that allows one CTA per SM, all but one.
  // host::staged: the register forms for short rows (regsOk true: the launch
  // API) or the SMEM form at every N (the generic variant "staged_smem").
  os << "namespace CREDIT_LOCAL " << ns << " {\nnamespace host {\n\n";
  // `auto kernel = ...`: the cluster kernel of one form ("" or "_regs") and CTA
  // size (suffix "" or "_cta<threads>") for the launch's protocol and vector
  // width, printed at `ind` with the second line's ':' under the '?'.
  auto clusterKernel = [&](const std::string &ind, StringRef form, StringRef suffix) {
    auto name = [&](StringRef proto, StringRef vec) {
      return (ns + "_cluster" + form + "_" + proto + "_" + vec + suffix).str();
    };
    os << ind << "auto kernel = protocol == 0 ? (vec4 ? " << name("sync", "v4") << " : " << name("sync", "v1")
       << ")\n"
       << std::string(ind.size() + 27, ' ') << ": (vec4 ? " << name("mbarrier", "v4") << " : "
       << name("mbarrier", "v1") << ");\n";
  };
  if (wants(credit::Variant::Cluster)) {
    os << "inline int cluster(" << hostParams()
       << "long long M, long long N, int P, int protocol, cudaStream_t stream, bool regsOk, bool partialOk,\n"
          "                   int persistentMode) {\n";
    os << "  if (protocol != 0 && protocol != 1) return kStatusBadProtocol;\n";
    pre(true);
    os << "  const credit::Protocol proto = protocol == 0 ? credit::Protocol::Sync : credit::Protocol::Mbarrier;\n";
    os << "  const int Pc = P < 1 ? 1 : P;  // for the SMEM formula only; validateLaunch rejects bad P\n";
    if (persistentForm()) {
      std::string t = formatv("_cta{0}", wideCtaThreads()).str();
      os << "  // The persistent form (mbarrier protocol, float4): the rows streamed through a ring of\n"
            "  // bulk copies, broadcast inputs only h reads loaded once per CTA (credit::usePersistent).\n";
      os << "  // persistentMode: 0 never, 1 where credit::usePersistent holds (the launch API), 2 wherever\n"
            "  // it can run (the generic variant \"cluster_persistent\"); both with rows claimed at run time\n"
            "  // where credit::useRowClaims holds (host::RowClaimLease). 3: as 2 with the static rows\n"
            "  // (\"cluster_persistent_static\").\n";
      os << "  if (persistentMode != 0 && protocol == 1 && vec4) {  // credit::persistentFits checks P >= 2 first\n";
      os << "    const credit::PersistentRing ring = persistent_ring(N, P, persistentMode >= 2);\n";
      os << "    if (ring.units > 0) {\n";
      os << "      const bool rowClaims = persistentMode != 3 && credit::useRowClaims(P);\n";
      os << "      auto kernel = ring.pieces == 2 ? " << ns << "_cluster_persistent_halves_v4" << t << " : " << ns
         << "_cluster_persistent_v4" << t << ";\n";
      os << "      auto claims_kernel = ring.pieces == 2 ? " << ns << "_cluster_persistent_halves_claims_v4" << t << " : "
         << ns << "_cluster_persistent_claims_v4" << t << ";\n";
      os << "      return launch_persistent(kernel, claims_kernel, rowClaims, P, M, N, smem_bytes_persistent(N, P, ring.units, ring.pieces), proto, ptrs, elemBytes, "
         << numPtrs << ", stream, " << castArgs << ", P, ring.units);\n";
      os << "    }\n";
      os << "  }\n";
    } else {
      os << "  (void)persistentMode;  // no persistent form: no kept input, or no 512-thread twin\n";
    }
    if (registerForms()) {
      os << "  if (regsOk && cluster_slice_fits_registers(N, Pc)) {  // the slice in registers, SMEM for the exchange only\n";
      clusterKernel("    ", "_regs", "");
      os << "    return launch(kernel, true, credit::clusterLoadBalancing(false), P, M, N, cluster_regs_smem_bytes(Pc, proto), false, proto, ptrs, elemBytes, "
         << numPtrs << ", stream, " << castArgs << ", P);\n";
      os << "  }\n";
    }
    if (partialDropped) {
      os << "  if (partialOk && partial_retention(smem_bytes(N, Pc, proto), smem_bytes_partial(N, Pc, proto), Pc)) {  // one CTA per SM: "
         << partialDropped->src << " from L2\n";
      clusterKernel("    ", "_partial", "");
      os << "    return launch(kernel, true, credit::clusterLoadBalancing(true), P, M, N, smem_bytes_partial(N, Pc, proto), true, proto, ptrs, elemBytes, "
         << numPtrs << ", stream, " << castArgs << ", P);\n";
      os << "  }\n";
    } else {
      os << "  (void)partialOk;  // no partial-retention form: fewer than two kept inputs\n";
    }
    if (wideCtaThreads() > 0) {
      std::string t = formatv("_cta{0}", wideCtaThreads()).str();
      os << "  if (wide_cta(smem_bytes(N, Pc, proto), smem_bytes_wide_cta(N, Pc, proto))) {  // one CTA per SM: twice the threads\n";
      clusterKernel("    ", "", t);
      os << "    return launch_geo(kernel, geometry_wide_cta, true, credit::clusterLoadBalancing(false), P, M, N, smem_bytes_wide_cta(N, Pc, proto), true, "
            "proto, ptrs, elemBytes, "
         << numPtrs << ", stream, " << castArgs << ", P);\n";
      os << "  }\n";
    }
    clusterKernel("  ", "", "");
    os << "  return launch(kernel, true, credit::clusterLoadBalancing(false), P, M, N, smem_bytes(N, Pc, proto), true, proto, ptrs, elemBytes, "
       << numPtrs << ", stream, " << castArgs << ", P);\n";
    os << "}\n\n";
    if (partialDropped) {
      // Legal exactly where the full form is (launch() checks Eq. 3 with
      // `geometry`): one bound for every form of "cluster".
      os << "// The partial-retention form at any shape the full form is legal at (the generic\n"
            "// variant \"cluster_partial\", for tests and benchmarks).\n";
      os << "inline int cluster_partial(" << hostParams()
         << "long long M, long long N, int P, int protocol, cudaStream_t stream) {\n";
      os << "  if (protocol != 0 && protocol != 1) return kStatusBadProtocol;\n";
      pre(true);
      os << "  const credit::Protocol proto = protocol == 0 ? credit::Protocol::Sync : credit::Protocol::Mbarrier;\n";
      os << "  const int Pc = P < 1 ? 1 : P;  // for the SMEM formula only; validateLaunch rejects bad P\n";
      clusterKernel("  ", "_partial", "");
      os << "  return launch(kernel, true, credit::clusterLoadBalancing(true), P, M, N, smem_bytes_partial(N, Pc, proto), true, proto, ptrs, elemBytes, "
         << numPtrs << ", stream, " << castArgs << ", P);\n";
      os << "}\n\n";
    }
  }
  if (wants(credit::Variant::Staged)) {
    os << "inline int staged(" << hostParams() << "long long M, long long N, cudaStream_t stream, bool regsOk) {\n";
    pre(true);
    // The form: credit::stagedForm (Layout.h), the rule T_B measurement uses too.
    // The device is asked for its SMEM sizes only where the row is not held in
    // registers (the wide-CTA rule needs them).
    os << "  credit::StagedForm form = credit::stagedForm(geometry, N, regsOk, 0, 0);\n";
    if (wideCtaThreads() > 0) {
      os << "  if (form == credit::StagedForm::Smem) {\n";
      os << "    int perSm = 0, optin = 0;\n";
      os << "    device_smem(perSm, optin);\n";
      os << "    form = credit::stagedForm(geometry, N, regsOk, perSm, optin);\n";
      os << "  }\n";
    }
    if (registerForms()) {
      os << "  if (form == credit::StagedForm::Registers) {  // short rows: the row in registers\n";
      os << "    auto kernel = vec4 ? " << ns << "_staged_regs_v4 : " << ns << "_staged_regs_v1;\n";
      os << "    return launch(kernel, false, false, 1, M, N, reread_smem_bytes(), false, credit::Protocol::Sync, ptrs, elemBytes, "
         << numPtrs << ", stream, " << castArgs << ");\n";
      os << "  }\n";
      os << "  if (form == credit::StagedForm::WideRegisters) {  // up to twice that: the wide form\n";
      os << "    auto kernel = vec4 ? " << ns << "_staged_regs_wide_v4 : " << ns << "_staged_regs_wide_v1;\n";
      os << "    return launch(kernel, false, false, 1, M, N, reread_smem_bytes(), false, credit::Protocol::Sync, ptrs, elemBytes, "
         << numPtrs << ", stream, " << castArgs << ");\n";
      os << "  }\n";
    }
    if (wideCtaThreads() > 0) {
      std::string t = formatv("_cta{0}", wideCtaThreads()).str();
      // The twin's register forms: the row in registers, SMEM for the scratch only.
      // `forms`: the StagedForm names that run this kernel.
      auto registerTwin = [&](llvm::ArrayRef<StringRef> forms, StringRef kernel, StringRef why) {
        os << "  if (";
        llvm::interleave(
            forms, os, [&](StringRef form) { os << "form == credit::StagedForm::" << form; }, " || ");
        os << ") {  // " << why << "\n";
        os << "    auto kernel = vec4 ? " << ns << "_" << kernel << "_v4" << t << " : " << ns << "_" << kernel << "_v1"
           << t << ";\n";
        os << "    return launch_geo(kernel, geometry_wide_cta, false, false, 1, M, N, credit::scratchBytes(geometry_wide_cta, 1, "
              "credit::Protocol::Sync), false, credit::Protocol::Sync, ptrs, elemBytes, "
           << numPtrs << ", stream, " << castArgs << ");\n";
        os << "  }\n";
      };
      if (credit::isLightRegisterRow(geo))
        registerTwin({"WideCtaRegisters", "LightWideCtaRegisters"}, "staged_regs_wide",
                     "twice the threads, the row in their registers: one CTA per SM, or two for a light row");
      else
        registerTwin({"WideCtaRegisters"}, "staged_regs_wide",
                     "one CTA per SM: twice the threads, the row in their registers");
      if (credit::hasDeepRegisterForm(geo))
        registerTwin({"WideCtaDeepRegisters"}, "staged_regs_deep", "the same, one kept input up to twice as long");
      os << "  if (form == credit::StagedForm::WideCtaSmem) {  // one CTA per SM: twice the threads\n";
      os << "    auto kernel = vec4 ? " << ns << "_staged_v4" << t << " : " << ns << "_staged_v1" << t << ";\n";
      os << "    return launch_geo(kernel, geometry_wide_cta, false, false, 1, M, N, smem_bytes_wide_cta(N, 1, "
            "credit::Protocol::Sync), true, credit::Protocol::Sync, ptrs, elemBytes, "
         << numPtrs << ", stream, " << castArgs << ");\n";
      os << "  }\n";
    }
    os << "  auto kernel = vec4 ? " << ns << "_staged_v4 : " << ns << "_staged_v1;\n";
    os << "  return launch(kernel, false, false, 1, M, N, smem_bytes(N, 1, credit::Protocol::Sync), true, "
          "credit::Protocol::Sync, ptrs, elemBytes, "
       << numPtrs << ", stream, " << castArgs << ");\n";
    os << "}\n\n";
  }
  os << "}  // namespace host\n}  // namespace " << ns << "\n\n";

  os << "extern \"C\" {\n\n";
  os << "// Launch API. Pointers are device pointers: inputs, then outputs, as in " << ns
     << "_body\n"
        "// (row inputs/outputs [M][N] row-major, broadcast [N], per-row [M]); outputs must not\n"
        "// alias inputs. VEC = 4 when every per-element pointer is 16-byte aligned (i8: 4-byte)\n"
        "// and N % 4 == 0, else VEC = 1. M == 0: nothing to do, returns 0 without launching.\n"
        "// Returns 0, a credit::LaunchStatus 1..99 (not launched), "
     << ns << "::kStatusBadProtocol, or\n// " << ns << "::kStatusCudaErrorBase + cudaError_t.\n\n";

  if (wants(credit::Variant::Cluster)) {
    os << "// Cluster kernel: grid M*P, cluster (P,1,1), P in {1,2,4,8,16}; protocol 0 = sync, 1 = mbarrier.\n"
          "// Each CTA retains its slice in SMEM (Eq. 3).\n";
    os << prototype(Api::Cluster) << " {\n";
    os << "  return " << ns << "::host::cluster(" << argNames() << (argNames().empty() ? "" : ", ")
       << "M, N, P, protocol, stream, false, true, 1);\n";
    os << "}\n\n";
  }
  if (wants(credit::Variant::Staged)) {
    os << "// Staged kernel: one CTA per row (grid M, no cluster), the row retained in SMEM -- in\n"
          "// registers for rows of at most credit::regsWideMaxN(kThreads) elements.\n";
    os << prototype(Api::Staged) << " {\n";
    os << "  return " << ns << "::host::staged(" << argNames() << (argNames().empty() ? "" : ", ")
       << "M, N, stream, true);\n";
    os << "}\n\n";
  }
  if (wants(credit::Variant::Reread)) {
    os << "// Reread kernel: one CTA per row (grid M, no cluster), every pass streams the row from HBM.\n";
    os << prototype(Api::Reread) << " {\n";
    pre(true);
    os << "  auto kernel = vec4 ? " << ns << "_reread_v4 : " << ns << "_reread_v1;\n";
    os << "  return " << ns << "::host::launch(kernel, false, false, 1, M, N, " << ns
       << "::reread_smem_bytes(), false, credit::Protocol::Sync, ptrs, elemBytes, " << numPtrs << ", stream, " << castArgs
       << ");\n";
    os << "}\n\n";
  }
  if (wants(credit::Variant::Control)) {
    os << "// Control kernel: the cluster kernel's grid, P, SMEM and barrier sequence, no global memory work.\n";
    os << prototype(Api::Control) << " {\n";
    os << "  if (protocol != 0 && protocol != 1) return " << ns << "::kStatusBadProtocol;\n";
    os << "  if (M == 0) return " << ns << "::kStatusOk;  // no rows: nothing to launch\n";
    os << "  const credit::Protocol proto = protocol == 0 ? credit::Protocol::Sync : credit::Protocol::Mbarrier;\n";
    os << "  auto kernel = protocol == 0 ? " << ns << "_control_sync : " << ns << "_control_mbarrier;\n";
    os << "  const int Pc = P < 1 ? 1 : P;\n";
    // The default cluster policy, not credit::clusterLoadBalancing: the device
    // profiles' T_ctrl (credit-calibrate) were measured with it.
    os << "  return " << ns << "::host::launch(kernel, true, false, P, M, N, " << ns
       << "::smem_bytes(N, Pc, proto), true, proto, nullptr, nullptr, 0, stream, M, static_cast<int>(N), P);\n";
    os << "}\n\n";
  }
  // Generic entry points (test harnesses, language bindings): the argument
  // list as text, the Eq. 3 bound per variant, one launcher for all variants.
  {
    os << "// The data arguments, in order: \"name:in|out:row|broadcast|scalar:f32|i8\", ';'-separated\n"
          "// (row: [M][N], broadcast: [N], scalar: one per row, [M]).\n";
    os << prototype(Api::Signature) << " { return \"" << signatureString() << "\"; }\n\n";
    os << "// Largest legal N (Eq. 3) of a variant for --arch's SMEM limit (" << target.smemOptinBytes
       << " B); reread: no bound\n// (credit::kMaxRowElems); 0 for an unknown variant or P < 1.\n";
    os << prototype(Api::MaxLegalN) << " {\n";
    os << "  const credit::Protocol proto = protocol == 1 ? credit::Protocol::Mbarrier : credit::Protocol::Sync;\n";
    os << "  if (variant == nullptr || P < 1) return 0;\n";
    os << "  if (" << ns << "::host::same(variant, \"cluster\") || " << ns
       << "::host::same(variant, \"cluster_regs\") || " << ns << "::host::same(variant, \"cluster_full\") || "
       << ns << "::host::same(variant, \"control\")) return " << ns << "::max_legal_n(P, proto);\n";
    if (partialDropped && wants(credit::Variant::Cluster))
      os << "  if (" << ns << "::host::same(variant, \"cluster_partial\")) return " << ns
         << "::max_legal_n(P, proto);\n";
    if (persistentForm() && wants(credit::Variant::Cluster))
      os << "  if (" << ns << "::host::same(variant, \"cluster_rowwise\") || " << ns
         << "::host::same(variant, \"cluster_persistent\") || " << ns
         << "::host::same(variant, \"cluster_persistent_static\")) return " << ns << "::max_legal_n(P, proto);\n";
    os << "  if (" << ns << "::host::same(variant, \"staged\") || " << ns
       << "::host::same(variant, \"staged_smem\")) return " << ns
       << "::max_legal_n(1, credit::Protocol::Sync);\n";
    os << "  if (" << ns << "::host::same(variant, \"reread\")) return credit::kMaxRowElems;\n";
    os << "  return 0;\n}\n\n";
    os << "// Any emitted variant by name (\"cluster\", \"staged\", \"reread\", \"control\"; and\n"
          "// \"cluster_regs\": the slice in registers where it fits (else as \"cluster\"); \"cluster_full\":\n"
          "// every kept input retained (the wide-CTA twin where \"cluster\" runs the partial-retention\n"
          "// form); \"cluster_partial\" (two or more kept inputs): the partial-retention form at every\n"
          "// legal shape; \"cluster_rowwise\" (files with the persistent form): one row per cluster,\n"
          "// never the persistent form; \"cluster_persistent\": the persistent form wherever it can run\n"
          "// (credit::persistentFits), also where the launcher prefers one row per cluster, else as\n"
          "// \"cluster\"; \"cluster_persistent_static\": the same with the static rows, none claimed at\n"
          "// run time; \"staged_smem\": the row in SMEM at every N); args[i]\n"
          "// is the i-th data argument of " << ns << "_signature(). staged/reread need P == 1.\n"
          "// Returns what the variant's launcher returns, or kStatusBadVariant.\n";
    os << prototype(Api::Generic) << " {\n";
    os << "  if (variant == nullptr) return " << ns << "::kStatusBadVariant;\n";
    std::string castList;
    size_t i = 0;
    for (auto &in : inputs)
      castList += formatv("static_cast<const float*>(args[{0}]), ", i++).str(), (void)in;
    for (const OutputInfo &o : outputs)
      castList += formatv("static_cast<{0}*>(args[{1}]), ", o.i8 ? "int8_t" : "float", i++).str();
    bool dataVariant = wants(credit::Variant::Cluster) || wants(credit::Variant::Staged) ||
                       wants(credit::Variant::Reread);
    if (dataVariant && numPtrs > 0)
      os << "  if (args == nullptr) return static_cast<int>(credit::LaunchStatus::NullPointer);\n";
    if (wants(credit::Variant::Cluster))
      os << "  if (" << ns << "::host::same(variant, \"cluster\"))\n    return " << ns
         << "_launch_cluster(" << castList << "M, N, P, protocol, stream);\n";
    for (auto [v, name] : {std::pair{credit::Variant::Staged, "staged"},
                           std::pair{credit::Variant::Reread, "reread"}})
      if (wants(v))
        os << "  if (" << ns << "::host::same(variant, \"" << name << "\")) {\n"
           << "    if (P != 1) return static_cast<int>(credit::LaunchStatus::BadClusterSize);\n"
           << "    return " << ns << "_launch_" << name << "(" << castList << "M, N, stream);\n  }\n";
    // The other form of the cluster and staged kernels (the launchers above
    // run the faster one measured on the H200): for tests and benchmarks.
    if (wants(credit::Variant::Cluster) && registerForms())
      os << "  if (" << ns << "::host::same(variant, \"cluster_regs\"))\n    return " << ns
         << "::host::cluster(" << castList << "M, N, P, protocol, stream, true, true, 1);\n";
    if (wants(credit::Variant::Cluster))
      os << "  if (" << ns << "::host::same(variant, \"cluster_full\"))\n    return " << ns
         << "::host::cluster(" << castList << "M, N, P, protocol, stream, false, false, 1);\n";
    if (wants(credit::Variant::Cluster) && persistentForm())
      os << "  if (" << ns << "::host::same(variant, \"cluster_rowwise\"))\n    return " << ns
         << "::host::cluster(" << castList << "M, N, P, protocol, stream, false, true, 0);\n";
    if (wants(credit::Variant::Cluster) && persistentForm()) {
      os << "  if (" << ns << "::host::same(variant, \"cluster_persistent\"))\n    return " << ns
         << "::host::cluster(" << castList << "M, N, P, protocol, stream, false, true, 2);\n";
      os << "  if (" << ns << "::host::same(variant, \"cluster_persistent_static\"))\n    return " << ns
         << "::host::cluster(" << castList << "M, N, P, protocol, stream, false, true, 3);\n";
    }
    if (wants(credit::Variant::Cluster) && partialDropped)
      os << "  if (" << ns << "::host::same(variant, \"cluster_partial\"))\n    return " << ns
         << "::host::cluster_partial(" << castList << "M, N, P, protocol, stream);\n";
    if (wants(credit::Variant::Staged))
      os << "  if (" << ns << "::host::same(variant, \"staged_smem\")) {\n"
         << "    if (P != 1) return static_cast<int>(credit::LaunchStatus::BadClusterSize);\n"
         << "    return " << ns << "::host::staged(" << castList << "M, N, stream, false);\n  }\n";
    if (wants(credit::Variant::Control))
      os << "  if (" << ns << "::host::same(variant, \"control\")) return " << ns
         << "_launch_control(M, N, P, protocol, stream);\n";
    os << "  (void)args;\n  (void)M;\n  (void)N;\n  (void)P;\n  (void)protocol;\n  (void)stream;\n";
    os << "  return " << ns << "::kStatusBadVariant;\n}\n\n";
  }
  os << "// Text for a status code of the launchers.\n";
  os << prototype(Api::StatusString) << " {\n";
  os << "  if (status == " << ns << "::kStatusOk) return \"ok\";\n";
  os << "  if (status > 0 && status < " << ns
     << "::kStatusBadProtocol) return credit::launchStatusString(static_cast<credit::LaunchStatus>(status));\n";
  os << "  if (status == " << ns
     << "::kStatusBadProtocol) return \"bad protocol (0: sync, 1: mbarrier)\";\n";
  os << "  if (status == " << ns
     << "::kStatusBadVariant) return \"unknown or not generated variant\";\n";
  os << "  if (status == " << ns
     << "::kStatusNoPlan) return \"no dispatch decision for this shape yet\";\n";
  os << "  if (status == " << ns
     << "::kStatusBadTiming) return \"T_B must be a positive, finite time in ms\";\n";
  os << "  if (status >= " << ns << "::kStatusCudaErrorBase) return cudaGetErrorString(static_cast<cudaError_t>(status - "
     << ns << "::kStatusCudaErrorBase));\n";
  os << "  return \"unknown status\";\n";
  os << "}\n\n";
  os << "}  // extern \"C\"\n";
  os << "#endif  // !defined(__CUDACC_RTC__)\n";
}

std::string KernelEmitter::prototype(Api fn) const {
  switch (fn) {
  case Api::Cluster:
    return "int " + ns + "_launch_cluster(" + hostParams() +
           "long long M, long long N, int P, int protocol, cudaStream_t stream)";
  case Api::Staged:
    return "int " + ns + "_launch_staged(" + hostParams() + "long long M, long long N, cudaStream_t stream)";
  case Api::Reread:
    return "int " + ns + "_launch_reread(" + hostParams() + "long long M, long long N, cudaStream_t stream)";
  case Api::Control:
    return "int " + ns + "_launch_control(long long M, long long N, int P, int protocol, cudaStream_t stream)";
  case Api::Signature:
    return "const char* " + ns + "_signature()";
  case Api::MaxLegalN:
    return "long long " + ns + "_max_legal_n(const char* variant, int P, int protocol)";
  case Api::Generic:
    return "int " + ns +
           "_launch_generic(const char* variant, void* const* args, long long M, long long N, int P,\n"
           "    int protocol, cudaStream_t stream)";
  case Api::StatusString:
    return "const char* " + ns + "_status_string(int status)";
  }
  return "";
}

std::string KernelEmitter::signatureString() const {
  std::string sig;
  for (auto &in : inputs)
    sig += formatv("{0}:in:{1}:f32;", in->src,
                   in->op.isRow() ? "row" : in->op.isBroadcast() ? "broadcast" : "scalar")
               .str();
  for (const OutputInfo &o : outputs)
    sig += formatv("{0}:out:{1}:{2};", o.src, o.perElement ? "row" : "scalar", o.i8 ? "i8" : "f32")
               .str();
  if (!sig.empty())
    sig.pop_back();
  return sig;
}

// The header a C or C++ program includes to call the launchers of the .cu
// file (compiled separately, e.g. by credit_add_kernel): the extern "C"
// prototypes of emitHost, the status codes as macros, nothing else.
void KernelEmitter::emitApiHeader() {
  std::string guard = llvm::StringRef(ns).upper() + "_API_H";
  std::string up = llvm::StringRef(ns).upper();
  std::string variantList;
  for (auto v : {credit::Variant::Cluster, credit::Variant::Staged, credit::Variant::Reread,
                 credit::Variant::Control})
    if (wants(v))
      variantList += (variantList.empty() ? "" : ", ") + credit::variantName(v).str();
  os << "// Generated by creditc " << CREDIT_VERSION << " from "
     << llvm::sys::path::filename(options.sourceName) << " (kernel " << K << ", --arch=" << target.arch
     << ", --cta-threads=" << geo.threads << ", variants: " << variantList << "). Do not edit.\n";
  os << "// The extern \"C\" launch API defined by the CUDA file creditc writes with -o for the\n"
        "// same source and options (docs/codegen.md, \"Launch API\"). Pointers are device\n"
        "// pointers; the launchers validate the launch and return a status (0 = launched).\n";
  os << "#ifndef " << guard << "\n#define " << guard << "\n\n";
  os << "#include <stdint.h>            /* int8_t */\n"
        "#include <cuda_runtime_api.h>  /* cudaStream_t */\n\n";
  os << "/* Status codes: 0 ok; 1..99 credit::LaunchStatus (1 NullPointer, 2 Misaligned, 3 BadShape,\n"
        "   4 BadClusterSize, 5 ClusterTooLarge, 6 SmemTooLarge, 7 NotLegal): not launched;\n"
        "   " << up << "_STATUS_CUDA_ERROR_BASE + cudaError_t: a CUDA call failed. */\n";
  os << "#define " << up << "_STATUS_OK 0\n";
  os << "#define " << up << "_STATUS_BAD_PROTOCOL 100\n";
  os << "#define " << up << "_STATUS_BAD_VARIANT 101\n";
  os << "#define " << up << "_STATUS_NO_PLAN 102\n";
  os << "#define " << up << "_STATUS_BAD_TIMING 103\n";
  os << "#define " << up << "_STATUS_CUDA_ERROR_BASE 1000\n";
  os << "#define " << up << "_CTA_THREADS " << geo.threads << "\n\n";
  os << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  os << "/* Data arguments, in order (inputs, then outputs): " << signatureString() << "\n"
        "   row: [M][N] row-major, broadcast: [N], scalar: one per row [M]. protocol: 0 sync, 1 mbarrier. */\n";
  if (wants(credit::Variant::Cluster))
    os << prototype(Api::Cluster) << ";\n";
  if (wants(credit::Variant::Staged))
    os << prototype(Api::Staged) << ";\n";
  if (wants(credit::Variant::Reread))
    os << prototype(Api::Reread) << ";\n";
  if (wants(credit::Variant::Control))
    os << prototype(Api::Control) << ";\n";
  std::string sigProto = prototype(Api::Signature);  // "()": no prototype in C
  os << sigProto.substr(0, sigProto.size() - 2) << "(void);\n";
  os << prototype(Api::MaxLegalN) << ";\n";
  os << prototype(Api::Generic) << ";\n";
  os << prototype(Api::StatusString) << ";\n\n";
  if (options.dispatch)
    os << dispatchPrototypes();
  os << "#ifdef __cplusplus\n}  /* extern \"C\" */\n#endif\n\n#endif  /* " << guard << " */\n";
}

//===----------------------------------------------------------------------===//
// Model-driven dispatch (--profile)
//===----------------------------------------------------------------------===//

namespace {
/// `credit_plan`: the dispatch decision of one shape, a plain C struct shared
/// by every generated file (hence the guard) and its API header.
const char *const kPlanStruct = R"cuda(#ifndef CREDIT_PLAN_DEFINED
#define CREDIT_PLAN_DEFINED
/* A dispatch decision for one shape (M, N) (docs/cost-model.md, "Dispatch"). */
typedef struct credit_plan {
  int variant;        /* what runs: 0 reread, 1 staged, 2 cluster */
  int P;              /* cluster size (1 for reread and staged) */
  int protocol;       /* 0 sync, 1 mbarrier (cluster only) */
  int baseline;       /* the kernel T_B timed: 0 reread, 1 staged */
  int source;         /* 0 the model, 1 autotune (measured), 2 fallback (see credit_..._launch_auto) */
  int evaluated;      /* the model evaluated at least one cluster size */
  double tB_ms;       /* T_B, the baseline's time at (M, N) */
  double deltaT_ms;   /* model: Eq. 9 of the best cluster size (> 0: profitable); autotune: T_B - best */
  double measured_ms; /* autotune: the chosen kernel's median time; otherwise 0 */
} credit_plan;
#endif
)cuda";

/// A C++ double literal that reads back as exactly `d` (%.17g).
std::string cudaDouble(double d) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", d);
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos)
    s += ".0";
  return s;
}
} // namespace

std::string KernelEmitter::dispatchPrototypes() const {
  std::string s = kPlanStruct;
  s += "\n/* Model-driven dispatch (creditc --profile): plan from a T_B; launch with the model's (or the\n"
       "   autotuned) choice, timing T_B once per shape; time every legal variant and keep the fastest;\n"
       "   the decision recorded for a shape. */\n";
  s += "int " + ns + "_plan(long long M, long long N, double tB_ms, credit_plan* out);\n";
  s += "int " + ns + "_launch_auto(" + hostParams() + "long long M, long long N, cudaStream_t stream);\n";
  s += "int " + ns + "_autotune(" + hostParams() +
       "long long M, long long N, cudaStream_t stream,\n    credit_plan* model, credit_plan* tuned);\n";
  s += "int " + ns + "_last_plan(long long M, long long N, credit_plan* out);\n";
  s += "/* The same with the data arguments as an array, in " + ns + "_signature() order. */\n";
  s += "int " + ns +
       "_launch_auto_generic(void* const* args, long long M, long long N, cudaStream_t stream);\n";
  s += "int " + ns +
       "_autotune_generic(void* const* args, long long M, long long N, cudaStream_t stream,\n"
       "    credit_plan* model, credit_plan* tuned);\n\n";
  return s;
}

void KernelEmitter::emitDispatch() {
  const credit::DispatchProfile &prof = *options.dispatch;
  std::string args;   // void* args[] initialiser
  for (auto &in : inputs)
    args += (args.empty() ? "" : ", ") +
            formatv("const_cast<void*>(static_cast<const void*>({0}))", in->name).str();
  for (const OutputInfo &o : outputs)
    args += (args.empty() ? "" : ", ") + formatv("static_cast<void*>({0})", o.name).str();
  const bool hasCluster = wants(credit::Variant::Cluster), hasStaged = wants(credit::Variant::Staged),
             hasReread = wants(credit::Variant::Reread);

  os << "\n// ===== model-driven dispatch (creditc --profile; docs/cost-model.md, \"Dispatch\") =====\n";
  os << "#if !defined(__CUDACC_RTC__)\n";
  os << "// ===== begin embedded credit/runtime/Model.h (verbatim) =====\n" << ::credit::embedded::kModelH;
  if (!StringRef(::credit::embedded::kModelH).ends_with("\n"))
    os << "\n";
  os << "// ===== end embedded credit/runtime/Model.h =====\n\n";
  os << "#include <mutex>\n\n" << kPlanStruct << "\n";
  os << "namespace CREDIT_LOCAL " << ns << " {\nnamespace dispatch {\n\n";
  os << "// The device profile " << llvm::sys::path::filename(prof.path) << " (" << prof.deviceName
     << "): S, f (MHz), B_SMEM^r, B_SMEM^w (B/clk/SM).\n";
  os << formatv("inline constexpr credit::model::Rates kRates = {{{0}, {1}, {2}, {3}};\n", prof.sms,
                cudaDouble(prof.smClockMHz), cudaDouble(prof.smemReadBpc),
                cudaDouble(prof.smemWriteBpc));
  os << "// B_DSM^w(P), B/clk per CTA: [protocol][log2 P] (P = 1 unused; 0.0: not in the profile).\n";
  os << "inline constexpr double kDsmStore[2][5] = {";
  for (int proto = 0; proto < 2; ++proto) {
    const std::map<int, double> &m = proto ? prof.dsmemStoreAsyncBpc : prof.dsmemStoreBpc;
    os << (proto ? ", {" : "{");
    for (int i = 0; i < 5; ++i) {
      auto it = m.find(1 << i);
      os << (i ? ", " : "") << (i > 0 && it != m.end() ? cudaDouble(it->second) : "0.0");
    }
    os << "}";
  }
  os << "};\n";
  os << "// T_ctrl points of kernel '" << K << "': {protocol, P, M, N, ms}.\n";
  os << "inline constexpr credit::model::CtrlPoint kCtrl[] = {\n";
  if (prof.ctrl.empty())
    os << "    {0, 0, 0, 0, 0.0},  // none: no cluster size can be evaluated\n";
  for (const auto &c : prof.ctrl)
    os << formatv("    {{{0}, {1}, {2}, {3}, {4}},\n", c.protocol, c.P, c.M, c.N, cudaDouble(c.ms));
  os << "};\n";
  os << "inline constexpr int kNumCtrl = " << (prof.ctrl.empty() ? 0 : prof.ctrl.size()) << ";\n";
  os << formatv("inline constexpr credit::model::Traffic kTraffic = {{{0}, {1}, {2}, {3}, {4}, {5}};  "
                "// b_B, b_reread, b_keep, D_fixed/element, D_fixed/row, sum q\n",
                traffic.baseline, traffic.reread, traffic.keep, traffic.fixedBroadcastPerElement,
                traffic.fixedPerRow, geo.qSum);
  {
    std::string kinds, bytes;
    for (auto &in : inputs) {
      kinds += (kinds.empty() ? "" : ", ") + std::string(in->op.isRow() ? "0" : in->op.isBroadcast() ? "1" : "2");
      bytes += (bytes.empty() ? "" : ", ") + std::string("4");
    }
    for (const OutputInfo &o : outputs) {
      kinds += (kinds.empty() ? "" : ", ") + std::string(o.perElement ? "0" : "2");
      bytes += (bytes.empty() ? "" : ", ") + std::string(o.i8 ? "1" : "4");
    }
    const size_t numArgs = inputs.size() + outputs.size();
    os << "// The data arguments (" << ns << "_signature() order): 0 row [M][N], 1 broadcast [N], 2 per-row [M];\n"
          "// bytes per element.\n";
    os << "inline constexpr int kNumDataArgs = " << numArgs << ";\n";
    os << "inline constexpr int kArgKind[] = {" << (numArgs ? kinds : "0") << "};\n";
    os << "inline constexpr int kArgBytes[] = {" << (numArgs ? bytes : "0") << "};\n";
  }
  os << formatv("inline constexpr bool kHasCluster = {0}, kHasStaged = {1}, kHasReread = {2};  // generated variants\n",
                hasCluster ? "true" : "false", hasStaged ? "true" : "false",
                hasReread ? "true" : "false");
  std::string body = R"cuda(
inline const char* variantName(int v) {
  return v == 3 ? "staged_smem" : v == 2 ? "cluster" : v == 1 ? "staged" : "reread";
}

// The kernel T_B times: staged where generated and Eq. 3 allows P = 1 on this
// device, else reread (the paper's "selected non-DSMEM path"); -1: neither.
inline int baselineFor(long long N, long long optin) {
  if (kHasStaged && credit::isLegal(geometry, N, 1, credit::Protocol::Sync, optin)) return 1;
  return kHasReread ? 0 : -1;
}

// Eqs. 3 and 5-9 for every generated, legal (protocol, P) with its profile
// figures, in creditc predict's order (sync, then mbarrier; P ascending); the
// largest dT wins, and the cluster kernel runs only if dT > 0.
// `tSlice` (optional, [log2 P], 0: not measured): T_slice(P), which prices
// T_occ against a staged T_B (credit/runtime/Model.h, occupancySaving).
inline credit_plan plan(long long M, long long N, double tB, long long optin, const double* tSlice = nullptr) {
  credit_plan p = {};
  p.baseline = baselineFor(N, optin);
  p.variant = p.baseline;
  p.P = 1;
  p.tB_ms = tB;
  if (!kHasCluster || p.baseline < 0) return p;
  const credit::model::BaselineTerms base =
      credit::model::baselineTerms(kTraffic, M, N, tB, p.baseline == 1);
  double best = 0.0;
  int bestP = 0, bestProtocol = 0;
  for (int protocol = 0; protocol < 2; ++protocol) {
    const credit::Protocol proto = protocol ? credit::Protocol::Mbarrier : credit::Protocol::Sync;
    for (int P = 2, l = 1; P <= target.maxNonPortableCluster && l < 5; P *= 2, ++l) {
      if (!credit::isLegal(geometry, N, P, proto, optin) || kRates.sms / P < 1) continue;
      const double rate = kDsmStore[protocol][l];
      if (!(rate > 0.0)) continue;
      const credit::model::CtrlValue ctrl = credit::model::lookupCtrl(kCtrl, kNumCtrl, protocol, P, M, N);
      if (!ctrl.found) continue;
      const credit::model::CandidateTerms t = credit::model::candidateTerms(
          kRates, kTraffic, base, P, M, credit::sliceElems(N, P), rate, ctrl.ms,
          credit::model::occupancySaving(p.baseline == 1, tB, tSlice != nullptr ? tSlice[l] : 0.0));
      if (!p.evaluated || t.deltaT > best) {
        p.evaluated = 1;
        best = t.deltaT;
        bestP = P;
        bestProtocol = protocol;
      }
    }
  }
  if (p.evaluated) {
    p.deltaT_ms = best;
    if (best > 0.0) {
      p.variant = 2;
      p.P = bestP;
      p.protocol = bestProtocol;
    }
  }
  return p;
}

// Decisions per (device, M, N): a small table, replaced round-robin.
struct Entry {
  int used, device;
  long long M, N;
  credit_plan plan;
};
inline std::mutex& cacheMutex() {
  static std::mutex m;
  return m;
}
constexpr int kCacheSize = 64;
inline Entry* cacheTable() {
  static Entry table[kCacheSize] = {};
  return table;
}
inline bool lookup(int device, long long M, long long N, credit_plan* out) {
  std::lock_guard<std::mutex> lock(cacheMutex());
  for (int i = 0; i < kCacheSize; ++i) {
    const Entry& e = cacheTable()[i];
    if (e.used && e.device == device && e.M == M && e.N == N) {
      *out = e.plan;
      return true;
    }
  }
  return false;
}
inline void store(int device, long long M, long long N, const credit_plan& plan) {
  std::lock_guard<std::mutex> lock(cacheMutex());
  static int next = 0;
  Entry* table = cacheTable();
  int slot = -1;
  for (int i = 0; i < kCacheSize && slot < 0; ++i)
    if (table[i].used && table[i].device == device && table[i].M == M && table[i].N == N) slot = i;
  if (slot < 0) {
    slot = next;
    next = (next + 1) % kCacheSize;
  }
  table[slot] = Entry{1, device, M, N, plan};
}

inline int cudaStatus(cudaError_t err) {
  return err == cudaSuccess ? kStatusOk : kStatusCudaErrorBase + static_cast<int>(err);
}

// Median time (ms) of `reps` launches of one variant on `stream` (CUDA events),
// after one untimed launch (module load, first-touch); the launches write the
// caller's outputs, which the real launch then overwrites.
inline int timeVariant(int variant, void* const* args, long long M, long long N, int P, int protocol,
                       cudaStream_t stream, double* medianMs) {
  constexpr int reps = 5;
  int status = @NS@_launch_generic(variantName(variant), args, M, N, P, protocol, stream);
  if (status != kStatusOk) return status;
  cudaEvent_t start = nullptr, stop = nullptr;
  cudaError_t err = cudaEventCreate(&start);
  if (err == cudaSuccess) err = cudaEventCreate(&stop);
  double times[reps];
  for (int i = 0; i < reps && err == cudaSuccess && status == kStatusOk; ++i) {
    err = cudaEventRecord(start, stream);
    if (err != cudaSuccess) break;
    status = @NS@_launch_generic(variantName(variant), args, M, N, P, protocol, stream);
    if (status != kStatusOk) break;
    err = cudaEventRecord(stop, stream);
    if (err == cudaSuccess) err = cudaEventSynchronize(stop);
    float ms = 0.0f;
    if (err == cudaSuccess) err = cudaEventElapsedTime(&ms, start, stop);
    times[i] = ms;
  }
  if (start != nullptr) (void)cudaEventDestroy(start);
  if (stop != nullptr) (void)cudaEventDestroy(stop);
  if (status != kStatusOk) return status;
  if (err != cudaSuccess) return cudaStatus(err);
  for (int i = 1; i < reps; ++i)  // insertion sort, then the median
    for (int j = i; j > 0 && times[j] < times[j - 1]; --j) {
      const double t = times[j];
      times[j] = times[j - 1];
      times[j - 1] = t;
    }
  *medianMs = times[reps / 2];
  return kStatusOk;
}

inline int deviceAndOptin(int* device, int* optin) {
  cudaError_t err = cudaGetDevice(device);
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute(optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, *device);
  return cudaStatus(err);
}

// T_slice(P) for plan(), where it can change the decision: the baseline is the
// staged kernel and its row fills an SM (one CTA per SM). The staged kernel's
// SMEM form is timed at M*P rows of slice(N, P) for every legal P, on scratch
// buffers of that shape (zeroed, freed again; the caller's are too small for
// M*P rows). A P whose buffers cannot be allocated is left unmeasured (0).
inline int timeSlices(int baseline, long long M, long long N, int device, long long optin, cudaStream_t stream,
                      double* tSlice) {
  for (int l = 0; l < 5; ++l) tSlice[l] = 0.0;
  if (baseline != 1 || !kHasCluster) return kStatusOk;
  int perSm = 0;
  cudaError_t err = cudaDeviceGetAttribute(&perSm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
  if (err != cudaSuccess) return cudaStatus(err);
  for (int P = 2, l = 1; P <= target.maxNonPortableCluster && l < 5; P *= 2, ++l) {
    if (!credit::measuresSlice(geometry, N, P, perSm, optin)) continue;
    const long long rows = credit::model::sliceRows(M, P), width = credit::sliceElems(N, P);
    void* bufs[kNumDataArgs > 0 ? kNumDataArgs : 1] = {};
    for (int i = 0; i < kNumDataArgs && err == cudaSuccess; ++i) {
      const long long count = kArgKind[i] == 0 ? rows * width : kArgKind[i] == 1 ? width : rows;
      const size_t bytes = static_cast<size_t>(count) * static_cast<size_t>(kArgBytes[i]);
      err = cudaMallocAsync(&bufs[i], bytes, stream);
      if (err == cudaSuccess) err = cudaMemsetAsync(bufs[i], 0, bytes, stream);
    }
    double ms = 0.0;
    int status = cudaStatus(err);
    if (status == kStatusOk) status = timeVariant(3, bufs, rows, width, 1, 0, stream, &ms);
    for (int i = 0; i < kNumDataArgs; ++i)
      if (bufs[i] != nullptr) (void)cudaFreeAsync(bufs[i], stream);
    if (err == cudaErrorMemoryAllocation) {  // not measured; the error is not sticky
      (void)cudaGetLastError();
      err = cudaSuccess;
      continue;
    }
    if (status != kStatusOk) return status;
    tSlice[l] = ms > 0.0 ? ms : 1e-6;  // below the event resolution
  }
  return kStatusOk;
}

inline int checkShape(long long M, long long N) {
  if (M < 1 || N < 1 || N > credit::kMaxRowElems) return static_cast<int>(credit::LaunchStatus::BadShape);
  return kStatusOk;
}

}  // namespace dispatch
}  // namespace @NS@

extern "C" {

// The model's decision for (M, N) given a measured T_B (ms) of the baseline
// kernel (out->baseline says which), under this device's SMEM limit. Times
// nothing, launches nothing.
int @NS@_plan(long long M, long long N, double tB_ms, credit_plan* out) {
  if (out == nullptr) return static_cast<int>(credit::LaunchStatus::NullPointer);
  if (int status = @NS@::dispatch::checkShape(M, N)) return status;
  if (!(tB_ms > 0.0) || tB_ms > 1e300) return @NS@::kStatusBadTiming;
  int device = 0, optin = 0;
  if (int status = @NS@::dispatch::deviceAndOptin(&device, &optin)) return status;
  if (@NS@::dispatch::baselineFor(N, optin) < 0) return @NS@::kStatusBadVariant;
  *out = @NS@::dispatch::plan(M, N, tB_ms, optin);
  return @NS@::kStatusOk;
}

// Launches what the dispatch chose for (M, N): the autotuned choice if
// @NS@_autotune ran for this shape on this device, else the model's, made on
// the first call for the shape by timing the baseline kernel on these buffers
// (T_B: median of 5 launches after one warm-up; synchronizes the stream once).
// While `stream` is being captured into a graph nothing can be timed: without
// a decision it launches the baseline (source 2, not recorded). A cluster
// launch the device refuses (cluster too large) falls back to the baseline
// (source 2, recorded).
int @NS@_launch_auto_generic(void* const* args, long long M, long long N, cudaStream_t stream) {
  if (args == nullptr) return static_cast<int>(credit::LaunchStatus::NullPointer);
  if (M == 0) return @NS@::kStatusOk;  // no rows: nothing to launch
  if (int status = @NS@::dispatch::checkShape(M, N)) return status;
  int device = 0, optin = 0;
  if (int status = @NS@::dispatch::deviceAndOptin(&device, &optin)) return status;
  const int baseline = @NS@::dispatch::baselineFor(N, optin);
  if (baseline < 0) return @NS@::kStatusBadVariant;
  credit_plan p;
  if (!@NS@::dispatch::lookup(device, M, N, &p)) {
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    cudaError_t err = cudaStreamIsCapturing(stream, &capture);
    if (err != cudaSuccess) return @NS@::dispatch::cudaStatus(err);
    if (capture != cudaStreamCaptureStatusNone)
      return @NS@_launch_generic(@NS@::dispatch::variantName(baseline), args, M, N, 1, 0, stream);
    double tB = 0.0, tSlice[5];
    if (int status = @NS@::dispatch::timeVariant(baseline, args, M, N, 1, 0, stream, &tB)) return status;
    if (!(tB > 0.0)) tB = 1e-6;  // below the event resolution
    if (int status = @NS@::dispatch::timeSlices(baseline, M, N, device, optin, stream, tSlice)) return status;
    p = @NS@::dispatch::plan(M, N, tB, optin, tSlice);
    @NS@::dispatch::store(device, M, N, p);
  }
  int status = @NS@_launch_generic(@NS@::dispatch::variantName(p.variant), args, M, N, p.P, p.protocol, stream);
  if (p.variant == 2 && status == static_cast<int>(credit::LaunchStatus::ClusterTooLarge)) {
    p.variant = p.baseline;
    p.P = 1;
    p.protocol = 0;
    p.source = 2;
    @NS@::dispatch::store(device, M, N, p);
    status = @NS@_launch_generic(@NS@::dispatch::variantName(p.variant), args, M, N, 1, 0, stream);
  }
  return status;
}

// The autotune mode: times every generated variant the device accepts at
// (M, N) -- reread, staged, cluster x protocol x P -- on these buffers (median
// of 5 after a warm-up each), records the fastest for @NS@_launch_auto, and
// returns both decisions: *model (the model's, from the measured T_B) and
// *tuned (the measured best; deltaT_ms = T_B - its time). Either may be null.
int @NS@_autotune_generic(void* const* args, long long M, long long N, cudaStream_t stream,
    credit_plan* model, credit_plan* tuned) {
  if (args == nullptr) return static_cast<int>(credit::LaunchStatus::NullPointer);
  if (int status = @NS@::dispatch::checkShape(M, N)) return status;
  int device = 0, optin = 0;
  if (int status = @NS@::dispatch::deviceAndOptin(&device, &optin)) return status;
  const int baseline = @NS@::dispatch::baselineFor(N, optin);
  if (baseline < 0) return @NS@::kStatusBadVariant;
  double tB = 0.0, tSlice[5];
  if (int status = @NS@::dispatch::timeVariant(baseline, args, M, N, 1, 0, stream, &tB)) return status;
  if (!(tB > 0.0)) tB = 1e-6;
  if (int status = @NS@::dispatch::timeSlices(baseline, M, N, device, optin, stream, tSlice)) return status;
  const credit_plan m = @NS@::dispatch::plan(M, N, tB, optin, tSlice);
  credit_plan best = m;
  best.variant = baseline;
  best.P = 1;
  best.protocol = 0;
  best.source = 1;
  best.measured_ms = tB;
  auto consider = [&](int variant, int P, int protocol) -> int {
    double t = 0.0;
    const int status = @NS@::dispatch::timeVariant(variant, args, M, N, P, protocol, stream, &t);
    if (status >= @NS@::kStatusCudaErrorBase) return status;  // a CUDA failure: stop
    if (status == @NS@::kStatusOk && t < best.measured_ms) {
      best.variant = variant;
      best.P = P;
      best.protocol = protocol;
      best.measured_ms = t;
    }
    return @NS@::kStatusOk;  // refused (not legal here, cluster too large): not a candidate
  };
  if (baseline == 1 && @NS@::dispatch::kHasReread)
    if (int status = consider(0, 1, 0)) return status;
  if (@NS@::dispatch::kHasCluster)
    for (int protocol = 0; protocol < 2; ++protocol)
      for (int P = 2; P <= @NS@::target.maxNonPortableCluster; P *= 2)
        if (credit::isLegal(@NS@::geometry, N, P, protocol ? credit::Protocol::Mbarrier : credit::Protocol::Sync, optin))
          if (int status = consider(2, P, protocol)) return status;
  best.deltaT_ms = tB - best.measured_ms;
  @NS@::dispatch::store(device, M, N, best);
  if (model != nullptr) *model = m;
  if (tuned != nullptr) *tuned = best;
  return @NS@::kStatusOk;
}

// The same with the data arguments as in @NS@_signature() (typed).
int @NS@_launch_auto(@PARAMS@long long M, long long N, cudaStream_t stream) {
  void* args[] = {@ARGS@};
  return @NS@_launch_auto_generic(args, M, N, stream);
}
int @NS@_autotune(@PARAMS@long long M, long long N, cudaStream_t stream,
    credit_plan* model, credit_plan* tuned) {
  void* args[] = {@ARGS@};
  return @NS@_autotune_generic(args, M, N, stream, model, tuned);
}

// The decision @NS@_launch_auto uses for (M, N) on the current device, if made.
int @NS@_last_plan(long long M, long long N, credit_plan* out) {
  if (out == nullptr) return static_cast<int>(credit::LaunchStatus::NullPointer);
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return @NS@::dispatch::cudaStatus(err);
  return @NS@::dispatch::lookup(device, M, N, out) ? @NS@::kStatusOk : @NS@::kStatusNoPlan;
}

}  // extern "C"
#endif  // !defined(__CUDACC_RTC__)
)cuda";
  auto replaceAll = [](std::string &text, StringRef from, StringRef to) {
    size_t pos = 0;
    while ((pos = text.find(from.str(), pos)) != std::string::npos) {
      text.replace(pos, from.size(), to.str());
      pos += to.size();
    }
  };
  replaceAll(body, "@NS@", ns);
  replaceAll(body, "@PARAMS@", hostParams());
  replaceAll(body, "@ARGS@", args);
  os << body;
}

mlir::LogicalResult KernelEmitter::runHeader() {
  if (failed(analyze()))
    return mlir::failure();
  emitApiHeader();
  return genFailed ? mlir::failure() : mlir::success();
}

mlir::FailureOr<credit::LauncherForms> KernelEmitter::forms() {
  if (failed(analyze()))
    return mlir::failure();
  credit::LauncherForms f;
  f.partial.exists = partialDropped != nullptr;
  f.partial.geometry = partialGeometry();
  if (partialDropped) {
    f.partial.dropped = partialDropped->src;
    f.partial.droppedReadLate = partialDroppedReadLate();
  }
  f.persistent.exists = persistentForm();
  f.persistent.hoistedInputs = numHoisted();
  f.persistent.keptInputReadLate = keptInputReadLate();
  f.persistent.geometry = wideCtaGeometry();
  return f;
}

mlir::LogicalResult KernelEmitter::run() {
  if (failed(analyze()))
    return mlir::failure();
  emitHeader();
  emitEmbedded();
  emitHelpers();
  emitMetadata();
  emitBody();
  emitKernels();
  emitHost();
  if (options.dispatch)
    emitDispatch();
  if (genFailed || failed(check(rowP)) || failed(check(mathP)))
    return mlir::failure();
  return mlir::success();
}

} // namespace

mlir::LogicalResult credit::emitCuda(mlir::credit::KernelOp kernel, const CudaEmitOptions &options,
                                     llvm::raw_ostream &os) {
  std::string text;
  llvm::raw_string_ostream buf(text);
  KernelEmitter emitter(kernel, options, buf);
  emitter.setText(&text);
  if (failed(emitter.run()))
    return mlir::failure();
  os << text;
  return mlir::success();
}

mlir::LogicalResult credit::emitCudaHeader(mlir::credit::KernelOp kernel,
                                           const CudaEmitOptions &options, llvm::raw_ostream &os) {
  std::string text;
  llvm::raw_string_ostream buf(text);
  KernelEmitter emitter(kernel, options, buf);
  if (failed(emitter.runHeader()))
    return mlir::failure();
  os << text;
  return mlir::success();
}

mlir::FailureOr<credit::LauncherForms> credit::launcherForms(mlir::credit::KernelOp kernel,
                                                             const CudaEmitOptions &options) {
  KernelEmitter emitter(kernel, options, llvm::nulls());
  return emitter.forms();
}
