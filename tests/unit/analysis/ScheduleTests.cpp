// Unit tests of the schedule (credit-schedule, Schedule.h): the six examples'
// decisions, each decision on small kernels, and the attribute read back.
#include "CompiledKernel.h"

#include "credit/Dialect/Credit/Transforms/Analyses.h"
#include "credit/Dialect/Credit/Transforms/Schedule.h"
#include "credit/Driver/Pipeline.h"

#include <catch2/catch.hpp>

using namespace credit;
namespace cr = mlir::credit;

namespace {

PipelineOptions options(int threads) {
  PipelineOptions opts;
  opts.threads = threads;
  // The rules are stated on max and sum-of-exp stages kept apart (merged, not
  // fused); Schedule/softmax_logits_bwd.test has the fused schedule.
  opts.onlineStatistics = false;
  return opts;
}

struct Scheduled : CompiledKernel {
  std::vector<std::string> inputNames;

  Scheduled(std::unique_ptr<llvm::MemoryBuffer> buf, int threads) : CompiledKernel(std::move(buf), options(threads)) {
    for (cr::InputOp in : kernel.getInputOps())
      inputNames.push_back(in.getName().str());
  }
  std::vector<std::string> names(llvm::ArrayRef<unsigned> indices) const {
    std::vector<std::string> out;
    for (unsigned i : indices)
      out.push_back(inputNames.at(i));
    return out;
  }
  cr::KernelSchedule schedule(int threads = 256, cr::VariantSet v = {}) {
    mlir::FailureOr<cr::KernelSchedule> s = cr::computeSchedule(kernel, threads, v);
    INFO(diags);
    REQUIRE(succeeded(s));
    return *s;
  }
};

std::unique_ptr<Scheduled> example(const std::string &name, int threads = 256) {
  auto buf = llvm::MemoryBuffer::getFile(std::string(CREDIT_SOURCE_DIR) + "/dsl_examples/" + name +
                                             ".credit",
                                         /*IsText=*/true);
  REQUIRE(buf);
  return std::make_unique<Scheduled>(std::move(*buf), threads);
}

std::unique_ptr<Scheduled> source(const std::string &src, int threads = 256) {
  return std::make_unique<Scheduled>(llvm::MemoryBuffer::getMemBufferCopy(src, "t.credit"), threads);
}

/// The extern "C" kernel names of the forms, as the generated files spell them
/// (suffix _v4/_v1 per vector width, _cta<threads> on the wide-CTA twins).
std::vector<std::string> kernelNames(const std::string &k, const cr::KernelSchedule &s) {
  std::vector<std::string> out;
  for (cr::Form f : s.forms) {
    std::string stem = cr::formName(f).str();
    const std::string cta = cr::isWideCtaForm(f) ? "_cta" + std::to_string(s.wideThreads) : "";
    switch (f) {
    case cr::Form::ClusterWideSync: stem = "cluster_sync"; break;
    case cr::Form::ClusterWideMbarrier: stem = "cluster_mbarrier"; break;
    case cr::Form::StagedWide: stem = "staged"; break;
    case cr::Form::StagedRegsWideWide: stem = "staged_regs_wide"; break;
    case cr::Form::StagedRegsDeepWide: stem = "staged_regs_deep"; break;
    default: break;
    }
    const std::string name = "credit_" + k + "_" + stem;
    if (f == cr::Form::ControlSync || f == cr::Form::ControlMbarrier)
      out.push_back(name);
    else if (f == cr::Form::Persistent || f == cr::Form::PersistentHalves || f == cr::Form::PersistentClaims ||
             f == cr::Form::PersistentHalvesClaims)
      out.push_back("credit_" + k + "_cluster_" + stem + "_v4" + cta);
    else
      for (const char *v : {"_v4", "_v1"})
        out.push_back(name + v + cta);
  }
  return out;
}

std::vector<int> geometry(const ::credit::WorkloadGeometry &g) {
  return {g.keepBytesPerElem, g.numStages, g.qMax, g.qSum, g.threads, g.hOnlyArrays};
}

using Names = std::vector<std::string>;

const std::vector<cr::Form> kAllForms256 = {
    cr::Form::ClusterSync, cr::Form::ClusterMbarrier, cr::Form::ClusterRegsSync, cr::Form::ClusterRegsMbarrier,
    cr::Form::ClusterWideSync, cr::Form::ClusterWideMbarrier, cr::Form::Persistent, cr::Form::PersistentHalves,
    cr::Form::PersistentClaims, cr::Form::PersistentHalvesClaims, cr::Form::ClusterPartialSync,
    cr::Form::ClusterPartialMbarrier, cr::Form::Staged, cr::Form::StagedRegs, cr::Form::StagedRegsWide,
    cr::Form::StagedWide, cr::Form::StagedRegsWideWide, cr::Form::StagedRegsDeepWide, cr::Form::Reread,
    cr::Form::ControlSync, cr::Form::ControlMbarrier};

std::vector<cr::Form> without(std::initializer_list<cr::Form> drop) {
  std::vector<cr::Form> out;
  for (cr::Form f : kAllForms256)
    if (!llvm::is_contained(drop, f))
      out.push_back(f);
  return out;
}

std::vector<cr::Form> forms(const cr::KernelSchedule &s) { return {s.forms.begin(), s.forms.end()}; }

} // namespace

