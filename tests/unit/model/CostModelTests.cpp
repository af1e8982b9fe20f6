// Unit tests of the cost model (compiler/lib/Model, docs/cost-model.md) on a
// synthetic profile: a hand-computed dT with T_ctrl from the control grid and
// the kernel's schedule, legality filtering, the staged baseline, T_occ, T_B
// predicted from the copy rate, the control grid fitted to control timings,
// profile validation; and the calibration tool's reading of generated files.
#include "credit/Dialect/Credit/Transforms/Analyses.h"
#include "credit/Driver/Pipeline.h"
#include "credit/Model/CostModel.h"
#include "credit/Target/Cuda/CudaEmitter.h"
#include "credit/runtime/Model.h"
#include "credit/runtime/Nvrtc.h"

#include "CalibrateSupport.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

using namespace credit;
using namespace credit::model;
using ::credit::Protocol;
using Catch::Matchers::Contains;
namespace cr = mlir::credit;

namespace {

// 8 SMs at 1000 MHz (1e6 cycles per ms), B_SMEM^r = 100, B_SMEM^w = 50,
// B_DSM^w = 4 (sync) / 8 (mbarrier, P = 2 and 4 only) B/clk, a copy rate of
// 1000 GB/s. Control grid: sync P = 1, 2, 4, 8, 16; mbarrier P = 1, 2.
const char *kProfile = R"({
  "schema": "credit-device-profile", "version": 2,
  "device": {"name": "Synthetic", "arch": "sm_90", "sms": 8, "sm_clock_MHz": 1000,
             "smem_per_sm_bytes": 233472, "smem_per_block_optin_bytes": 232448},
  "rates_Bpc": {"smem_read": 100, "smem_write": 50,
                "dsmem_store": {"2": 4, "4": 4, "8": 4, "16": 4},
                "dsmem_store_async": {"2": 8, "4": 8}},
  "memory": {"copy_GBps": 1000},
  "control_grid": {
    "sync": {
      "1": {"launch_us": 1, "cta_cycles": 500, "stage_cycles": 50, "statistic_cycles": 5, "issue_cycles": 0},
      "2": {"launch_us": 1, "cta_cycles": 1000, "stage_cycles": 100, "statistic_cycles": 10, "issue_cycles": 5},
      "4": {"launch_us": 1, "cta_cycles": 1000, "stage_cycles": 200, "statistic_cycles": 20, "issue_cycles": 5},
      "8": {"launch_us": 1, "cta_cycles": 1000, "stage_cycles": 400, "statistic_cycles": 40, "issue_cycles": 5},
      "16": {"launch_us": 1, "cta_cycles": 1000, "stage_cycles": 800, "statistic_cycles": 80, "issue_cycles": 5}},
    "mbarrier": {
      "1": {"launch_us": 1, "cta_cycles": 500, "stage_cycles": 50, "statistic_cycles": 5, "issue_cycles": 0},
      "2": {"launch_us": 1, "cta_cycles": 800, "stage_cycles": 60, "statistic_cycles": 10, "issue_cycles": 5}}}
})";

DeviceProfile profile(const std::string &text = kProfile) {
  auto p = parseProfile(text, "synthetic.json");
  if (!p)
    FAIL(llvm::toString(p.takeError()));
  return *p;
}

std::string profileError(const std::string &text) {
  auto p = parseProfile(text, "bad.json");
  REQUIRE(!p);
  return llvm::toString(p.takeError());
}

// A layernorm-like kernel: b_B 16, b_reread 8, b_keep 4, D_fixed 8 B/element,
// L = 2, q = [1, 1].
KernelFacts facts(long long N) {
  KernelFacts f;
  f.name = "t";
  f.L = 2;
  f.q = {1, 1};
  f.baseline = 16;
  f.cluster = 8;
  f.reread = 8;
  f.keep = 4;
  f.outputBytes = 4;
  f.fixedBroadcastPerElement = 8;
  f.Ksync = 4;
  f.Kmbarrier = 1;
  f.geometry = {4, 2, 1, 2, 256};
  f.target = ::credit::findTarget("sm_90");
  f.legalityN = N;
  f.legality = legalityAt(f.geometry, f.target, N);
  return f;
}

const Candidate &find(const Prediction &p, Protocol proto, int P) {
  for (const Candidate &c : p.candidates)
    if (c.protocol == proto && c.P == P)
      return c;
  FAIL("no candidate " << protocolName(proto) << " P=" << P);
  return p.candidates.front();
}

