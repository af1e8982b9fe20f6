// Dispatch.h without a GPU: the first-use policy (mode, stream capture, what is
// recorded), the decision cache per device and shape, and the model's decision
// from a device profile for a workload no profile was measured for.
#include "credit/runtime/Dispatch.h"

#include <catch2/catch.hpp>

#include <cstdlib>

using namespace credit;
using credit::device::Elem;
using credit::device::Kind;
using credit::device::Operand;
using credit::device::Reduce;

namespace {

// A two-stage row normalisation written for this test: one kept input, one
// broadcast input read by h only.
struct Norm {
  static constexpr int kStages = 2;
  static constexpr int kQ[kStages] = {1, 1};
  static constexpr Reduce kReduce[] = {Reduce::Sum, Reduce::Sum};
  static constexpr Operand kInputs[] = {{Kind::Row, Elem::F32}, {Kind::Broadcast, Elem::F32}};
  static constexpr Operand kOutputs[] = {{Kind::Row, Elem::F32}};
  static constexpr unsigned kReads[kStages + 1] = {0b01, 0b01, 0b11};
  static constexpr int kNumKept = 1;
  static constexpr int kKept[kNumKept] = {0};
  static constexpr int kSmemSlot[kNumKept] = {0};
  static constexpr int kMaterialize[kNumKept] = {-1};
  static constexpr int kPartialDrop = -1;
  static constexpr bool kPartialDropReadLate = false;
  static constexpr unsigned kHoisted = 0b10;
  static constexpr unsigned kPrefetchL2 = 0b00;
  static constexpr int kThreads = 256, kWideThreads = 512;
  static constexpr bool kFastMath = false;
};

void fake() {}

const host::Kernel kKernels[] = {
    {Form::ClusterSync, 4, host::kernel(fake)},     {Form::ClusterMbarrier, 4, host::kernel(fake)},
    {Form::ClusterWideSync, 4, host::kernel(fake)}, {Form::ClusterWideMbarrier, 4, host::kernel(fake)},
    {Form::Staged, 4, host::kernel(fake)},          {Form::Reread, 4, host::kernel(fake)},
};

// An H200-like device: 132 SMs, the control grid of a synthetic profile.
host::Profile profile(double copyGBps) {
  host::Profile p{};
  model::Device& d = p.device;
  d.sms = 132;
  d.smClockMHz = 1980;
  d.smemPerSm = 233472;
  d.smemOptin = 232448;
  d.maxThreadsPerSm = 2048;
  d.maxCtasPerSm = 32;
  d.smemReadBpc = 120;
  d.smemWriteBpc = 120;
  for (int proto = 0; proto < 2; ++proto)
    for (int l = 0; l < model::kNumClusterSizes; ++l) {
      d.dsmStoreBpc[proto][l] = l ? 8.0 : 0.0;
      d.grid[proto][l] = model::GridCost{3.0, 400.0, 300.0 * (l + 1), 400.0, 100.0};
      d.gridMeasured[proto][l] = true;
    }
  d.copyBytesPerMs = copyGBps * 1e6;
  p.traffic = model::Traffic{12, 8, 4, 4, 0, 2};  // b_B, b_reread, b_keep, D_fixed, per row, sum q
  return p;
}

}  // namespace

TEST_CASE("first use: the mode, stream capture and what is recorded", "[dispatch]") {
  using host::FirstUse;
  CHECK(host::parseMode(nullptr) == host::kModeMeasure);
  CHECK(host::parseMode("predict") == host::kModeModel);
  CHECK(host::parseMode("model") == host::kModeModel);
  CHECK(host::parseMode("measure") == host::kModeMeasure);
  CHECK(host::parseMode("autotune") == host::kModeAutotune);
  CHECK(host::parseMode("AUTOTUNE") == host::kModeMeasure);  // unrecognised: the default
  CHECK(host::parseMode("") == host::kModeMeasure);
  // Under capture nothing is timed, whatever the mode, and nothing is recorded.
  for (int mode : {host::kModeModel, host::kModeMeasure, host::kModeAutotune}) {
    CHECK(host::firstUse(mode, true) == FirstUse::Predict);
    CHECK(!host::recordsDecision(true));
  }
  CHECK(host::recordsDecision(false));
  CHECK(host::firstUse(host::kModeModel, false) == FirstUse::Predict);
  CHECK(host::firstUse(host::kModeMeasure, false) == FirstUse::Measure);
  CHECK(host::firstUse(host::kModeAutotune, false) == FirstUse::Autotune);
  // Bounded: 7 timings of 6 launches in measure mode, 14 in autotune, none predicting.
  CHECK(host::firstUseLaunchBound(FirstUse::Predict) == 0);
  CHECK(host::firstUseLaunchBound(FirstUse::Measure) == 54);
  CHECK(host::firstUseLaunchBound(FirstUse::Autotune) == 84);
}

TEST_CASE("the decision cache: per device and shape, bounded", "[dispatch]") {
  host::PlanCache cache;
  credit_plan p{}, out{};
  CHECK(!cache.lookup(0, 4096, 65536, &out));
  p.variant = 2;
  p.P = 4;
  cache.store(0, 4096, 65536, p);
  REQUIRE(cache.lookup(0, 4096, 65536, &out));
  CHECK(out.P == 4);
  CHECK(!cache.lookup(1, 4096, 65536, &out));  // another device decides again
  CHECK(!cache.lookup(0, 4096, 65537, &out));  // another shape too
  p.P = 8;
  cache.store(0, 4096, 65536, p);  // replaces, does not add
  REQUIRE(cache.lookup(0, 4096, 65536, &out));
  CHECK(out.P == 8);
  for (long long m = 1; m <= 64; ++m) cache.store(0, m, 7, p);  // 64 more: the oldest goes
  CHECK(!cache.lookup(0, 4096, 65536, &out));
  CHECK(cache.lookup(0, 64, 7, &out));
  cache.clear();
  CHECK(!cache.lookup(0, 64, 7, &out));
}

