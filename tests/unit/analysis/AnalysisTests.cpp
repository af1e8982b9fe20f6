// Unit tests of the analyses (pass access, traffic, barriers, legality,
// classification) on small kernels taken through the real front end.
#include "CompiledKernel.h"

#include "credit/Dialect/Credit/Transforms/Analyses.h"
#include "credit/Driver/Pipeline.h"
#include "credit/Report/Report.h"

#include "llvm/Support/raw_ostream.h"

#include <catch2/catch.hpp>

using namespace credit;
namespace cr = mlir::credit;

namespace {
PipelineOptions options(long long N, bool online) {
  PipelineOptions opts;
  opts.N = N;
  opts.onlineStatistics = online;
  return opts;
}
struct Compiled : CompiledKernel {
  explicit Compiled(const std::string &src, long long N = 0, bool online = true)
      : CompiledKernel(src, options(N, online)) {}
};

std::vector<std::string> names(llvm::ArrayRef<cr::InputOp> ins) {
  std::vector<std::string> out;
  for (auto in : ins)
    out.push_back(in.getName().str());
  return out;
}
} // namespace

TEST_CASE("pass access follows the dataflow", "[analysis]") {
  // The stage's region receives dy, but the reduction never uses it: after
  // canonicalization only x is read by stage 1.
  Compiled k(R"(kernel k { in x : f32[N] in dy : f32[N] out y : f32[N]
      let unused = dy * 2
      stage { s = sum(x) }
      y = dy * s })");
  auto passes = cr::computePassAccess(k.kernel);
  REQUIRE(passes.size() == 2);
  CHECK(passes[0].name == "stage 1");
  CHECK(names(passes[0].rowInputs) == std::vector<std::string>{"x"});
  CHECK(passes[1].name == "h");
  CHECK(names(passes[1].rowInputs) == std::vector<std::string>{"dy"});
  auto t = cr::computeTraffic(k.kernel);
  CHECK(t.reread == 0);
  CHECK(cr::classify(k.kernel).category == "one-pass");
}

TEST_CASE("traffic of softmax_logits_bwd", "[analysis]") {
  const char *src = R"(kernel s { in x : f32[N] in dy : f32[N] out dx : f32[N]
      stage { m = max(x) } stage { s = sum(exp(x - m)) } stage { d = sum(dy * exp(x - m) / s) }
      let p = exp(x - m) / s
      dx = p * (dy - d) })";
  // m and s: one online statistic.
  Compiled fused(src);
  auto f = cr::computeTraffic(fused.kernel);
  // Passes: x | x, dy | x, dy; output dx.
  CHECK(f.L == 2);
  CHECK(f.q == llvm::SmallVector<int>{2, 1});
  CHECK(f.baseline == 4 + 8 + 8 + 4);
  CHECK(f.cluster == 8 + 4);
  CHECK(f.reread == 12);
  CHECK(f.keep == 8);
  CHECK(f.ceiling == Approx(24.0 / 12.0));
  CHECK(cr::computeBarriers(fused.kernel).sync == 4);
  // The max and sum-of-exp stages apart.
  Compiled k(src, 0, /*online=*/false);
  auto t = cr::computeTraffic(k.kernel);
  // Passes: x | x | x, dy | x, dy; output dx.
  CHECK(t.L == 3);
  CHECK(t.q == llvm::SmallVector<int>{1, 1, 1});
  CHECK(t.baseline == 4 + 4 + 8 + 8 + 4);
  CHECK(t.cluster == 8 + 4);
  CHECK(t.reread == 16);
  CHECK(t.keep == 8);
  CHECK(t.ceiling == Approx(28.0 / 12.0));
  auto K = cr::computeBarriers(k.kernel);
  CHECK(K.sync == 6);
  CHECK(K.mbarrier == 1);
  CHECK(cr::classify(k.kernel).category == "accepted");
}