// The six examples: the decisions the generated files record (header comment,
// keptInputs[], partialDropped, kKeptInputReadLate, numHoistedInputs,
// geometry constants) and their list of kernels.
TEST_CASE("schedule of layernorm", "[schedule]") {
  auto k = example("layernorm");
  cr::KernelSchedule s = k->schedule();
  CHECK(k->names(s.kept) == Names{"x"});
  CHECK(k->names(s.smemOrder()) == Names{"x"});
  CHECK(s.materialized.empty());
  CHECK(s.partialDrop == -1);
  CHECK_FALSE(s.keptReadLate);
  CHECK(k->names(s.onlyH) == Names{"gamma", "beta"});
  CHECK(k->names(s.hoisted) == Names{"gamma", "beta"});
  CHECK(s.prefetchL2.empty());
  CHECK(s.threads == 256);
  CHECK(s.wideThreads == 512);
  CHECK(geometry(s.geometry) == std::vector<int>{4, 2, 1, 2, 256, 2});
  CHECK(geometry(s.wideGeometry) == std::vector<int>{4, 2, 1, 2, 512, 2});
  CHECK(geometry(s.partialGeometry) == std::vector<int>{4, 2, 1, 2, 256, 2});
  CHECK(forms(s) == without({cr::Form::ClusterPartialSync, cr::Form::ClusterPartialMbarrier}));
  REQUIRE(s.passes.size() == 3);
  CHECK(s.passes[0].stage == 0);
  CHECK(s.passes[1].stage == 1);
  CHECK(s.passes[2].stage == -1);
  CHECK(k->names(s.passes[2].reads) == Names{"x", "gamma", "beta"});
  CHECK(kernelNames("layernorm", s) ==
        Names{"credit_layernorm_cluster_sync_v4", "credit_layernorm_cluster_sync_v1",
              "credit_layernorm_cluster_mbarrier_v4", "credit_layernorm_cluster_mbarrier_v1",
              "credit_layernorm_cluster_regs_sync_v4", "credit_layernorm_cluster_regs_sync_v1",
              "credit_layernorm_cluster_regs_mbarrier_v4", "credit_layernorm_cluster_regs_mbarrier_v1",
              "credit_layernorm_cluster_sync_v4_cta512", "credit_layernorm_cluster_sync_v1_cta512",
              "credit_layernorm_cluster_mbarrier_v4_cta512", "credit_layernorm_cluster_mbarrier_v1_cta512",
              "credit_layernorm_cluster_persistent_v4_cta512",
              "credit_layernorm_cluster_persistent_halves_v4_cta512",
              "credit_layernorm_cluster_persistent_claims_v4_cta512",
              "credit_layernorm_cluster_persistent_halves_claims_v4_cta512",
              "credit_layernorm_staged_v4", "credit_layernorm_staged_v1",
              "credit_layernorm_staged_regs_v4", "credit_layernorm_staged_regs_v1",
              "credit_layernorm_staged_regs_wide_v4", "credit_layernorm_staged_regs_wide_v1",
              "credit_layernorm_staged_v4_cta512", "credit_layernorm_staged_v1_cta512",
              "credit_layernorm_staged_regs_wide_v4_cta512", "credit_layernorm_staged_regs_wide_v1_cta512",
              "credit_layernorm_staged_regs_deep_v4_cta512", "credit_layernorm_staged_regs_deep_v1_cta512",
              "credit_layernorm_reread_v4", "credit_layernorm_reread_v1",
              "credit_layernorm_control_sync", "credit_layernorm_control_mbarrier"});
}

