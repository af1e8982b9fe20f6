// Unit tests of the dependence analysis over statistics, the recognition of a
// sum of exponentials relative to a max and of a centred sum of squares, and the
// stage plan
// (StageStructure.h), on small kernels taken through the front end with the
// stages as written.
#include "CompiledKernel.h"

#include "credit/Dialect/Credit/Transforms/StageStructure.h"
#include "credit/Driver/Pipeline.h"

#include <catch2/catch.hpp>

using namespace credit;
namespace cr = mlir::credit;

namespace {
/// The stages as written: no stage optimization, no analyses.
PipelineOptions asWritten() {
  PipelineOptions opts;
  opts.stageOpt = false;
  opts.analyze = false;
  return opts;
}
struct Written : CompiledKernel {
  explicit Written(const std::string &src) : CompiledKernel(src, asWritten()) {}
};

/// Names of statistics by index.
std::vector<std::string> names(const cr::StatisticDependences &d, llvm::ArrayRef<unsigned> idx) {
  std::vector<std::string> out;
  for (unsigned i : idx)
    out.push_back(d.statistics[i].name.str());
  return out;
}

const cr::Statistic &stat(const cr::StatisticDependences &d, llvm::StringRef name) {
  for (const cr::Statistic &s : d.statistics)
    if (s.name == name)
      return s;
  FAIL("no statistic " << name.str());
  return d.statistics.front();
}

unsigned levelOf(const cr::StagePlan &p, llvm::StringRef name) {
  for (auto [i, s] : llvm::enumerate(p.deps.statistics))
    if (s.name == name)
      return p.level[i];
  FAIL("no statistic " << name.str());
  return 0;
}
} // namespace

TEST_CASE("statistics depend on statistics through lets", "[stages]") {
  Written k(R"(kernel k { in x : f32[N] in dy : f32[N] out y : f32[N] out r : f32
      stage { a = sum(x) }
      let c = a * 2
      stage { b = sum(x - c); e = sum(dy) }
      stage { f = sum(x) / b }
      y = dy * 3
      r = f + e })");
  cr::StatisticDependences d = cr::computeStatisticDependences(k.kernel);
  REQUIRE(d.statistics.size() == 4);
  CHECK(names(d, stat(d, "a").dependsOn).empty());
  CHECK(names(d, stat(d, "b").dependsOn) == std::vector<std::string>{"a"});
  CHECK(names(d, stat(d, "e").dependsOn).empty());
  CHECK(names(d, stat(d, "f").dependsOn) == std::vector<std::string>{"b"});
  CHECK(stat(d, "f").writtenStage == 3);
  REQUIRE(d.outputs.size() == 2);
  CHECK(d.outputs[0].output.getName() == "y");
  CHECK(d.outputs[0].dependsOn.empty());
  CHECK(names(d, d.outputs[1].dependsOn) == std::vector<std::string>{"e", "f"});
}

TEST_CASE("each output of h depends on what its own expression reads", "[stages]") {
  Written k(R"(kernel k { in x : f32[N] out y : f32[N] out z : f32[N]
      stage { s = sum(x) }
      y = x * s
      z = x + 1 })");
  cr::StatisticDependences d = cr::computeStatisticDependences(k.kernel);
  REQUIRE(d.outputs.size() == 2);
  CHECK(names(d, d.outputs[0].dependsOn) == std::vector<std::string>{"s"});
  CHECK(d.outputs[1].dependsOn.empty());
}

TEST_CASE("independent stages merge; dependent ones do not", "[stages]") {
  Written k(R"(kernel k { in x : f32[N] out y : f32[N]
      stage { a = sum(x) }
      stage { b = sum(x * x) }
      stage { c = sum(x - a) }
      stage { v = sum(x * x) / N - a * a / (N * N) }
      y = x * b * c * v })");
  cr::StagePlan p = cr::planStages(k.kernel, true);
  CHECK(levelOf(p, "a") == 1);
  CHECK(levelOf(p, "b") == 1);
  CHECK(levelOf(p, "c") == 2);
  // Post-computation may use a statistic of the stage it joins.
  CHECK(levelOf(p, "v") == 1);
  CHECK(p.numStages == 2);
  CHECK(p.changesStructure());
  CHECK(p.fusions.empty());
}

