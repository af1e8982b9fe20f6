// Unit tests of the cost model (compiler/lib/Model, docs/cost-model.md) on a
// synthetic profile: a hand-computed dT, legality filtering, the deposit-
// overlap rule, T_ctrl interpolation, profile validation; and the calibration
// tool's reading of generated files (credit-calibrate's JIT path, no GPU).
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

using namespace credit;
using namespace credit::model;
using ::credit::Protocol;
using Catch::Matchers::Contains;
namespace cr = mlir::credit;

namespace {

// 8 SMs at 1000 MHz (1e6 cycles per ms), B_SMEM^r = 100, B_SMEM^w = 50,
// B_DSM^w = 4 (sync) / 8 (mbarrier) B/clk. T_ctrl of kernel "t" at M = 16,
// N = 1024: sync P=2 1 us, P=4 2 us, mbarrier P=2 0.5 us; nothing for P = 8.
const char *kProfile = R"({
  "schema": "credit-device-profile", "version": 1,
  "device": {"name": "Synthetic", "arch": "sm_90", "sms": 8, "sm_clock_MHz": 1000},
  "rates_Bpc": {"smem_read": 100, "smem_write": 50,
                "dsmem_store": {"2": 4, "4": 4, "8": 4, "16": 4},
                "dsmem_store_async": {"2": 8, "4": 8}},
  "latency_cycles": {"smem_load": 30},
  "control": {"entries": [
    {"kernel": "t", "protocol": "sync", "P": 2, "M": 16, "N": 1024, "t_ctrl_ms": 0.001},
    {"kernel": "t", "protocol": "sync", "P": 4, "M": 16, "N": 1024, "t_ctrl_ms": 0.002},
    {"kernel": "t", "protocol": "mbarrier", "P": 2, "M": 16, "N": 1024, "t_ctrl_ms": 0.0005,
     "geometry": {"keep_bytes_per_element": 4, "L": 2, "q_max": 1, "q_sum": 2, "threads": 256}}
  ]}
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

TEST_CASE("dT by hand on a synthetic profile", "[model]") {
  Prediction p = run(facts(1024), profile(), /*M=*/16, /*N=*/1024, /*T_B=*/0.01);  // reread T_B
  // Eq. 5/7: D_base = 16 * 1024 * (16 + 8) = 393216 B; R_B = D_base / 0.01 ms.
  CHECK(p.baselineKernel == "reread");
  CHECK(p.dBaseBytes == Approx(393216.0));
  CHECK(p.rateBytesPerMs == Approx(39321600.0));
  // T_saved = 16 * 1024 * 8 / R_B = T_B / 3; T_input = 16 * 1024 * 4 / R_B.
  CHECK(p.tRereadSaved == Approx(0.01 / 3));
  CHECK(p.tInput == Approx(0.01 / 6));

  // sync, P = 2: slice 512, floor(8 / 2) = 4 clusters per wave, W = 16 / 4 = 4.
  const Candidate &s2 = find(p, Protocol::Sync, 2);
  REQUIRE(s2.evaluated);
  CHECK(s2.slice == 512);
  CHECK(s2.clustersPerWave == 4);
  CHECK(s2.W == 4);
  CHECK(s2.tCtrl == Approx(0.001));
  CHECK(s2.ctrlSource == "measured");
  CHECK(s2.tReplay == Approx(4 * 512 * 8 / 100.0 / 1e6)); // 163.84 cycles
  CHECK(s2.tDSM == Approx(4 * (1 * 2 * 4) / 4.0 / 1e6));  // (P-1) q_sum 4 B, not x P
  CHECK(s2.tSmemW == Approx(4 * 512 * 4 / 50.0 / 1e6));
  CHECK(s2.tDeposit == 0.0); // 163.84 cycles of STS < T_input
  CHECK(s2.deltaT == Approx(0.01 / 3 - 0.001 - 163.84e-6 - 8e-6));

  // sync, P = 4: W = 16 / 2 = 8, slice 256, 3 peers.
  const Candidate &s4 = find(p, Protocol::Sync, 4);
  REQUIRE(s4.evaluated);
  CHECK(s4.W == 8);
  CHECK(s4.tReplay == Approx(8 * 256 * 8 / 100.0 / 1e6));
  CHECK(s4.tDSM == Approx(8 * (3 * 2 * 4) / 4.0 / 1e6));
  CHECK(s4.deltaT == Approx(0.01 / 3 - 0.002 - 163.84e-6 - 48e-6));

  // P = 8: legal, but the profile has no T_ctrl for it; P = 16: wider than S.
  const Candidate &s8 = find(p, Protocol::Sync, 8);
  CHECK(s8.legal);
  CHECK(!s8.evaluated);
  CHECK_THAT(s8.note, Contains("no T_ctrl for kernel 't', sync protocol, P = 8"));
  const Candidate &s16 = find(p, Protocol::Sync, 16);
  CHECK(!s16.evaluated);
  CHECK_THAT(s16.note, Contains("more than the device's 8 SMs"));
  // mbarrier P = 8: no st.async rate for 8 in the profile.
  CHECK_THAT(find(p, Protocol::Mbarrier, 8).note, Contains("no rates_Bpc.dsmem_store_async.\"8\""));

  // mbarrier, P = 2: T_ctrl 0.5 us, st.async at 8 B/clk -> the best.
  const Candidate &m2 = find(p, Protocol::Mbarrier, 2);
  REQUIRE(m2.evaluated);
  CHECK(m2.tDSM == Approx(4 * 8 / 8.0 / 1e6));
  CHECK(m2.deltaT == Approx(0.01 / 3 - 0.0005 - 163.84e-6 - 4e-6));
  REQUIRE(p.chosen);
  CHECK(&p.candidates[*p.chosen] == &m2);
  REQUIRE(p.chosenSync);
  CHECK(p.candidates[*p.chosenSync].P == 2);
  CHECK(p.profitable);
  CHECK(p.verdict == "profitable");

  // A slower baseline saves more; a much faster one makes every P lose.
  Prediction slow = run(facts(1024), profile(), 16, 1024, 0.1);
  CHECK(find(slow, Protocol::Mbarrier, 2).deltaT > m2.deltaT);
  Prediction fast = run(facts(1024), profile(), 16, 1024, 0.002);
  CHECK(!fast.profitable);
  CHECK(fast.verdict == "not profitable");
  CHECK(fast.candidates[*fast.chosen].deltaT < 0);
}

TEST_CASE("the deposit-overlap rule charges only the non-overlapped residual", "[model]") {
  // P = 2 deposits W * slice * b_keep = 4 * 512 * 4 = 8192 B per SM; T_input is
  // 1666.67 cycles (16 * 1024 * 4 B at R_B).
  auto withWrite = [](double bpc) {
    std::string t = kProfile;
    size_t at = t.find("\"smem_write\": 50");
    REQUIRE(at != std::string::npos);
    t.replace(at, 16, "\"smem_write\": " + std::to_string(bpc));
    return profile(t);
  };
  Prediction under = run(facts(1024), withWrite(5.0), 16, 1024, 0.01); // 1638.4 cycles
  const Candidate &a = find(under, Protocol::Sync, 2);
  CHECK(a.tSmemW == Approx(1638.4e-6));
  CHECK(a.tSmemW < under.tInput);
  CHECK(a.tDeposit == 0.0);

  Prediction over = run(facts(1024), withWrite(4.0), 16, 1024, 0.01); // 2048 cycles
  const Candidate &b = find(over, Protocol::Sync, 2);
  CHECK(b.tSmemW == Approx(2048e-6));
  CHECK(b.tDeposit == Approx(2048e-6 - 0.01 / 6));
  CHECK(b.deltaT == Approx(a.deltaT - b.tDeposit));

  Prediction slowStores = run(facts(1024), withWrite(0.5), 16, 1024, 0.01);
  CHECK(find(slowStores, Protocol::Sync, 2).tDeposit == Approx(16384e-6 - 0.01 / 6));
  CHECK(!slowStores.profitable);
}

TEST_CASE("only Eq. 3-legal cluster sizes are candidates", "[model]") {
  SECTION("synthetic: P = 2 falls out above its max N") {
    // keep 4 B, S_sync 96 (loadBars 32 included): P = 2 holds at most
    // 2 * (232448 - 96) / 4 = 116176 elements (sync), P = 4 232352.
    Prediction p = run(facts(131072), profile(), 16, 131072, 1.0);
    CHECK(!find(p, Protocol::Sync, 2).legal);
    CHECK(!find(p, Protocol::Mbarrier, 2).legal);
    CHECK(find(p, Protocol::Sync, 2).note == "not legal (Eq. 3)");
    CHECK(find(p, Protocol::Sync, 4).legal);
    for (const Candidate &c : p.candidates)
      CHECK((c.legal || !c.evaluated));
    // Only the T_ctrl of (sync, 4) exists (extrapolated from N = 1024).
    REQUIRE(p.chosen);
    CHECK(p.candidates[*p.chosen].P == 4);
    CHECK(p.candidates[*p.chosen].ctrlSource == "extrapolated");
  }
  SECTION("the mbarrier protocol's larger scratch") {
    // S at P = 8: sync 112 -> 128, mbarrier 160 -> 256 (loadBars 4*8 per kept
    // input = 32 B, then padding to the 128-B aligned slice).
    // N = 464640: slice 58080, sync 128 + 232320 = 232448 B fits exactly,
    // mbarrier 256 + 232320 = 232576 does not.
    KernelFacts f = facts(464640);
    auto e = std::find_if(f.legality.begin(), f.legality.end(),
                          [](const LegalityAtN &l) { return l.P == 8; });
    REQUIRE(e != f.legality.end());
    CHECK(e->legalSync);
    CHECK(!e->legalMbarrier);
    // (The synthetic profile has no T_ctrl at P = 8, so no prediction here;
    // the candidates' `legal` is this same KernelFacts::legality entry.)
  }
  SECTION("no legal P at all") {
    Prediction p = run(facts(2000000), profile(), 16, 2000000, 1.0);
    CHECK(!p.chosen);
    CHECK(p.verdict == "no legal cluster size");
    CHECK(!p.profitable);
  }
  SECTION("kernelFacts reads credit-legality's Eq. 3, computeLegality's, and legalityAt agrees") {
    for (const char *name : kExamples)
      for (long long N : {1LL, 4096LL, 58088LL, 58092LL, 65536LL, 116172LL, 262144LL, 1000000LL}) {
        Compiled k(example(name), N);
        llvm::Expected<KernelFacts> read = kernelFacts(k.kernel);
        REQUIRE(static_cast<bool>(read));
        KernelFacts f = std::move(*read);
        CHECK(f.legalityN == N);
        CHECK(f.geometry.threads == 256);
        auto table = cr::computeLegality(k.kernel, ::credit::findTarget("sm_90"), N);
        REQUIRE(f.legality.size() == table.size());
        std::vector<LegalityAtN> direct = legalityAt(f.geometry, f.target, N);
        REQUIRE(direct.size() == table.size());
        for (size_t i = 0; i < table.size(); ++i) {
          INFO(name << " N=" << N << " P=" << table[i].P);
          CHECK(f.legality[i].P == table[i].P);
          CHECK(f.legality[i].legalSync == table[i].legalAtN);
          CHECK(f.legality[i].smemSync == table[i].smemAtN);
          CHECK(direct[i].legalSync == table[i].legalAtN);
          CHECK(direct[i].legalMbarrier == f.legality[i].legalMbarrier);
        }
        cr::Traffic t = cr::computeTraffic(k.kernel);
        CHECK(f.reread == t.reread);
        CHECK(f.keep == t.keep);
        CHECK(f.baseline == t.baseline);
        CHECK(f.Ksync == 2 * f.L);
      }
  }
}

TEST_CASE("the baseline kernel T_B timed", "[model]") {
  Prediction autoSmall = run(facts(1024), profile(), 16, 1024, 0.01, BaselineKind::Auto);
  CHECK(autoSmall.baselineKernel == "staged"); // the row fits one CTA
  Prediction autoWide = run(facts(65536), profile(), 16, 65536, 0.5, BaselineKind::Auto);
  CHECK(autoWide.baselineKernel == "reread"); // 65536 * 4 B > 227 KB
  Query q;
  q.M = 16;
  q.N = 65536;
  q.tBMs = 0.5;
  q.baseline = BaselineKind::Staged;
  auto e = predict(facts(65536), profile(), q);
  REQUIRE(!e);
  CHECK_THAT(llvm::toString(e.takeError()), Contains("staged kernel is not legal at N = 65536"));
}

TEST_CASE("against the staged kernel there is no HBM reread to save", "[model]") {
  // Same shape and T_B, the two baselines: the staged kernel moves b_B -
  // b_reread bytes per element and the clustered kernel eliminates none of
  // them; the reread kernel moves b_B and the saving is M N b_reread / R_B.
  KernelFacts f = facts(1024);
  REQUIRE(f.reread > 0);
  Prediction staged = run(f, profile(), 16, 1024, 0.01, BaselineKind::Staged);
  Prediction reread = run(f, profile(), 16, 1024, 0.01, BaselineKind::Reread);
  const double m = 16, n = 1024, fixedBytes = m * (n * f.fixedBroadcastPerElement + f.fixedPerRow);
  CHECK(staged.tRereadSaved == 0.0);
  CHECK(staged.dBaseBytes == Approx(m * n * (f.baseline - f.reread) + fixedBytes));
  CHECK(reread.dBaseBytes == Approx(m * n * f.baseline + fixedBytes));
  CHECK(reread.tRereadSaved == Approx(m * n * f.reread / reread.rateBytesPerMs));
  CHECK(reread.tRereadSaved > 0.0);
  for (const Candidate &c : staged.candidates)
    if (c.evaluated)
      CHECK(c.deltaT < 0.0);
  CHECK(!staged.profitable);
}

TEST_CASE("T_occ: a staged T_B with T_slice(P) credits occupancy, exactly T_B - T_slice", "[model]") {
  KernelFacts f = facts(1024);
  Query q;
  q.M = 16;
  q.N = 1024;
  q.tBMs = 0.01;
  q.baseline = BaselineKind::Staged;
  auto base = predict(f, profile(), q);
  REQUIRE(static_cast<bool>(base));
  q.tSliceMs = {{2, 0.004}};  // P = 2 only; a faster slice than the row
  auto occ = predict(f, profile(), q);
  REQUIRE(static_cast<bool>(occ));
  CHECK(occ->anySlice);
  int checked = 0;
  for (size_t i = 0; i < occ->candidates.size(); ++i) {
    const Candidate &a = base->candidates[i], &b = occ->candidates[i];
    if (!b.evaluated)
      continue;
    ++checked;
    CHECK(a.tOcc == 0.0);
    if (b.P == 2) {
      CHECK(b.tSlice == 0.004);
      CHECK(b.tOcc == Approx(0.006));
      CHECK(b.deltaT == Approx(a.deltaT + 0.006));
    } else {
      CHECK(b.tSlice == 0.0);  // not measured: T_occ = 0, dT unchanged
      CHECK(b.deltaT == a.deltaT);
    }
  }
  CHECK(checked > 0);
  // A slower slice than the row costs (T_occ < 0); against a reread T_B the
  // term does not apply (its saving is T_saved), with a note.
  q.tSliceMs = {{2, 0.02}};
  auto slow = predict(f, profile(), q);
  REQUIRE(static_cast<bool>(slow));
  for (const Candidate &c : slow->candidates)
    if (c.evaluated && c.P == 2)
      CHECK(c.tOcc == Approx(-0.01));
  q.baseline = BaselineKind::Reread;
  auto reread = predict(f, profile(), q);
  REQUIRE(static_cast<bool>(reread));
  for (const Candidate &c : reread->candidates)
    CHECK(c.tOcc == 0.0);
  CHECK(std::any_of(reread->notes.begin(), reread->notes.end(),
                    [](const std::string &n) { return n.find("T_slice is ignored") != std::string::npos; }));
  // Bad entries are errors, not silently dropped.
  q.baseline = BaselineKind::Staged;
  q.tSliceMs = {{3, 0.004}};
  auto badP = predict(f, profile(), q);
  REQUIRE(!badP);
  CHECK_THAT(llvm::toString(badP.takeError()), Contains("cluster sizes are 2, 4, 8 and 16"));
  q.tSliceMs = {{2, -1.0}};
  auto badT = predict(f, profile(), q);
  REQUIRE(!badT);
  CHECK_THAT(llvm::toString(badT.takeError()), Contains("must be a positive time"));
  // The shared arithmetic (credit/runtime/Model.h).
  CHECK(credit::model::occupancySaving(true, 0.2, 0.15) == Approx(0.05));
  CHECK(credit::model::occupancySaving(true, 0.2, 0.0) == 0.0);
  CHECK(credit::model::occupancySaving(false, 0.2, 0.15) == 0.0);
  CHECK(credit::model::sliceRows(4096, 4) == 16384);
}

TEST_CASE("T_ctrl lookup: measured, interpolated, extrapolated", "[model]") {
  DeviceProfile prof = profile(R"({
    "schema": "credit-device-profile", "version": 1,
    "device": {"name": "S", "sms": 8, "sm_clock_MHz": 1000},
    "rates_Bpc": {"smem_read": 100, "smem_write": 50, "dsmem_store": {"2": 4}, "dsmem_store_async": {}},
    "control": {"entries": [
      {"kernel": "t", "protocol": "sync", "P": 2, "M": 16, "N": 1024, "t_ctrl_ms": 0.001},
      {"kernel": "t", "protocol": "sync", "P": 2, "M": 16, "N": 4096, "t_ctrl_ms": 0.003},
      {"kernel": "t", "protocol": "sync", "P": 2, "M": 48, "N": 1024, "t_ctrl_ms": 0.004},
      {"kernel": "t", "protocol": "sync", "P": 2, "M": 48, "N": 4096, "t_ctrl_ms": 0.006},
      {"kernel": "other", "protocol": "sync", "P": 2, "M": 16, "N": 2048, "t_ctrl_ms": 9}
    ]}})");
  KernelFacts f = facts(1024);
  auto at = [&](long long M, long long N) {
    auto r = lookupControl(prof, f, Protocol::Sync, 2, M, N);
    if (!r)
      FAIL(llvm::toString(r.takeError()));
    return *r;
  };
  CtrlLookup exact = at(16, 4096);
  CHECK(exact.ms == Approx(0.003));
  CHECK(exact.source == "measured");
  CtrlLookup midN = at(16, 2048); // log2: halfway between 1024 and 4096
  CHECK(midN.ms == Approx(0.002));
  CHECK(midN.source == "interpolated");
  CtrlLookup midM = at(32, 1024); // linear in M between 16 and 48
  CHECK(midM.ms == Approx(0.0025));
  CHECK(midM.source == "interpolated");
  CHECK(at(32, 2048).ms == Approx(0.0035));
  CtrlLookup wideN = at(16, 65536); // clamped to the widest measured N
  CHECK(wideN.ms == Approx(0.003));
  CHECK(wideN.source == "extrapolated");
  CHECK_THAT(wideN.detail, Contains("N clamped to 4096"));
  CtrlLookup manyM = at(96, 1024); // proportional to M beyond the measured rows
  CHECK(manyM.ms == Approx(0.008));
  CHECK(manyM.source == "extrapolated");
  CHECK(at(8, 1024).ms == Approx(0.0005));