Prediction run(const KernelFacts &f, const DeviceProfile &prof, long long M, long long N, double tB,
               BaselineKind b = BaselineKind::Reread) {
  Query q;
  q.M = M;
  q.N = N;
  q.tBMs = tB;
  q.baseline = b;
  auto p = predict(f, prof, q);
  if (!p)
    FAIL(llvm::toString(p.takeError()));
  return *p;
}

struct Compiled {
  std::string diags;
  llvm::raw_string_ostream os{diags};
  std::unique_ptr<Compilation> c;
  cr::KernelOp kernel;
  Compiled(const std::string &path, long long N) {
    auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
    REQUIRE(buf);
    c = std::make_unique<Compilation>(std::move(*buf), os);
    PipelineOptions opts;
    opts.N = N;
    REQUIRE(c->run(opts) == Compilation::Ok);
    kernel = c->kernels().front();
  }
};

std::string example(const std::string &name) {
  return std::string(CREDIT_SOURCE_DIR) + "/dsl_examples/" + name + ".credit";
}

const char *kExamples[] = {"layernorm", "wvar_bwd", "pearson_bwd", "softmax_logits_bwd", "lars",
                           "quant_int8"};

} // namespace

TEST_CASE("dT by hand: T_ctrl from the control grid and the kernel's schedule", "[model]") {
  // M = 64, N = 1024, reread T_B = 0.01 ms. Slice 512 (P = 2): 2.2 KB of SMEM,
  // eight 256-thread CTAs per SM.
  Prediction p = run(facts(1024), profile(), 64, 1024, 0.01);
  // D_base = 64 (1024 (16 + 8)) = 1572864 B; R_B = D_base / T_B.
  CHECK(p.base.dBaseBytes == Approx(1572864.0));
  CHECK(p.base.tRereadSaved == Approx(64.0 * 1024 * 8 / 157286400.0));  // 0.0033333
  CHECK(p.base.tInput == Approx(64.0 * 1024 * 4 / 157286400.0));
  const Candidate &c = find(p, Protocol::Sync, 2);
  REQUIRE(c.evaluated);
  CHECK(c.terms.form == ClusterForm::Full);
  CHECK(c.terms.ctasPerSm == 8);
  // Control grid of P = 2 at k = 8: 32 clusters resident, W = 2 waves of
  // 1000 + L 2 x 100 + sum q 2 x 10 + (k - 1) 7 x 5 = 1255 cycles, + 1 us launch.
  // One CTA a row (reread scratch, k = 8): 64 resident, 1 wave of 500 + 100 + 10.
  const double grid2 = 1e-3 + 2 * 1255 / 1e6, one = 1e-3 + 610 / 1e6;
  CHECK(c.terms.tCtrl == Approx(grid2 - one));
  // Eq. 8: W = ceil(64 / floor(8 / 2)) = 16 waves of one CTA per SM.
  CHECK(c.terms.W == 16);
  CHECK(c.terms.tReplay == Approx(16.0 * 512 * 8 / 100 / 1e6));
  CHECK(c.terms.tDSM == Approx(16.0 * (1 * 2 * 4) / 4 / 1e6));
  CHECK(c.terms.tSmemW == Approx(16.0 * 512 * 4 / 50 / 1e6));
  CHECK(c.terms.tDeposit == 0);  // T_SMEM^w < T_input: hidden
  CHECK(c.terms.tLatency == 0);  // eight CTAs per SM
  CHECK(c.terms.deltaT == Approx(p.base.tRereadSaved - c.terms.tCtrl - c.terms.tReplay - c.terms.tDSM));
  // A larger statistic count or more stages raise T_ctrl: the schedule enters it.
  KernelFacts more = facts(1024);
  more.L = 3;
  more.q = {1, 2, 2};
  more.geometry = {4, 3, 2, 5, 256};
  more.legality = legalityAt(more.geometry, more.target, 1024);
  Prediction q = run(more, profile(), 64, 1024, 0.01);
  CHECK(find(q, Protocol::Sync, 2).terms.tCtrl > c.terms.tCtrl);
  // mbarrier P = 4 and 8 have no control grid (and no rate): not evaluated, named.
  CHECK(!find(p, Protocol::Mbarrier, 4).evaluated);
  CHECK_THAT(find(p, Protocol::Mbarrier, 4).note, Contains("no control_grid.mbarrier.\"4\""));
  CHECK_THAT(find(p, Protocol::Mbarrier, 8).note, Contains("dsmem_store_async"));
}