TEST_CASE("a move that removes no stage is not made", "[stages]") {
  // sum(t) could join the max's stage, but s still needs a second stage: L
  // stays 2, so the stages stay as written (nothing moves).
  Written k(R"(kernel k { in x : f32[N] in t : f32[N] out y : f32[N]
      stage { m = max(x) }
      stage { s = sum(exp(x - m)); st = sum(t) }
      y = exp(x - m) / s * st - t })");
  cr::StagePlan written = cr::planStages(k.kernel, false);
  CHECK(levelOf(written, "st") == 2);
  CHECK(written.numStages == 2);
  CHECK(!written.changesStructure());
  // Fused, s joins m and L drops to 1: then st moves too.
  cr::StagePlan fused = cr::planStages(k.kernel, true);
  CHECK(fused.numStages == 1);
  CHECK(levelOf(fused, "st") == 1);
  CHECK(fused.fusions.size() == 1);
}

TEST_CASE("statistics sharing a reduction move together", "[stages]") {
  Written k(R"(kernel k { in x : f32[N] in w : f32[N] out y : f32[N]
      stage { a = sum(x) }
      stage { sw = sum(w); mu = sum(w * x) / sw + a }
      y = x * mu * sw })");
  cr::StagePlan p = cr::planStages(k.kernel, true);
  // mu's post-computation needs a (stage 1) and shares sum(w) with sw: both
  // join stage 1, where a is known after the pass.
  CHECK(levelOf(p, "sw") == 1);
  CHECK(levelOf(p, "mu") == 1);
}

TEST_CASE("a sum of exponentials relative to the max is recognised", "[stages]") {
  Written k(R"(kernel k { in x : f32[N] in w : f32[N] in t : f32 out y : f32[N]
      stage { m = max(x * t) }
      stage { s = sum(exp(x * t - m)); u = sum(w * exp(x * t - m)); v = sum(exp(x * t - m) * w) }
      stage { q = sum(exp(x - m)) }
      y = x * s * u * v * q })");
  llvm::SmallVector<cr::ReduceOp> sums;
  k.kernel.walk([&](cr::ReduceOp r) {
    if (r.getKind() == cr::ReduceKind::sum)
      sums.push_back(r);
  });
  REQUIRE(sums.size() == 4);
  auto s = cr::matchSumOfExp(sums[0]);
  REQUIRE(s);
  CHECK(!s->weight);
  auto u = cr::matchSumOfExp(sums[1]);
  REQUIRE(u);
  CHECK(u->weight);
  CHECK(u->max == s->max);
  CHECK(cr::matchSumOfExp(sums[2]));
  // The pivot differs (x, not x * t): no match.
  CHECK(!cr::matchSumOfExp(sums[3]));
  // q needs a second stage anyway, where s, u and v can go as plain sums: fused,
  // they would remove no stage, so they are not.
  cr::StagePlan kept = cr::planStages(k.kernel, true);
  CHECK(kept.fusions.empty());
  CHECK(kept.numStages == 2);
  CHECK(levelOf(kept, "s") == 2);
  CHECK(levelOf(kept, "q") == 2);

  Written k2(R"(kernel k { in x : f32[N] in w : f32[N] in t : f32 out y : f32[N]
      stage { m = max(x * t) }
      stage { s = sum(exp(x * t - m)); u = sum(w * exp(x * t - m)); v = sum(exp(x * t - m) * w) }
      y = x * s * u * v })");
  cr::StagePlan p = cr::planStages(k2.kernel, true);
  REQUIRE(p.fusions.size() == 1);
  CHECK(p.fusions[0].sums.size() == 3);
  CHECK(p.numStages == 1);
  CHECK(levelOf(p, "s") == 1);
  cr::StagePlan unfused = cr::planStages(k2.kernel, false);
  CHECK(unfused.fusions.empty());
  CHECK(levelOf(unfused, "s") == 2);
}

TEST_CASE("a fusion is made only where it removes a stage", "[stages][moments]") {
  // v joins s's stage as moments, but c needs m after stage 1 anyway and v can
  // go there as a plain sum: the fused plan has no fewer stages, so v stays.
  Written k(R"(kernel k { in x : f32[N] in w : f32[N] out y : f32[N]
      stage { s = sum(x) }
      let m = s / N
      stage { v = sum((x - m) * (x - m)) ; c = sum(w * (x - m)) }
      y = (x - m) * v * c })");
  cr::StagePlan p = cr::planStages(k.kernel, false, true);
  CHECK(p.moments.empty());
  CHECK(p.numStages == 2);
  CHECK(levelOf(p, "v") == 2);
  // Without c, the fusion removes stage 2.
  Written k2(R"(kernel k { in x : f32[N] in w : f32[N] out y : f32[N]
      stage { s = sum(x) }
      let m = s / N
      stage { v = sum((x - m) * (x - m)) }
      y = (x - m) * v * w })");
  cr::StagePlan p2 = cr::planStages(k2.kernel, false, true);
  CHECK(p2.moments.size() == 1);
  CHECK(p2.numStages == 1);
}