  auto none = lookupControl(prof, f, Protocol::Mbarrier, 2, 16, 1024);
  REQUIRE(!none);
  CHECK_THAT(llvm::toString(none.takeError()),
             Contains("no T_ctrl for kernel 't', mbarrier protocol, P = 2"));

  // A control measured with another footprint is refused, not silently used.
  DeviceProfile other = profile();
  KernelFacts wider = facts(1024);
  wider.geometry.threads = 512;
  auto mismatch = lookupControl(other, wider, Protocol::Mbarrier, 2, 16, 1024);
  REQUIRE(!mismatch);
  CHECK_THAT(llvm::toString(mismatch.takeError()), Contains("512 threads"));
}

TEST_CASE("profile validation names the key", "[model]") {
  auto without = [](const std::string &needle, const std::string &with) {
    std::string t = kProfile;
    size_t at = t.find(needle);
    REQUIRE(at != std::string::npos);
    t.replace(at, needle.size(), with);
    return t;
  };
  CHECK(profileError(without("\"sms\": 8, ", "")) == "bad.json: key 'device.sms': missing");
  CHECK(profileError(without("\"sms\": 8", "\"sms\": \"8\"")) ==
        "bad.json: key 'device.sms': expected an integer, got a string");
  CHECK(profileError(without("\"sm_clock_MHz\": 1000", "\"sm_clock_MHz\": 0")) ==
        "bad.json: key 'device.sm_clock_MHz': must be positive, got 0");
  CHECK(profileError(without("\"smem_read\": 100", "\"smem_read\": null")) ==
        "bad.json: key 'rates_Bpc.smem_read': expected a number, got null");
  CHECK(profileError(without("\"smem_write\": 50,", "")) ==
        "bad.json: key 'rates_Bpc.smem_write': missing");
  CHECK(profileError(without("{\"2\": 4, \"4\": 4,", "{\"3\": 4, \"4\": 4,")) ==
        "bad.json: key 'rates_Bpc.dsmem_store.3': cluster sizes are \"2\", \"4\", \"8\" or \"16\"");
  CHECK(profileError(without("\"protocol\": \"sync\", \"P\": 4", "\"protocol\": \"async\", \"P\": 4")) ==
        "bad.json: key 'control.entries[1].protocol': expected \"sync\" or \"mbarrier\", got "
        "\"async\"");
  CHECK(profileError(without("\"P\": 4", "\"P\": 3")) ==
        "bad.json: key 'control.entries[1].P': must be 2, 4, 8 or 16, got 3");
  CHECK(profileError(without("\"t_ctrl_ms\": 0.002", "\"t_ctrl_ms\": [1]")) ==
        "bad.json: key 'control.entries[1].t_ctrl_ms': expected a number, got an array");
  CHECK(profileError(without("\"q_sum\": 2, ", "")) ==
        "bad.json: key 'control.entries[2].geometry.q_sum': missing");
  CHECK(profileError(without("\"credit-device-profile\"", "\"something-else\"")) ==
        "bad.json: key 'schema': expected \"credit-device-profile\", got \"something-else\"");
  CHECK(profileError(without("\"version\": 1", "\"version\": 2")) ==
        "bad.json: key 'version': must be in [1, 1], got 2");
  // Malformed JSON: located.
  CHECK_THAT(profileError("{\n  \"schema\": \"credit-device-profile\",\n  \"version\" 1\n}"),
             Contains("bad.json:3:13: invalid JSON: "));
  CHECK(profileError("[1, 2]") == "bad.json: the profile must be a JSON object");
  // Unknown keys are allowed (the calibration writes more than the model reads).
  CHECK(profile().control.size() == 3);
  // The SMEM sizes are optional (0: absent) and checked when present.
  CHECK(profile().smemPerSmBytes == 0);
  const std::string withSmem = without("\"sm_clock_MHz\": 1000",
                                       "\"sm_clock_MHz\": 1000, \"smem_per_sm_bytes\": 233472, "
                                       "\"smem_per_block_optin_bytes\": 232448");
  CHECK(profile(withSmem).smemPerSmBytes == 233472);
  CHECK(profile(withSmem).smemOptinBytes == 232448);
  CHECK(profileError(without("\"sm_clock_MHz\": 1000", "\"sm_clock_MHz\": 1000, \"smem_per_sm_bytes\": 0")) ==
        "bad.json: key 'device.smem_per_sm_bytes': must be in [1, 1099511627776], got 0");
}