TEST_CASE("identical reductions in a stage count once (CSE)", "[analysis]") {
  Compiled k(R"(kernel k { in x : f32[N] out y : f32[N]
      stage { a = sum(x * x) b = sqrt(sum(x * x)) c = max(x) }
      y = x * a / b + c })");
  auto t = cr::computeTraffic(k.kernel);
  CHECK(t.q == llvm::SmallVector<int>{2});
}

TEST_CASE("a dead stage disappears: elementwise", "[analysis]") {
  Compiled k(R"(kernel k { in x : f32[N] out y : f32[N]
      stage { s = sum(x) }
      y = x * 2 })");
  auto t = cr::computeTraffic(k.kernel);
  CHECK(t.L == 0);
  CHECK(cr::classify(k.kernel).category == "elementwise");
}

TEST_CASE("broadcast vectors and per-row values are fixed traffic", "[analysis]") {
  Compiled k(R"(kernel k { in x : f32[N] in g : f32[N] broadcast in s : f32
      out y : f32[N] out r : f32
      stage { m = sum(x * g) } stage { v = sum(x * x * m) }
      y = x * g * m + s
      r = v })");
  auto t = cr::computeTraffic(k.kernel);
  CHECK(t.baseline == 4 * 3 + 4);
  CHECK(t.cluster == 4 + 4);
  CHECK(t.fixedBroadcastPerElement == 8); // g read by stage 1 and by h
  CHECK(t.fixedPerRow == 8);              // s read, r written
}

TEST_CASE("a sum that one column decides is a pick; near misses are not", "[analysis]") {
  Compiled k(R"(kernel k { in x : bf16[N] in y : bf16[N] in t : i64 out o : f32
      stage { m = max(x) }
      stage { a = sum(where(i == t, y, 0)) b = sum(where(i == m, x, 0)) c = sum(where(i == t, x, -0.0))
              d = sum(where(i < t, x, 0)) e = max(where(i == t, x, 0)) f = sum(where(i == x, x, 0)) }
      o = a + b + c + d + e + f })",
             0, false);
  std::vector<bool> picks;
  k.kernel.walk([&](cr::ReduceOp r) { picks.push_back(cr::matchIndexedPick(r).has_value()); });
  // m's max, then a (a per-row input's column) and b (an earlier statistic's) pick;
  // c (-0 otherwise), d (<), e (max) and f (the element's own value) do not.
  CHECK(picks == std::vector<bool>{false, true, true, false, false, false, false});
  // y is read only by a pick: no pass streams it, its element is per-row traffic.
  auto passes = cr::computePassAccess(k.kernel);
  REQUIRE(passes.size() == 2);
  CHECK(names(passes[1].rowInputs) == std::vector<std::string>{"x"});
  CHECK(names(passes[1].pickedInputs) == std::vector<std::string>{"y", "x"});
  auto t = cr::computeTraffic(k.kernel);
  CHECK(t.cluster == 2);
  CHECK(t.fixedPerRow == 8 + 4 + 2 + 2);  // t, o, y[t], x[m]
}