TEST_CASE("the choice is the largest dT over every evaluated protocol and P", "[model]") {
  Prediction p = run(facts(1024), profile(), 64, 1024, 0.01);
  REQUIRE(p.chosen);
  for (const Candidate &c : p.candidates)
    if (c.evaluated)
      CHECK(c.terms.deltaT <= p.candidates[*p.chosen].terms.deltaT);
  CHECK(p.profitable == (p.candidates[*p.chosen].terms.deltaT > 0));
  // The same ranking as the generated dispatch's (Model.h, rankCandidates).
  const Kernel k = facts(1024).modelKernel();
  const Ranked r = rankCandidates(k, profile().device, 64, 1024, 0.01, false, nullptr,
                                  [](int, int) { return true; });
  REQUIRE(r.count >= 1);
  CHECK(r.P[0] == p.candidates[*p.chosen].P);
  CHECK(r.protocol[0] == static_cast<int>(p.candidates[*p.chosen].protocol));
  for (int i = 1; i < r.count; ++i)
    CHECK(r.deltaT[i] <= r.deltaT[i - 1]);
  // The first-use shortlist: the best ones, within the margin of T_B.
  for (size_t i : p.shortlist)
    CHECK(p.candidates[i].terms.deltaT > -kShortlistMargin * 0.01);
  CHECK(p.shortlist.size() <= static_cast<size_t>(kShortlistMax));
}

TEST_CASE("the shortlist: the best two, and the best one's protocol at half and twice its P", "[model]") {
  // Ranked best first: mbarrier 4, sync 4, mbarrier 2, sync 2, mbarrier 8, mbarrier 16.
  Ranked r{};
  const int protocol[] = {1, 0, 1, 0, 1, 1}, P[] = {4, 4, 2, 2, 8, 16};
  const double dT[] = {0.20, 0.19, 0.18, 0.17, 0.05, -0.2};
  for (int i = 0; i < 6; ++i) {
    r.protocol[i] = protocol[i];
    r.P[i] = P[i];
    r.deltaT[i] = dT[i];
  }
  r.count = 6;
  const double tB = 1.0;  // margin: dT > -0.05
  CHECK(inShortlist(r, 0, tB));
  CHECK(inShortlist(r, 1, tB));
  CHECK(inShortlist(r, 2, tB));   // mbarrier P = 2: half the best's P
  CHECK(!inShortlist(r, 3, tB));  // sync P = 2: third best, another protocol
  CHECK(inShortlist(r, 4, tB));   // mbarrier P = 8: twice the best's P, far below it but within the margin
  CHECK(!inShortlist(r, 5, tB));  // mbarrier P = 16: not a neighbour
  CHECK(!inShortlist(r, 6, tB));  // past the end
  r.deltaT[4] = -0.06;            // the neighbour below the margin
  CHECK(!inShortlist(r, 4, tB));
}

TEST_CASE("only Eq. 3-legal cluster sizes are candidates", "[model]") {
  // N = 131072: slice 65536 at P = 2 is 256 KiB: not legal; P = 4 is.
  Prediction p = run(facts(131072), profile(), 64, 131072, 1.0);
  CHECK(!find(p, Protocol::Sync, 2).legal);
  CHECK(!find(p, Protocol::Sync, 2).evaluated);
  CHECK(find(p, Protocol::Sync, 4).legal);
  CHECK(find(p, Protocol::Sync, 4).evaluated);
  // N too wide for every P: no legal cluster size, not an error.
  Prediction none = run(facts(1LL << 26), profile(), 64, 1LL << 26, 100.0);
  CHECK(none.verdict == "no legal cluster size");
  CHECK(!none.chosen);
}

TEST_CASE("against the staged kernel there is no HBM reread to save", "[model]") {
  Prediction p = run(facts(1024), profile(), 64, 1024, 0.01, BaselineKind::Auto);
  CHECK(p.baselineKernel == "staged");
  CHECK(p.base.tRereadSaved == 0);
  // D_base counts b_B - b_reread: 64 (1024 (8 + 8)).
  CHECK(p.base.dBaseBytes == Approx(64.0 * 1024 * 16));
  CHECK(!p.profitable);
}