TEST_CASE("the occupancy note where the staged kernel fills an SM", "[model]") {
  auto withSmem = [](long long perSm) {
    std::string t = kProfile;
    const std::string needle = "\"sm_clock_MHz\": 1000";
    t.replace(t.find(needle), needle.size(),
              needle + ", \"smem_per_sm_bytes\": " + std::to_string(perSm) +
                  ", \"smem_per_block_optin_bytes\": 232448");
    return profile(t);
  };
  auto hasNote = [](const Prediction &p) {
    return std::any_of(p.notes.begin(), p.notes.end(),
                       [](const std::string &n) { return n.find("one CTA per SM") != std::string::npos; });
  };
  // Layernorm-like, keep 4 B: 32768 elements are 128 KiB of row, one CTA per
  // SM of 233472 B (the 512-thread twin); 16384 (64 KiB) leaves room for three.
  CHECK(hasNote(run(facts(32768), withSmem(233472), 16, 32768, 0.1, BaselineKind::Staged)));
  CHECK(!hasNote(run(facts(16384), withSmem(233472), 16, 16384, 0.1, BaselineKind::Staged)));
  // Without the SMEM sizes in the profile, or against the reread kernel: no note.
  CHECK(!hasNote(run(facts(32768), profile(), 16, 32768, 0.1, BaselineKind::Staged)));
  CHECK(!hasNote(run(facts(32768), withSmem(233472), 16, 32768, 0.1, BaselineKind::Reread)));
}