TEST_CASE("no fusion where the sum would delay the max", "[stages]") {
  // u's weight a is known after stage 1 only, where the max runs.
  Written k(R"(kernel k { in x : f32[N] out y : f32[N]
      stage { a = sum(x) ; m = max(x) }
      stage { u = sum(a * exp(x - m)) }
      y = x * u })");
  cr::StagePlan p = cr::planStages(k.kernel, true);
  CHECK(p.fusions.empty());
  CHECK(levelOf(p, "u") == 2);
  CHECK(!p.changesStructure());
}

TEST_CASE("m must be exactly the max", "[stages]") {
  Written k(R"(kernel k { in x : f32[N] out y : f32[N]
      stage { m = max(x) * 2 ; n = min(x) }
      stage { s = sum(exp(x - m)); r = sum(exp(x - n)) }
      y = x * s * r })");
  k.kernel.walk([&](cr::ReduceOp r) {
    if (r.getKind() == cr::ReduceKind::sum)
      CHECK(!cr::matchSumOfExp(r));
  });
}

TEST_CASE("a centred sum of squares around its own mean is recognised", "[stages][moments]") {
  Written k(R"(kernel k { in x : f32[N] in r : f32[N] in w : f32[N] out y : f32[N]
      stage { m = sum(x + r) / N; h = sum(x) / 2 }
      stage { v = sum((x + r - m) * (x + r - m)); c = sum((m - (x + r)) * (m - (x + r))) }
      stage { o = sum((x * w - m) * (x * w - m)); t = sum((x - h) * (x - h)); u = sum(w * (x + r - m) * (x + r - m)) }
      y = x * v * c * o * t * u })");
  llvm::SmallVector<cr::ReduceOp> sums;
  k.kernel.walk([&](cr::ReduceOp r) { sums.push_back(r); });
  REQUIRE(sums.size() == 7);
  auto v = cr::matchCentredSquares(sums[2]);
  REQUIRE(v);
  CHECK(v->sum == sums[0]);
  CHECK(v->meanOperand < sums[2]->getNumOperands());
  // (c - e) squares the same.
  auto c = cr::matchCentredSquares(sums[3]);
  REQUIRE(c);
  CHECK(c->sum == sums[0]);
  // Another term (x * w around the mean of x + r), a c that is not a mean over N,
  // a weighted square: no match.
  CHECK(!cr::matchCentredSquares(sums[4]));
  CHECK(!cr::matchCentredSquares(sums[5]));
  CHECK(!cr::matchCentredSquares(sums[6]));
  CHECK(!cr::matchCentredSquares(sums[0]));
}

TEST_CASE("moments fuse where they remove a stage, and only with fuseMoments", "[stages][moments]") {
  Written k(R"(kernel k { in x : f32[N] out y : f32[N] out sd : f32
      stage { s = sum(x) }
      let mean = s / N
      stage { ss = sum((x - mean) * (x - mean)) }
      y = (x - mean) * ss
      sd = sqrt(ss / N) })");
  cr::StagePlan written = cr::planStages(k.kernel, true);
  CHECK(written.moments.empty());
  CHECK(written.numStages == 2);
  cr::StagePlan fused = cr::planStages(k.kernel, true, true);
  REQUIRE(fused.moments.size() == 1);
  CHECK(fused.numStages == 1);
  CHECK(levelOf(fused, "ss") == 1);
  CHECK(fused.momentsOf(cr::ReduceOp(fused.moments[0].sum).getOperation()));
  CHECK(fused.fusedSquares(cr::ReduceOp(fused.moments[0].squares).getOperation()));
}

TEST_CASE("no moments fusion where the stage must stay", "[stages][moments]") {
  // The square's stage also sums a term that needs the mean: the stage stays, so
  // fusing would remove none.
  Written k(R"(kernel k { in x : f32[N] in y2 : f32[N] out y : f32[N]
      stage { m = sum(x) / N; n = sum(y2) / N }
      stage { v = sum((x - m) * (x - m)); cov = sum((x - m) * (y2 - n)) }
      y = x * v * cov })");
  cr::StagePlan p = cr::planStages(k.kernel, true, true);
  CHECK(p.moments.empty());
  CHECK(p.numStages == 2);
}