TEST_CASE("T_occ = T_B - T_slice(P) against a staged T_B", "[model]") {
  Query q;
  q.M = 64;
  q.N = 1024;
  q.tBMs = 0.01;
  q.baseline = BaselineKind::Staged;
  q.tSliceMs = {{2, 0.004}};
  auto p = predict(facts(1024), profile(), q);
  REQUIRE(static_cast<bool>(p));
  const Candidate &c = find(*p, Protocol::Sync, 2);
  CHECK(c.terms.tOcc == Approx(0.006));
  CHECK(c.terms.deltaT == Approx(0.006 - c.terms.tCtrl - c.terms.tReplay - c.terms.tDSM - c.terms.tDeposit));
  CHECK(find(*p, Protocol::Sync, 4).terms.tOcc == 0);  // not measured
}

TEST_CASE("without a timing T_B is predicted from the copy rate", "[model]") {
  Prediction p = run(facts(65536), profile(), 64, 65536, 0.0);
  CHECK(p.tBPredicted);
  // Reread at N = 65536 (the row does not fit one CTA): 64 x 65536 x 24 B at 1e9 B/ms.
  CHECK(p.baselineKernel == "reread");
  CHECK(p.query.tBMs == Approx(64.0 * 65536 * 24 / 1e9));
  // No copy rate: an error that says what to give.
  std::string text = kProfile;
  text.replace(text.find("\"memory\": {\"copy_GBps\": 1000},"), 30, "");
  Query q;
  q.M = 64;
  q.N = 65536;
  auto none = predict(facts(65536), profile(text), q);
  REQUIRE(!none);
  CHECK_THAT(llvm::toString(none.takeError()), Contains("memory.copy_GBps"));
}

namespace {
// A version-1 profile whose control timings were produced by `truth` (Model.h's
// gridMs): a spread of footprints, stage and statistic counts, rows.
std::string timingsProfile(const GridCost (&truth)[2][kNumClusterSizes], bool withFootprints) {
  DeviceProfile base = profile();
  Device d = base.device;
  std::string entries;
  for (int protocol = 0; protocol < 2; ++protocol)
    for (int P : {2, 4})
      for (int L : {1, 2, 3})
        for (int q : {1, 2, 5})
          for (long long M : {64LL, 1000LL})
            for (long long smem : {2048LL, 60000LL, 120000LL}) {
              d.grid[protocol][log2P(P)] = truth[protocol][log2P(P)];
              d.grid[protocol][0] = truth[protocol][0];
              const double t = gridMs(d, protocol, P, ctasPerSm(d, smem, 256), M, L, q);
              const double tOne = gridMs(d, protocol, 1, ctasPerSm(d, smem / 2, 256), M, L, q);
              entries += llvm::formatv(
                  R"({0}{{"kernel": "k{1}{2}", "protocol": "{3}", "P": {4}, "M": {5}, "N": {6}, "t_ctrl_ms": {7})",
                  entries.empty() ? "" : ",\n", L, q, protocol ? "mbarrier" : "sync", P, M, smem, t - tOne);
              if (withFootprints)
                entries += llvm::formatv(
                    R"(, "geometry": {{"L": {0}, "q_sum": {1}, "threads": 256}, "smem_bytes": {2},
                       "t_control_ms": {3}, "one_cta_smem_bytes": {4}, "t_one_cta_ms": {5})",
                    L, q, smem, llvm::formatv("{0:e12}", t).str(), smem / 2, llvm::formatv("{0:e12}", tOne).str());
              entries += "}";
            }
  std::string text = kProfile;
  const size_t at = text.find("\"control_grid\"");
  text = text.substr(0, at) + "\"control\": {\"entries\": [" + entries + "]}\n}";
  text.replace(text.find("\"version\": 2"), 12, "\"version\": 1");
  return text;
}
} // namespace