TEST_CASE("the partial-retention and persistent-form notes where the launcher runs those forms", "[model]") {
  std::string t = kProfile;
  const std::string needle = "\"sm_clock_MHz\": 1000";
  t.replace(t.find(needle), needle.size(),
            needle + ", \"smem_per_sm_bytes\": 233472, \"smem_per_block_optin_bytes\": 232448");
  const DeviceProfile withSmem = profile(t);
  // Two kept inputs (keep 8; partial form keep 4). At 32768 a cluster of 2
  // holds 128 KiB per CTA (one per SM), the partial form 64 KiB (three).
  auto twoInputs = [](long long N, bool partial, bool readLate) {
    KernelFacts f = facts(N);
    f.keep = 8;
    f.geometry = {8, 2, 1, 2, 256};
    f.legality = legalityAt(f.geometry, f.target, N);
    f.hasPartialForm = partial;
    f.partialDropped = "dy";
    f.partialDroppedReadLate = readLate;
    f.partialGeometry = {4, 2, 1, 2, 256};
    return f;
  };
  auto note = [](const Prediction &p) {
    for (const std::string &n : p.notes)
      if (n.find("partial-retention") != std::string::npos)
        return n;
    return std::string();
  };
  // dy first read after the first pass: at any P where the full form fills an SM.
  CHECK_THAT(note(run(twoInputs(32768, true, true), withSmem, 16, 32768, 1.0)),
             Contains("runs the partial-retention form at P = 2 (sync, mbarrier): dy is re-read from L2"));
  // Read by the first pass: only at P = 16 (none here); P = 4 at 32768 fits three CTAs anyway.
  CHECK(note(run(twoInputs(32768, true, false), withSmem, 16, 32768, 1.0)).empty());
  CHECK(note(run(twoInputs(16384, true, true), withSmem, 16, 16384, 1.0)).empty());
  // No such form, or no SMEM sizes in the profile: no note.
  CHECK(note(run(twoInputs(32768, false, true), withSmem, 16, 32768, 1.0)).empty());
  CHECK(note(run(twoInputs(32768, true, true), profile(), 16, 32768, 1.0)).empty());

  // The persistent form (512-thread twin, slices of 8193-16384): the launcher
  // tries it first with the mbarrier protocol, so the partial form runs with
  // sync only there.
  auto persistentNote = [](const Prediction &p) {
    for (const std::string &n : p.notes)
      if (n.find("persistent form") != std::string::npos)
        return n;
    return std::string();
  };
  auto withTwin = [&](long long N, bool readLate) {
    KernelFacts f = twoInputs(N, true, readLate);
    f.hasPersistentForm = true;
    f.persistentKeptReadLate = readLate;
    f.persistentGeometry = {8, 2, 1, 2, 512};
    return f;
  };
  Prediction late = run(withTwin(32768, true), withSmem, 16, 32768, 1.0);
  CHECK_THAT(persistentNote(late), Contains("runs the persistent form at P = 2 (3 whole-slice units), mbarrier"));
  CHECK_THAT(note(late), Contains("runs the partial-retention form at P = 2 (sync): dy"));
  // Both inputs first read by the first pass: half slices, 7 units of 32 KiB.
  CHECK_THAT(persistentNote(run(withTwin(32768, false), withSmem, 16, 32768, 1.0)),
             Contains("at P = 2 (7 half-slice units)"));
  // Slices of 8192 (P = 4) hold no persistent form; an odd N no float4 rows; no
  // SMEM sizes, no rule.
  CHECK_THAT(persistentNote(late), !Contains("P = 4"));
  CHECK(persistentNote(run(withTwin(32767, true), withSmem, 16, 32767, 1.0)).empty());
  CHECK_THAT(note(run(withTwin(32767, true), withSmem, 16, 32767, 1.0)), Contains("P = 2 (sync, mbarrier)"));
  CHECK(persistentNote(run(withTwin(32768, true), profile(), 16, 32768, 1.0)).empty());
}