TEST_CASE("schedule of lars", "[schedule]") {
  auto k = example("lars");
  cr::KernelSchedule s = k->schedule();
  CHECK(k->names(s.kept) == Names{"w", "g"});
  CHECK(k->names(s.smemOrder()) == Names{"w", "g"});
  CHECK(s.materialized.empty());
  REQUIRE(s.partialDrop == 1);
  CHECK(k->inputNames[s.partialDropInput()] == "g");
  CHECK_FALSE(s.partialDropReadLate);
  CHECK_FALSE(s.keptReadLate);
  CHECK(k->names(s.onlyH) == Names{"v"});
  CHECK(s.hoisted.empty());
  CHECK(k->names(s.prefetchL2) == Names{"v"});
  CHECK(geometry(s.geometry) == std::vector<int>{8, 1, 2, 2, 256, 1});
  CHECK(geometry(s.wideGeometry) == std::vector<int>{8, 1, 2, 2, 512, 1});
  CHECK(geometry(s.partialGeometry) == std::vector<int>{4, 1, 2, 2, 256, 1});
  CHECK(forms(s) == without({cr::Form::StagedRegsDeepWide}));
}

TEST_CASE("schedule of pearson_bwd", "[schedule]") {
  auto k = example("pearson_bwd");
  cr::KernelSchedule s = k->schedule();
  CHECK(k->names(s.kept) == Names{"x", "y"});
  CHECK(k->names(s.smemOrder()) == Names{"x", "y"});
  CHECK(s.materialized.empty());
  REQUIRE(s.partialDrop == 1);
  CHECK_FALSE(s.partialDropReadLate);
  CHECK_FALSE(s.keptReadLate);
  CHECK(s.onlyH.empty());
  CHECK(geometry(s.geometry) == std::vector<int>{8, 2, 3, 5, 256, 0});
  CHECK(geometry(s.partialGeometry) == std::vector<int>{4, 2, 3, 5, 256, 0});
  CHECK(forms(s) == without({cr::Form::StagedRegsDeepWide}));
}

TEST_CASE("schedule of quant_int8", "[schedule]") {
  auto k = example("quant_int8");
  cr::KernelSchedule s = k->schedule();
  CHECK(k->names(s.kept) == Names{"x"});
  CHECK(s.materialized.empty());
  CHECK(s.partialDrop == -1);
  CHECK(s.onlyH.empty());
  CHECK(geometry(s.geometry) == std::vector<int>{4, 1, 1, 1, 256, 0});
  CHECK(forms(s) == without({cr::Form::ClusterPartialSync, cr::Form::ClusterPartialMbarrier}));
}