TEST_CASE("a profile of control timings is reduced to the device's control grid", "[model]") {
  GridCost truth[2][kNumClusterSizes] = {};
  truth[0][0] = {2, 400, 60, 8, 3};
  truth[0][1] = {2, 900, 150, 20, 10};
  truth[0][2] = {3, 950, 300, 35, 12};
  truth[1][0] = {4, 300, 90, 9, 0};
  truth[1][1] = {5, 700, 80, 25, 6};
  truth[1][2] = {5, 750, 120, 40, 7};
  DeviceProfile p = profile(timingsProfile(truth, true));
  CHECK(p.fitted.size() == 6);
  for (int protocol = 0; protocol < 2; ++protocol)
    for (int l = 0; l < 3; ++l) {
      INFO("protocol " << protocol << " log2 P " << l);
      REQUIRE(p.device.gridMeasured[protocol][l]);
      const GridCost &g = p.device.grid[protocol][l], &t = truth[protocol][l];
      CHECK(g.launchUs == Approx(t.launchUs).epsilon(1e-3));
      CHECK(g.ctaCycles == Approx(t.ctaCycles).epsilon(1e-3));
      CHECK(g.stageCycles == Approx(t.stageCycles).epsilon(1e-3));
      CHECK(g.statisticCycles == Approx(t.statisticCycles).epsilon(1e-3));
      CHECK(g.issueCycles == Approx(t.issueCycles).margin(1e-2));
    }
  CHECK(!p.device.gridMeasured[0][3]);  // no timings of P = 8
  // A T_ctrl per kernel alone (no footprint, no raw times) says nothing about the
  // device: not used, nothing fitted, and predict names what is missing.
  DeviceProfile bare = profile(timingsProfile(truth, false));
  CHECK(bare.fitted.empty());
  CHECK(!bare.device.gridMeasured[0][1]);
  Query q;
  q.M = 64;
  q.N = 65536;
  q.tBMs = 1;
  auto none = predict(facts(65536), bare, q);
  REQUIRE(!none);
  CHECK_THAT(llvm::toString(none.takeError()), Contains("nor control timings to fit it to"));
}

TEST_CASE("profile validation names the key", "[model]") {
  auto with = [](const std::string &from, const std::string &to) {
    std::string t = kProfile;
    const size_t at = t.find(from);
    REQUIRE(at != std::string::npos);
    return t.replace(at, from.size(), to);
  };
  CHECK_THAT(profileError(with("\"sms\": 8", "\"sms\": \"8\"")), Contains("key 'device.sms': expected an integer"));
  CHECK_THAT(profileError(with("\"smem_read\": 100", "\"smem_read\": -1")),
             Contains("key 'rates_Bpc.smem_read': must be positive"));
  CHECK_THAT(profileError(with("\"version\": 2", "\"version\": 3")), Contains("key 'version': expected 1 or 2"));
  CHECK_THAT(profileError(with("\"dsmem_store\": {\"2\"", "\"dsmem_store\": {\"3\"")),
             Contains("key 'rates_Bpc.dsmem_store.3'"));
  CHECK_THAT(profileError(with("\"stage_cycles\": 50", "\"stage_cycles\": null")),
             Contains("key 'control_grid.sync.1.stage_cycles': expected a number, got null"));
  CHECK_THAT(profileError(with("\"1\": {\"launch_us\": 1, \"cta_cycles\": 500", "\"2x\": {\"launch_us\": 1, \"cta_cycles\": 500")),
             Contains("control_grid.sync.2x"));
  CHECK_THAT(profileError("[1, 2"), Contains("invalid JSON"));
  CHECK_THAT(profileError("[]"), Contains("the profile must be a JSON object"));
}

TEST_CASE("deeply nested JSON is refused before it is parsed", "[model]") {
  CHECK(jsonDepth("{\"a\": [1, {\"b\": 2}]}") == 3);
  CHECK(jsonDepth("{\"a\": \"[[[[{{{\"}") == 1);      // brackets in strings do not count
  CHECK(jsonDepth("{\"a\": \"\\\"[[[\"}") == 1);       // nor after an escaped quote
  const std::string deep = std::string(1000000, '[') + std::string(1000000, ']');
  CHECK_THAT(profileError(deep), Contains("nested 1000000 deep (at most 64)"));
  std::string just = std::string(kMaxProfileDepth, '[') + std::string(kMaxProfileDepth, ']');
  CHECK_THAT(profileError(just), Contains("must be a JSON object"));  // parsed: depth is allowed
}

TEST_CASE("prediction JSON holds no inf or nan", "[model]") {
  CHECK(jsonNumber(1.5).getAsNumber() == 1.5);
  CHECK(jsonNumber(std::numeric_limits<double>::infinity()).getAsNull());
  CHECK(jsonNumber(std::nan("")).getAsNull());
  // The largest shape: every number finite.
  Prediction p = run(facts(1024), profile(), kMaxRows, 1024, 1e-9);
  std::string text;
  llvm::raw_string_ostream os(text);
  os << predictionToJSON(p);
  os.flush();
  CHECK(text.find("inf") == std::string::npos);
  CHECK(text.find("nan") == std::string::npos);
  Query q;
  q.M = kMaxRows + 1;
  q.N = 1024;
  q.tBMs = 1;
  auto big = predict(facts(1024), profile(), q);
  REQUIRE(!big);
  CHECK_THAT(llvm::toString(big.takeError()), Contains("M must be in [1, 2147483647]"));
}