TEST_CASE("prediction JSON carries every term", "[model]") {
  Prediction p = run(facts(1024), profile(), 16, 1024, 0.01);
  llvm::json::Value v = predictionToJSON(p);
  const llvm::json::Object *o = v.getAsObject();
  REQUIRE(o);
  for (const char *k : {"kernel", "M", "N", "T_B_ms", "baseline", "D_base_bytes", "R_B_GBps",
                        "T_reread_saved_ms", "T_input_ms", "candidates", "chosen", "verdict"})
    CHECK(o->get(k));
  CHECK(o->getString("verdict") == "profitable");
  const llvm::json::Object *chosen = o->getObject("chosen");
  REQUIRE(chosen);
  CHECK(chosen->getString("protocol") == "mbarrier");
  CHECK(chosen->getInteger("P") == 2);
  const llvm::json::Array *cands = o->getArray("candidates");
  REQUIRE(cands);
  const llvm::json::Object *first = (*cands)[0].getAsObject();
  for (const char *k : {"W", "T_ctrl_ms", "T_replay_ms", "T_DSM_ms", "T_SMEM_w_ms",
                        "T_deposit_ms", "delta_T_ms"})
    CHECK(first->get(k));
  std::string text;
  llvm::raw_string_ostream os(text);
  printPrediction(p, os);
  CHECK_THAT(text, Contains("chosen: P = 2, mbarrier protocol"));
  CHECK_THAT(text, Contains("verdict: profitable"));
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