TEST_CASE("schedule of softmax_logits_bwd", "[schedule]") {
  auto k = example("softmax_logits_bwd");
  cr::KernelSchedule s = k->schedule();
  CHECK(k->names(s.kept) == Names{"x", "dy"});
  CHECK(k->names(s.smemOrder()) == Names{"x", "dy"});
  REQUIRE(s.materialized.size() == 1);
  const cr::Materialization &m = s.materialized.front();
  CHECK(k->inputNames[m.input] == "x");
  CHECK(m.storePass == 1);
  // exp(x - m) in stage 2, stage 3 and h: subf + exp in each.
  REQUIRE(m.ends.size() == 3);
  for (mlir::Operation *end : m.ends)
    CHECK(llvm::isa<mlir::math::ExpOp>(end));
  CHECK(m.chainOps.size() == 6);
  REQUIRE(s.partialDrop == 1);
  CHECK(k->inputNames[s.partialDropInput()] == "dy");
  CHECK(s.partialDropReadLate);
  CHECK(s.keptReadLate);
  CHECK(s.onlyH.empty());
  CHECK(geometry(s.geometry) == std::vector<int>{8, 3, 1, 3, 256, 0});
  CHECK(geometry(s.partialGeometry) == std::vector<int>{4, 3, 1, 3, 256, 0});
  CHECK(forms(s) == without({cr::Form::StagedRegsDeepWide}));
}

TEST_CASE("schedule of wvar_bwd", "[schedule]") {
  auto k = example("wvar_bwd");
  cr::KernelSchedule s = k->schedule();
  CHECK(k->names(s.kept) == Names{"x", "w"});
  CHECK(k->names(s.smemOrder()) == Names{"x", "w"});
  CHECK(s.materialized.empty());
  REQUIRE(s.partialDrop == 1);
  CHECK(k->inputNames[s.partialDropInput()] == "w");
  CHECK(geometry(s.geometry) == std::vector<int>{8, 2, 2, 3, 256, 0});
  CHECK(forms(s) == without({cr::Form::StagedRegsDeepWide}));
}

TEST_CASE("CTA sizes decide the register forms and the twins", "[schedule]") {
  auto k = example("layernorm");
  SECTION("512 threads: register forms, no twin, no persistent form") {
    cr::KernelSchedule s = k->schedule(512);
    CHECK(s.wideThreads == 0);
    CHECK(geometry(s.wideGeometry) == geometry(s.geometry));
    CHECK(forms(s) == std::vector<cr::Form>{cr::Form::ClusterSync, cr::Form::ClusterMbarrier, cr::Form::ClusterRegsSync,
                                        cr::Form::ClusterRegsMbarrier, cr::Form::Staged, cr::Form::StagedRegs,
                                        cr::Form::StagedRegsWide, cr::Form::Reread, cr::Form::ControlSync,
                                        cr::Form::ControlMbarrier});
  }
  SECTION("1024 threads: neither register forms nor twins") {
    cr::KernelSchedule s = k->schedule(1024);
    CHECK(s.wideThreads == 0);
    CHECK(s.geometry.threads == 1024);
    CHECK(forms(s) == std::vector<cr::Form>{cr::Form::ClusterSync, cr::Form::ClusterMbarrier, cr::Form::Staged,
                                        cr::Form::Reread, cr::Form::ControlSync, cr::Form::ControlMbarrier});
  }
  SECTION("128 threads: twins of 256") {
    cr::KernelSchedule s = k->schedule(128);
    CHECK(s.wideThreads == 256);
    CHECK(s.has(cr::Form::Persistent));
  }
  SECTION("an unsupported CTA size is an error") {
    CHECK(failed(cr::computeSchedule(k->kernel, 384)));
  }
}

TEST_CASE("variant subsets filter the forms", "[schedule]") {
  auto k = example("softmax_logits_bwd");
  std::string bad;
  auto v = cr::VariantSet::parse({"staged", "control"}, bad);
  REQUIRE(succeeded(v));
  cr::KernelSchedule s = k->schedule(256, *v);
  CHECK(forms(s) == std::vector<cr::Form>{cr::Form::Staged, cr::Form::StagedRegs, cr::Form::StagedRegsWide, cr::Form::StagedWide,
                                      cr::Form::StagedRegsWideWide, cr::Form::ControlSync, cr::Form::ControlMbarrier});
  // The decisions do not depend on the subset.
  CHECK(s.partialDrop == 1);
  CHECK(s.materialized.size() == 1);
  CHECK(failed(cr::VariantSet::parse({"cluster", "fast"}, bad)));
  CHECK(bad == "fast");
}