TEST_CASE("the mode: CREDIT_DISPATCH until set for the process", "[dispatch]") {
  ::setenv("CREDIT_DISPATCH", "predict", 1);
  host::PlanCache cache;
  CHECK(cache.mode() == host::kModeModel);
  ::setenv("CREDIT_DISPATCH", "autotune", 1);
  CHECK(cache.mode() == host::kModeModel);  // read once
  const host::Workload w = host::describe<Norm>(kKernels, nullptr, findTarget("sm_90"));
  const host::Profile prof = profile(4000);
  const host::Dispatch d{&w, &prof, &cache};
  CHECK(host::setMode(d, host::kModeAutotune) == host::kModeModel);
  CHECK(cache.mode() == host::kModeAutotune);
  CHECK(host::setMode(d, 7) == -2);  // refused, nothing changes
  CHECK(cache.mode() == host::kModeAutotune);
  CHECK(host::setMode(d, host::kModeFromEnvironment) == host::kModeAutotune);
  CHECK(cache.mode() == host::kModeAutotune);  // the environment's, read again
  ::unsetenv("CREDIT_DISPATCH");
}

TEST_CASE("the model's decision for a workload no profile was measured for", "[dispatch]") {
  host::PlanCache cache;
  const host::Workload w = host::describe<Norm>(kKernels, nullptr, findTarget("sm_90"));
  const host::Profile prof = profile(4000);
  const host::Dispatch d{&w, &prof, &cache};
  const long long optin = 232448, perSm = 233472;
  // Wide rows: the reread baseline, a cluster saves its reread.
  const credit_plan wide = host::predictedPlan(d, 4096, 65536, perSm, optin);
  CHECK(wide.baseline == 0);
  CHECK(wide.evaluated == 1);
  CHECK(wide.variant == 2);
  CHECK(wide.P >= 2);
  CHECK(wide.deltaT_ms > 0);
  // T_B predicted: 4096 x 65536 x (12 + 4) B at 4000 GB/s.
  CHECK(wide.tB_ms == Approx(4096.0 * 65536 * 16 / 4e9));
  // Narrow rows: the staged kernel reads everything once; it stays.
  const credit_plan narrow = host::predictedPlan(d, 4096, 4096, perSm, optin);
  CHECK(narrow.baseline == 1);
  CHECK(narrow.variant == 1);
  // From a measured T_B: the same ranking; a very fast baseline keeps the baseline.
  const credit_plan fast = host::planFor(d, 4096, 65536, 1e-6, optin, nullptr, perSm);
  CHECK(fast.variant == 0);
  // No copy rate in the profile: nothing to predict T_B from, the baseline runs (fallback).
  const host::Profile bare = profile(0);
  const host::Dispatch b{&w, &bare, &cache};
  const credit_plan none = host::predictedPlan(b, 4096, 65536, perSm, optin);
  CHECK(none.source == 2);
  CHECK(none.variant == 0);
}

TEST_CASE("a reread kernel with its own stages: what a kept row saves against it", "[dispatch]") {
  // The kept-row kernels replay 8 B/element; the reread kernel, one pass fewer (an
  // online statistic), moves 8 B/element and re-reads 4 of them.
  model::Traffic t{12, 8, 4, 4, 0, 2};
  CHECK(model::baselineRereadBytes(t) == 8);
  CHECK(model::compulsoryBytes(t) == 4);
  model::Traffic online = t;
  online.baseline = 8;
  online.baselineReread = 4;
  CHECK(model::baselineRereadBytes(online) == 4);
  CHECK(model::compulsoryBytes(online) == 4);  // the staged kernel moves the same bytes
  // Against the reread kernel (T_B 1 ms, M x N = 2^28): D_base and T_saved follow its stages.
  const model::BaselineTerms a = model::baselineTerms(t, 4096, 65536, 1.0, false);
  const model::BaselineTerms b = model::baselineTerms(online, 4096, 65536, 1.0, false);
  CHECK(a.dBaseBytes == Approx(4096.0 * 65536 * 16));
  CHECK(b.dBaseBytes == Approx(4096.0 * 65536 * 12));
  CHECK(a.tRereadSaved == Approx(0.5));
  CHECK(b.tRereadSaved == Approx(1.0 / 3.0));
  // Against the staged kernel: the same compulsory bytes, nothing saved.
  CHECK(model::baselineTerms(online, 4096, 4096, 1.0, true).dBaseBytes ==
        Approx(model::baselineTerms(t, 4096, 4096, 1.0, true).dBaseBytes));
  // The dispatch predicts T_B of the reread kernel from its own bytes.
  host::PlanCache cache;
  const host::Workload w = host::describe<Norm>(kKernels, nullptr, findTarget("sm_90"));
  host::Profile prof = profile(4000);
  prof.traffic = online;
  const host::Dispatch d{&w, &prof, &cache};
  const credit_plan wide = host::predictedPlan(d, 4096, 65536, 233472, 232448);
  CHECK(wide.baseline == 0);
  CHECK(wide.tB_ms == Approx(4096.0 * 65536 * 12 / 4e9));
}
