// Unit tests of credit.stage_opt and credit.moments_available (StageOptRecord.h):
// what credit-merge-stages records reads back as written, and a hand-written or
// partial attribute reads without a crash.
#include "CompiledKernel.h"

#include "credit/Dialect/Credit/IR/StageOptRecord.h"
#include "credit/Driver/Pipeline.h"

#include "mlir/IR/Builders.h"

#include <catch2/catch.hpp>

using namespace credit;
namespace cr = mlir::credit;

namespace {
PipelineOptions options(bool online, bool moments) {
  PipelineOptions opts;
  opts.onlineStatistics = online;
  opts.fuseMoments = moments;
  return opts;
}
struct Compiled : CompiledKernel {
  Compiled(const std::string &src, bool online, bool moments) : CompiledKernel(src, options(online, moments)) {}
};

unsigned lineOf(mlir::LocationAttr l) {
  auto flc = l ? llvm::dyn_cast<mlir::FileLineColLoc>(l) : mlir::FileLineColLoc();
  return flc ? flc.getLine() : 0;
}

// A softmax-like row whose third stage's statistic depends on nothing: it moves
// to stage 1, and the max / sum-of-exp pair fuses.
const char *kOnline = R"(kernel k { in x : f32[N] out y : f32[N] out r : f32
  stage { m = max(x) }
  stage { s = sum(exp(x - m)) }
  stage { a = sum(x * x) }
  y = exp(x - m) / s
  r = a })";
} // namespace

TEST_CASE("merge-stages records what it moved and fused, and it reads back", "[stage_opt]") {
  Compiled k(kOnline, /*online=*/true, /*moments=*/false);
  std::optional<cr::StageOptRecord> r = cr::readStageOpt(k.kernel);
  REQUIRE(r);
  CHECK(r->asWritten.L == 3);
  CHECK(r->asWritten.q == std::vector<int64_t>{1, 1, 1});
  CHECK(r->asWritten.reread > 0);
  CHECK(r->asWritten.kept == std::vector<std::string>{"x"});
  // a moves to the first stage; s, fused with m, moves there too.
  REQUIRE(r->moved.size() == 2);
  CHECK(r->moved[0].statistic == "s");
  CHECK(r->moved[0].from == 2);
  CHECK(r->moved[0].to == 1);
  CHECK(r->moved[1].statistic == "a");
  CHECK(r->moved[1].from == 3);
  CHECK(r->moved[1].to == 1);
  CHECK(lineOf(r->moved[1].location) == 4);
  REQUIRE(r->fused.size() == 1);
  CHECK(r->fused[0].kind == cr::StageOptRecord::Fusion::Kind::Online);
  CHECK(r->fused[0].anchor == "m");
  CHECK(r->fused[0].sums == std::vector<std::string>{"s"});
  CHECK(lineOf(r->fused[0].location) == 2);
  REQUIRE(r->fused[0].sumLocations.size() == 1);
  CHECK(lineOf(r->fused[0].sumLocations[0]) == 3);
  CHECK(!cr::readMomentsAvailable(k.kernel));

  // Written again from what was read, it is the same attribute.
  mlir::Attribute before = k.kernel->getAttr("credit.stage_opt");
  cr::writeStageOpt(k.kernel, *r);
  CHECK(k.kernel->getAttr("credit.stage_opt") == before);
}

TEST_CASE("a moments fusion reads back as a sum and its centred squares", "[stage_opt]") {
  const char *src = R"(kernel k { in x : f32[N] out y : f32[N]
  stage { mu = sum(x) / N }
  stage { v = sum((x - mu) * (x - mu)) / N }
  y = (x - mu) * rsqrt(v + 1e-5) })";
  {
    Compiled fused(src, false, /*moments=*/true);
    std::optional<cr::StageOptRecord> r = cr::readStageOpt(fused.kernel);
    REQUIRE(r);
    REQUIRE(r->fused.size() == 1);
    CHECK(r->fused[0].kind == cr::StageOptRecord::Fusion::Kind::Moments);
    CHECK(r->fused[0].anchor == "mu");
    CHECK(r->fused[0].sums == std::vector<std::string>{"v"});
    REQUIRE(r->fused[0].sumLocations.size() == 1);
    CHECK(lineOf(r->fused[0].sumLocations[0]) == 3);
    mlir::Attribute before = fused.kernel->getAttr("credit.stage_opt");
    cr::writeStageOpt(fused.kernel, *r);
    CHECK(fused.kernel->getAttr("credit.stage_opt") == before);
  }
  Compiled off(src, false, /*moments=*/false);
  std::optional<cr::MomentsAvailable> m = cr::readMomentsAvailable(off.kernel);
  REQUIRE(m);
  CHECK(m->L == 1);
  REQUIRE(m->pairs.size() == 1);
  CHECK(m->pairs[0] == std::pair<std::string, std::string>{"mu", "v"});
}

TEST_CASE("a partial or foreign stage_opt attribute reads without a crash", "[stage_opt]") {
  Compiled k(kOnline, true, false);
  mlir::Builder b(k.kernel.getContext());
  k.kernel->removeAttr("credit.stage_opt");
  CHECK(!cr::readStageOpt(k.kernel));
  k.kernel->setAttr("credit.stage_opt", b.getStringAttr("not a dictionary"));
  CHECK(!cr::readStageOpt(k.kernel));

  // as_written without figures; a move without names; fusions of an unknown kind,
  // of no kind and not a dictionary.
  k.kernel->setAttr(
      "credit.stage_opt",
      b.getDictionaryAttr({
          b.getNamedAttr("as_written", b.getDictionaryAttr({b.getNamedAttr("L", b.getI64IntegerAttr(2))})),
          b.getNamedAttr("moved", b.getArrayAttr({b.getDictionaryAttr({}), b.getI64IntegerAttr(1)})),
          b.getNamedAttr("fused", b.getArrayAttr({
                                      b.getDictionaryAttr({b.getNamedAttr("kind", b.getStringAttr("other"))}),
                                      b.getDictionaryAttr({}),
                                      b.getStringAttr("x"),
                                      b.getDictionaryAttr({b.getNamedAttr("kind", b.getStringAttr("online"))}),
                                  })),
      }));
  std::optional<cr::StageOptRecord> r = cr::readStageOpt(k.kernel);
  REQUIRE(r);
  CHECK(r->asWritten.L == 2);
  CHECK(r->asWritten.q.empty());
  CHECK(r->asWritten.ceiling == 1.0);
  REQUIRE(r->moved.size() == 1);
  CHECK(r->moved[0].statistic.empty());
  CHECK(!r->moved[0].location);
  REQUIRE(r->fused.size() == 1);
  CHECK(r->fused[0].anchor.empty());
  CHECK(r->fused[0].sums.empty());

  k.kernel->setAttr("credit.moments_available",
                    b.getDictionaryAttr({b.getNamedAttr(
                        "pairs", b.getArrayAttr({b.getDictionaryAttr({b.getNamedAttr("sum", b.getStringAttr("a"))}),
                                                 b.getI64IntegerAttr(3)}))}));
  std::optional<cr::MomentsAvailable> m = cr::readMomentsAvailable(k.kernel);
  REQUIRE(m);
  CHECK(m->L == 0);
  CHECK(m->pairs.empty());
}