TEST_CASE("materialization found and refused", "[schedule]") {
  SECTION("a shared chain ending in a costly op") {
    auto k = source(R"(kernel k { in x : f32[N] out y : f32[N]
        stage { m = max(x) } stage { s = sum(log(x - m)) } stage { t = sum(log(x - m) * 2) }
        y = log(x - m) / s + t })");
    cr::KernelSchedule s = k->schedule();
    REQUIRE(s.materialized.size() == 1);
    CHECK(s.materialized[0].storePass == 1);
    for (mlir::Operation *end : s.materialized[0].ends)
      CHECK(llvm::isa<mlir::math::LogOp>(end));
  }
  SECTION("two reads only: nobody would read T(x) after it is stored") {
    auto k = source(R"(kernel k { in x : f32[N] out y : f32[N]
        stage { m = max(x) } y = exp(x - m) })");
    CHECK(k->schedule().materialized.empty());
  }
  SECTION("no costly op in the shared chain") {
    auto k = source(R"(kernel k { in x : f32[N] out y : f32[N]
        stage { m = max(x) } stage { s = sum((x - m) * 3) } y = (x - m) * 3 + s })");
    CHECK(k->schedule().materialized.empty());
  }
  SECTION("a later pass reads x itself") {
    auto k = source(R"(kernel k { in x : f32[N] out y : f32[N]
        stage { m = max(x) } stage { s = sum(exp(x - m)) } y = exp(x - m) / s + x })");
    CHECK(k->schedule().materialized.empty());
  }
  SECTION("different chains") {
    auto k = source(R"(kernel k { in x : f32[N] out y : f32[N]
        stage { m = max(x) } stage { s = sum(exp(x - m)) } y = exp(x - s) })");
    CHECK(k->schedule().materialized.empty());
  }
}