TEST_CASE("16-bit element data: every floating-point per-element operand bf16 or f16", "[analysis]") {
  CHECK(cr::hasHalfPrecisionElementData(
      Compiled(R"(kernel k { in x : bf16[N] in t : i64 in keep : bool[N] out y : f16[N] out l : f32
          stage { s = sum(x) } y = where(keep, x / s, 0) l = s + t })").kernel));
  CHECK_FALSE(cr::hasHalfPrecisionElementData(
      Compiled(R"(kernel k { in x : bf16[N] in g : f32[N] broadcast out y : bf16[N]
          stage { s = sum(x) } y = x * g / s })").kernel));
  CHECK_FALSE(cr::hasHalfPrecisionElementData(
      Compiled(R"(kernel k { in x : f32[N] out y : bf16[N] stage { s = sum(x) } y = x / s })").kernel));
  CHECK_FALSE(cr::hasHalfPrecisionElementData(
      Compiled(R"(kernel k { in q : i8[N] out y : i8[N] stage { s = max(q) } y = i8(q - s) })").kernel));
}

TEST_CASE("a compilation without a stream keeps its diagnostics until taken", "[analysis]") {
  Compilation c(llvm::MemoryBuffer::getMemBufferCopy("kernel k { in x : f32[N] out y : f32 y = z }", "t.credit"));
  CHECK(c.run(PipelineOptions{}) == Compilation::UserError);
  std::string d = c.takeDiagnostics();
  CHECK(d.find("t.credit:1:") != std::string::npos);
  CHECK(d.find("error:") != std::string::npos);
  CHECK(c.takeDiagnostics().empty());
}

TEST_CASE("i8 outputs are one byte per element", "[analysis]") {
  Compiled k(R"(kernel q { in x : f32[N] out q : i8[N] out scale : f32
      stage { amax = max(abs(x)) }
      let s = max(amax, 1e-12) / 127
      scale = s
      q = i8(clamp(round(x / s), -127, 127)) })");
  auto t = cr::computeTraffic(k.kernel);
  CHECK(t.baseline == 9);
  CHECK(t.cluster == 5);
}

TEST_CASE("structural rejections take precedence, first in source order", "[analysis]") {
  Compiled k(R"(kernel k { in x : f32[N] out y : f32[N]
      stage { t = median(x) }
      y = scan_sum(x) - t + x[i-1] })");
  auto c = cr::classify(k.kernel);
  CHECK(c.category == "selection");
  Compiled k2(R"(kernel k { in x : f32[N] out y : f32[N]
      stage { t = sum(x) }
      y = x[i+2] / t + scan_max(x) })");
  CHECK(cr::classify(k2.kernel).category == "stencil");
}

TEST_CASE("legality agrees with the layout rule", "[analysis]") {
  Compiled k(R"(kernel k { in x : f32[N] out y : f32[N]
      stage { m = sum(x) / N } stage { v = sum((x - m) * (x - m)) }
      y = (x - m) / v })",
             65536);
  ::credit::TargetInfo sm90 = ::credit::findTarget("sm_90");
  auto rows = cr::computeLegality(k.kernel, sm90, 65536);
  REQUIRE(rows.size() == 5);
  CHECK(rows[0].P == 1);
  CHECK_FALSE(rows[0].legalAtN); // 256 KiB of x does not fit one CTA
  for (size_t i = 1; i < rows.size(); ++i)
    CHECK(rows[i].legalAtN);
  CHECK_FALSE(rows[4].portable);
  for (const auto &r : rows) {
    // max N is legal, the next slice step is not.
    auto g = cr::computeGeometry(k.kernel);
    CHECK(::credit::smemBytes(g, r.maxN, r.P, ::credit::Protocol::Sync) <= sm90.smemOptinBytes);
    CHECK(::credit::smemBytes(g, r.maxN + 1, r.P, ::credit::Protocol::Sync) > sm90.smemOptinBytes);
  }
  ::credit::TargetInfo sm120 = ::credit::findTarget("sm_120");
  CHECK(cr::computeLegality(k.kernel, sm120, 65536).size() == 4); // no 16 on sm_120
}

TEST_CASE("the report reads back what the passes recorded", "[analysis][report]") {
  Compiled k(R"(kernel k { in x : f32[N] out y : f32[N]
      stage { m = max(x) } y = x - m })",
             4096);
  Report r = buildReport(k.kernel);
  CHECK(r.accepted);
  CHECK(r.L == 1);
  CHECK(r.baseline == 12);
  CHECK(r.cluster == 8);
  CHECK(r.Ksync == 2);
  CHECK(r.N.value_or(0) == 4096);
  std::string json;
  llvm::raw_string_ostream os(json);
  os << reportToJSON(r);
  os.flush();
  CHECK(json.find("\"bytes_per_element\":{\"baseline\":12,\"cluster\":8,\"keep\":4,\"reread\":4}") !=
        std::string::npos);
}