TEST_CASE("predict and the report on an example: any kernel is predicted", "[model]") {
  for (const char *name : {"softmax", "rmsnorm", "log_softmax", "cross_entropy_bwd", "layernorm"}) {
    INFO(name);
    Compiled k(example(name), 65536);
    auto f = kernelFacts(k.kernel);
    REQUIRE(static_cast<bool>(f));
    Query q;
    q.M = 4096;
    q.N = 65536;
    auto p = predict(*f, profile(), q);
    REQUIRE(static_cast<bool>(p));
    CHECK(p->tBPredicted);
    CHECK(p->chosen);
    std::string text;
    llvm::raw_string_ostream os(text);
    printPrediction(*p, os);
    CHECK_THAT(text, Contains("verdict: "));
  }
}

TEST_CASE("credit-calibrate reads generated files and the JIT checks it", "[model][calibrate]") {
  for (const char *name : kExamples) {
    Compiled k(example(name), 0);
    std::string cuda;
    {
      llvm::raw_string_ostream os(cuda);
      CudaEmitOptions eo;
      REQUIRE(succeeded(emitCuda(k.kernel, eo, os)));
    }
    calibrate::GeneratedKernel g;
    std::string err;
    INFO(name);
    REQUIRE(calibrate::parseGeneratedSource(cuda, g, err));
    ::credit::WorkloadGeometry geo = cr::computeGeometry(k.kernel);
    cr::Barriers b = cr::computeBarriers(k.kernel);
    CHECK(g.kernel == name);
    CHECK(g.controlSync == std::string("credit_") + name + "_control_sync");
    CHECK(g.keepBytesPerElem == geo.keepBytesPerElem);
    CHECK(g.numStages == geo.numStages);
    CHECK(g.qMax == geo.qMax);
    CHECK(g.qSum == geo.qSum);
    CHECK(g.threads == geo.threads);
    CHECK(g.Ksync == b.sync);
    CHECK(g.Kmbarrier == b.mbarrier);
    CHECK(g.arch == "sm_90");
    if (std::string(name) != "layernorm")
      continue;
    // The appended static_asserts compile when the figures are right, and stop
    // the JIT when they are not.
    NvrtcOptions nv;
    NvrtcResult ok = compileToCubin(cuda + calibrate::geometryCheckSuffix(g), "t.cu", nv);
    INFO(ok.log);
    CHECK(ok.ok);
    calibrate::GeneratedKernel wrong = g;
    wrong.keepBytesPerElem += 4;
    NvrtcResult bad = compileToCubin(cuda + calibrate::geometryCheckSuffix(wrong), "t.cu", nv);
    CHECK(!bad.ok);
    CHECK_THAT(bad.log, Contains("credit-calibrate misread the kernel metadata"));
  }
  // Without control kernels there is nothing to time.
  Compiled k(example("layernorm"), 0);
  std::string cuda;
  llvm::raw_string_ostream os(cuda);
  CudaEmitOptions eo;
  eo.variants = {Variant::Cluster};
  REQUIRE(succeeded(emitCuda(k.kernel, eo, os)));
  calibrate::GeneratedKernel g;
  std::string err;
  CHECK(!calibrate::parseGeneratedSource(cuda, g, err));
  CHECK_THAT(err, Contains("no work-free control kernel"));
}

TEST_CASE("T_B's kernel: staged where it fits, unless the reread kernel reads each input once", "[model]") {
  const WorkloadGeometry g{4, 2, 1, 2, 256};  // narrow register form up to N = 16 x 256 = 4096
  const long long regs = 4096, smem = 16384;
  Traffic twoPass{8, 4, 4, 0, 0, 2};  // the reread kernel re-reads 4 B per element
  CHECK(stagedIsBaseline(twoPass, g, smem, true, true));
  CHECK(!stagedIsBaseline(twoPass, g, smem, false, true));
  Traffic onePassReread = twoPass;  // the reread kernel's own stages are one pass
  onePassReread.baseline = 4;
  onePassReread.baselineReread = 0;
  CHECK(rereadReadsOnce(onePassReread));
  CHECK(!rereadReadsOnce(twoPass));
  CHECK(!stagedIsBaseline(onePassReread, g, smem, true, true));
  CHECK(stagedIsBaseline(onePassReread, g, regs, true, true));   // the narrow register form
  CHECK(stagedIsBaseline(onePassReread, g, smem, true, false));  // no reread kernel generated
  CHECK(!stagedIsBaseline(onePassReread, g, regs, false, true));
  CHECK(compulsoryBytes(onePassReread) == 4);
}