TEST_CASE("partial retention: the kept input with the fewest reads, ties to the last", "[schedule]") {
  SECTION("fewest readers") {
    // a: stage 1, stage 2, h; b: stage 1, h.
    auto k = source(R"(kernel k { in a : f32[N] in b : f32[N] out y : f32[N]
        stage { s = sum(a * b) } stage { t = sum(a * s) } y = a * t + b })");
    cr::KernelSchedule s = k->schedule();
    CHECK(k->names(s.kept) == Names{"a", "b"});
    REQUIRE(s.partialDrop == 1);
    CHECK(k->names(s.smemOrder()) == Names{"a", "b"});
    CHECK_FALSE(s.partialDropReadLate);
  }
  SECTION("fewest readers, first in first-read order: its SMEM array goes last") {
    // b: stage 1, h; a: stage 2, stage 3, h.
    auto k = source(R"(kernel k { in a : f32[N] in b : f32[N] out y : f32[N]
        stage { m = max(b) } stage { s = sum(a * m) } stage { t = sum(a * s) } y = a * t + b })");
    cr::KernelSchedule s = k->schedule();
    CHECK(k->names(s.kept) == Names{"b", "a"});
    CHECK(k->inputNames[s.partialDropInput()] == "b");
    CHECK(k->names(s.smemOrder()) == Names{"a", "b"});
    CHECK(s.smemSlot == llvm::SmallVector<unsigned>{1, 0});
    CHECK_FALSE(s.partialDropReadLate);
    CHECK(s.keptReadLate);
  }
  SECTION("a tie goes to the last kept input") {
    auto k = source(R"(kernel k { in a : f32[N] in b : f32[N] in c : f32[N] out y : f32[N]
        stage { s = sum(a + b + c) } y = a * s + b + c })");
    cr::KernelSchedule s = k->schedule();
    CHECK(k->names(s.kept) == Names{"a", "b", "c"});
    CHECK(k->inputNames[s.partialDropInput()] == "c");
    CHECK(k->names(s.smemOrder()) == Names{"a", "b", "c"});
  }
  SECTION("a tie goes to the last in first-read order, not in declaration order") {
    // b: stages 1, 2 and h; a: stages 2, 3 and h.
    auto k = source(R"(kernel k { in a : f32[N] in b : f32[N] out y : f32[N]
        stage { m = max(b) } stage { s = sum(a * m + b) } stage { t = sum(a * s) } y = a * t + b })");
    cr::KernelSchedule s = k->schedule();
    CHECK(k->names(s.kept) == Names{"b", "a"});
    CHECK(k->inputNames[s.partialDropInput()] == "a");
    CHECK(k->names(s.smemOrder()) == Names{"b", "a"});
    CHECK(s.partialDropReadLate);
    CHECK(s.keptReadLate);
  }
  SECTION("never the materialized input, unless every kept input is") {
    // x: stage 1, stage 2, h, and holds exp(x - m) from stage 2 on;
    // z: every pass. x has fewer readers, but z is dropped.
    auto k = source(R"(kernel k { in x : f32[N] in z : f32[N] out y : f32[N]
        stage {
          m = max(x)
          a = sum(z)
        }
        stage {
          s = sum(exp(x - m))
          b = sum(z * a)
        }
        stage { c = sum(z * b) }
        y = exp(x - m) / s + z * c })");
    cr::KernelSchedule s = k->schedule();
    REQUIRE(s.materialized.size() == 1);
    CHECK(k->inputNames[s.materialized[0].input] == "x");
    CHECK(k->inputNames[s.partialDropInput()] == "z");
  }
  SECTION("every kept input materialized: the fewest reads again") {
    auto k = source(R"(kernel k { in x : f32[N] in z : f32[N] out y : f32[N]
        stage {
          m = max(x)
          a = max(z)
        }
        stage {
          s = sum(exp(x - m))
          b = sum(exp(z - a))
        }
        stage { c = sum(exp(z - a) * b) }
        y = exp(x - m) / s + exp(z - a) * c })");
    // x: 3 passes, z: 4.
    cr::KernelSchedule s = k->schedule();
    REQUIRE(s.materialized.size() == 2);
    CHECK(k->inputNames[s.partialDropInput()] == "x");
  }
  SECTION("one kept input: no partial form") {
    auto k = source(R"(kernel k { in x : f32[N] in w : f32[N] out y : f32[N]
        stage { s = sum(x) } y = x * s + w })");
    cr::KernelSchedule s = k->schedule();
    CHECK(s.partialDrop == -1);
    CHECK_FALSE(s.has(cr::Form::ClusterPartialSync));
    CHECK(k->names(s.onlyH) == Names{"w"});
    CHECK(k->names(s.prefetchL2) == Names{"w"});
  }
}

TEST_CASE("no kept input: no persistent form, nothing to prefetch", "[schedule]") {
  // x is read by stage 1 only, y by h only: a one-pass kernel the classifier
  // rejects, scheduled anyway (the schedule does not classify).
  auto k = source(R"(kernel k { in x : f32[N] in w : f32[N] in g : f32[N] broadcast out y : f32[N]
      stage { s = sum(x) } y = w * s + g })");
  cr::KernelSchedule s = k->schedule();
  CHECK(s.kept.empty());
  CHECK(s.smemSlot.empty());
  CHECK(s.partialDrop == -1);
  CHECK_FALSE(s.persistentPossible());
  CHECK_FALSE(s.has(cr::Form::Persistent));
  CHECK(k->names(s.onlyH) == Names{"w", "g"});
  CHECK(k->names(s.hoisted) == Names{"g"});
  CHECK(s.prefetchL2.empty());
  CHECK_FALSE(s.has(cr::Form::StagedRegsDeepWide));
}

namespace {
void checkSame(const cr::KernelSchedule &a, const cr::KernelSchedule &b) {
  REQUIRE(a.passes.size() == b.passes.size());
  for (size_t p = 0; p < a.passes.size(); ++p) {
    CHECK(a.passes[p].op == b.passes[p].op);
    CHECK(a.passes[p].stage == b.passes[p].stage);
    CHECK(a.passes[p].reads == b.passes[p].reads);
  }
  CHECK(a.kept == b.kept);
  CHECK(a.smemSlot == b.smemSlot);
  REQUIRE(a.materialized.size() == b.materialized.size());
  for (size_t i = 0; i < a.materialized.size(); ++i) {
    CHECK(a.materialized[i].input == b.materialized[i].input);
    CHECK(a.materialized[i].storePass == b.materialized[i].storePass);
    CHECK(a.materialized[i].ends == b.materialized[i].ends);
    CHECK(a.materialized[i].chainOps == b.materialized[i].chainOps);
  }
  CHECK(a.partialDrop == b.partialDrop);
  CHECK(a.partialDropReadLate == b.partialDropReadLate);
  CHECK(a.keptReadLate == b.keptReadLate);
  CHECK(a.hoisted == b.hoisted);
  CHECK(a.prefetchL2 == b.prefetchL2);
  CHECK(a.onlyH == b.onlyH);
  CHECK(a.threads == b.threads);
  CHECK(a.wideThreads == b.wideThreads);
  CHECK(a.forms == b.forms);
  CHECK(geometry(a.geometry) == geometry(b.geometry));
  CHECK(geometry(a.wideGeometry) == geometry(b.wideGeometry));
  CHECK(geometry(a.partialGeometry) == geometry(b.partialGeometry));
}
} // namespace

TEST_CASE("readSchedule gives back what credit-schedule computed", "[schedule]") {
  for (const char *name : {"layernorm", "lars", "pearson_bwd", "quant_int8", "softmax_logits_bwd", "wvar_bwd"})
    for (int threads : {128, 256, 1024}) {
      INFO(name << " at " << threads << " threads");
      auto k = example(name, threads);
      mlir::FailureOr<cr::KernelSchedule> read = cr::readSchedule(k->kernel);
      INFO(k->diags);
      REQUIRE(succeeded(read));
      checkSame(*read, k->schedule(threads));
    }
  // Two materializations, a partial form, inputs only h reads.
  auto k = source(R"(kernel k { in x : f32[N] in z : f32[N] in v : f32[N] in g : f32[N] broadcast
      out y : f32[N]
      stage {
        m = max(x)
        a = max(z)
      }
      stage {
        s = sum(exp(x - m))
        b = sum(exp(z - a))
      }
      stage { c = sum(exp(z - a) * b) }
      y = exp(x - m) / s + exp(z - a) * c + v * g })");
  mlir::FailureOr<cr::KernelSchedule> read = cr::readSchedule(k->kernel);
  REQUIRE(succeeded(read));
  cr::KernelSchedule computed = k->schedule();
  CHECK(computed.materialized.size() == 2);
  checkSame(*read, computed);
}

TEST_CASE("readSchedule reports what is missing", "[schedule]") {
  SECTION("a rejected kernel has no schedule") {
    auto k = source(R"(kernel k { in x : f32[N] in w : f32[N] out y : f32[N]
        stage { s = sum(x) } y = w * s })");
    CHECK_FALSE(k->kernel->hasAttr("credit.schedule"));
    CHECK(failed(cr::readSchedule(k->kernel)));
    CHECK_THAT(k->diags, Catch::Contains("has no credit.schedule"));
  }
  SECTION("the passes' reads are needed") {
    auto k = example("layernorm");
    k->kernel.getApplyOp()->removeAttr("credit.reads");
    CHECK(failed(cr::readSchedule(k->kernel)));
    CHECK_THAT(k->diags, Catch::Contains("run credit-pass-access"));
  }
  SECTION("a materialization without its marked op") {
    auto k = example("softmax_logits_bwd");
    k->kernel.walk([](mlir::Operation *op) { op->removeAttr("credit.materialized"); });
    CHECK(failed(cr::readSchedule(k->kernel)));
    CHECK_THAT(k->diags, Catch::Contains("no op carries credit.materialized"));
  }
}
