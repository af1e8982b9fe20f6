// Unit tests of the CUDA emitter: every example, every variant, through NVRTC
// for sm_90, sm_100 and sm_120 (no GPU needed); metadata against the
// analyses; names that collide with C++ and with the generated code; the
// literal and name helpers. The kernels themselves are run on a GPU by hand
// (docs/codegen.md, "Verification").
#include "CudaExpr.h"

#include "credit/Dialect/Credit/Transforms/Analyses.h"
#include "credit/Driver/Pipeline.h"
#include "credit/Target/Cuda/CudaEmitter.h"
#include "credit/runtime/Layout.h"
#include "credit/runtime/Nvrtc.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#ifndef CREDIT_SOURCE_DIR
#error "CREDIT_SOURCE_DIR must be defined (tests/unit/CMakeLists.txt)"
#endif

using namespace credit;
namespace cr = mlir::credit;

namespace {

const char *const kExamples[] = {"layernorm",          "lars",    "pearson_bwd", "quant_int8",
                                 "softmax_logits_bwd", "wvar_bwd"};
const char *const kArchs[] = {"sm_90", "sm_100", "sm_120"};

std::string examplePath(const std::string &name) {
  return std::string(CREDIT_SOURCE_DIR) + "/dsl_examples/" + name + ".credit";
}

/// A .credit file taken through the pipeline and the emitter.
struct Generated {
  std::string diags;
  llvm::raw_string_ostream diagOS{diags};
  std::unique_ptr<Compilation> c;
  cr::KernelOp kernel;
  std::string name;
  std::string cuda;

  Generated(const std::string &path, const std::string &arch,
            std::vector<Variant> variants = {}) {
    auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
    REQUIRE(buf);
    c = std::make_unique<Compilation>(std::move(*buf), diagOS);
    PipelineOptions opts;
    opts.arch = arch;
    REQUIRE(c->run(opts) == Compilation::Ok);
    REQUIRE(c->kernels().size() == 1);
    kernel = c->kernels().front();
    REQUIRE(cr::classify(kernel).category == "accepted");
    name = kernel.getSymName().str();
    CudaEmitOptions eo;
    eo.arch = arch;
    eo.variants = std::move(variants);
    eo.sourceName = path;
    llvm::raw_string_ostream os(cuda);
    REQUIRE(succeeded(emitCuda(kernel, eo, os)));
    INFO(diags);
    REQUIRE(!cuda.empty());
  }
};

/// The extern "C" kernels a variant set must produce.
std::set<std::string> expectedKernels(const std::string &k, const std::vector<Variant> &vs) {
  std::set<std::string> out;
  auto want = [&](Variant v) { return vs.empty() || std::count(vs.begin(), vs.end(), v); };
  std::string p = "credit_" + k + "_";
  if (want(Variant::Cluster))
    for (const char *s : {"cluster_sync_v4", "cluster_sync_v1", "cluster_mbarrier_v4",
                          "cluster_mbarrier_v1", "cluster_regs_sync_v4", "cluster_regs_sync_v1",
                          "cluster_regs_mbarrier_v4", "cluster_regs_mbarrier_v1",
                          // the wide-CTA twins (512 threads at the default 256)
                          "cluster_sync_v4_cta512", "cluster_sync_v1_cta512", "cluster_mbarrier_v4_cta512",
                          "cluster_mbarrier_v1_cta512"})
      out.insert(p + s);
  // The partial-retention form: the examples with two kept inputs (report:
  // "kept in SMEM: x, dy" and the like; names_stress keeps float and off).
  const bool twoKept = k == "lars" || k == "pearson_bwd" || k == "wvar_bwd" || k == "softmax_logits_bwd" ||
                       k == "names_stress";
  if (want(Variant::Cluster) && twoKept)
    for (const char *s : {"cluster_partial_sync_v4", "cluster_partial_sync_v1", "cluster_partial_mbarrier_v4",
                          "cluster_partial_mbarrier_v1"})
      out.insert(p + s);
  // The persistent form: every kernel here keeps an input and has the 512-thread twin
  // (credit::usePersistent).
  if (want(Variant::Cluster))
    out.insert({p + "cluster_persistent_v4_cta512", p + "cluster_persistent_halves_v4_cta512",
                p + "cluster_persistent_claims_v4_cta512", p + "cluster_persistent_halves_claims_v4_cta512"});
  if (want(Variant::Staged))
    out.insert({p + "staged_v4", p + "staged_v1", p + "staged_regs_v4", p + "staged_regs_v1",
                p + "staged_regs_wide_v4", p + "staged_regs_wide_v1", p + "staged_v4_cta512",
                p + "staged_v1_cta512", p + "staged_regs_wide_v4_cta512", p + "staged_regs_wide_v1_cta512"});
  // The deep register twin: one kept input (credit::hasDeepRegisterForm).
  const bool oneKept = k == "layernorm" || k == "quant_int8";
  if (want(Variant::Staged) && oneKept)
    out.insert({p + "staged_regs_deep_v4_cta512", p + "staged_regs_deep_v1_cta512"});
  if (want(Variant::Reread))
    out.insert({p + "reread_v4", p + "reread_v1"});
  if (want(Variant::Control))
    out.insert({p + "control_sync", p + "control_mbarrier"});
  return out;
}

/// NVRTC: ok, a cubin, exactly the expected kernels, none of them spilling.
void checkCompiles(const Generated &g, const std::string &arch, const std::set<std::string> &want) {
  NvrtcOptions nv;
  nv.arch = arch;
  NvrtcResult r = compileToCubin(g.cuda, g.name + ".cu", nv);
  INFO(g.name << " on " << arch << "\n" << r.log);
  REQUIRE(r.ok);
  CHECK(!r.cubin.empty());
  std::set<std::string> got;
  for (const KernelResources &k : r.kernels) {
    got.insert(k.name);
    INFO(k.name);
    CHECK(k.spillStoreBytes == 0);
    CHECK(k.spillLoadBytes == 0);
    CHECK(k.registers > 0);
    CHECK(k.registers <= 255);
  }
  CHECK(got == want);
}

size_t count(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

} // namespace

TEST_CASE("every example compiles with NVRTC for every target, no spills", "[codegen][nvrtc]") {
  for (const char *k : kExamples)
    for (const char *arch : kArchs) {
      DYNAMIC_SECTION(k << " " << arch) {
        Generated g(examplePath(k), arch);
        checkCompiles(g, arch, expectedKernels(k, {}));
      }
    }
}

TEST_CASE("each --variant alone compiles and holds only its kernels and launcher",
          "[codegen][nvrtc]") {
  const std::pair<Variant, const char *> variants[] = {{Variant::Cluster, "launch_cluster"},
                                                       {Variant::Staged, "launch_staged"},
                                                       {Variant::Reread, "launch_reread"},
                                                       {Variant::Control, "launch_control"}};
  for (const char *k : kExamples)
    for (auto [v, launcher] : variants) {
      DYNAMIC_SECTION(k << " " << variantName(v).str()) {
        Generated g(examplePath(k), "sm_90", {v});
        checkCompiles(g, "sm_90", expectedKernels(k, {v}));
        for (auto [other, otherLauncher] : variants)
          CHECK(count(g.cuda, std::string("int credit_") + k + "_" + otherLauncher + "(") ==
                (other == v ? 1u : 0u));
        // The generic entry points are always there.
        CHECK(count(g.cuda, "const char* credit_" + std::string(k) + "_signature()") == 1);
        CHECK(count(g.cuda, "long long credit_" + std::string(k) + "_max_legal_n(") == 1);
        CHECK(count(g.cuda, "int credit_" + std::string(k) + "_launch_generic(") == 1);
        // The body template is always there.
        CHECK(count(g.cuda, "__device__ __forceinline__ void credit_" + std::string(k) + "_body(") == 1);
      }
    }
}

TEST_CASE("a kernel whose names collide with C++ and the generated code compiles",
          "[codegen][nvrtc]") {
  std::string path =
      std::string(CREDIT_SOURCE_DIR) + "/tests/lit/CodeGen/Inputs/names_stress.credit";
  for (const char *arch : kArchs) {
    DYNAMIC_SECTION(arch) {
      Generated g(path, arch);
      checkCompiles(g, arch, expectedKernels("names_stress", {}));
      // Launch API parameters keep the source names where C++ allows.
      CHECK(g.cuda.find("int credit_names_stress_launch_staged(const float* float_, const float* off_, "
                        "const float* vi_, const float* row_, const float* unused, float* int_, "
                        "int8_t* tid_, float* M_, long long M, long long N, cudaStream_t stream)") !=
            std::string::npos);
    }
  }
}

TEST_CASE("metadata and header agree with the analyses", "[codegen]") {
  for (const char *k : kExamples) {
    DYNAMIC_SECTION(k) {
      Generated g(examplePath(k), "sm_90");
      ::credit::WorkloadGeometry geo = cr::computeGeometry(g.kernel);
      cr::Barriers b = cr::computeBarriers(g.kernel);
      cr::Traffic t = cr::computeTraffic(g.kernel);
      CHECK(count(g.cuda, llvm::formatv("inline constexpr credit::WorkloadGeometry geometry = "
                                        "{{{0}, {1}, {2}, {3}, {4}, {5}};",
                                        geo.keepBytesPerElem, geo.numStages, geo.qMax, geo.qSum,
                                        geo.threads, geo.hOnlyArrays)
                              .str()) == 1);
      // Inputs only h reads: layernorm's gamma and beta, lars's v.
      const std::string name = k;
      CHECK(geo.hOnlyArrays == (name == "layernorm" ? 2 : name == "lars" ? 1 : 0));
      CHECK(count(g.cuda, llvm::formatv("inline constexpr int numInputsOnlyHReads = {0};", geo.hOnlyArrays)
                              .str()) == 1);
      // The partial-retention form exactly where two or more inputs are kept,
      // its geometry one kept input (4 B per element) smaller.
      const bool partial = t.kept.size() >= 2;
      CHECK(count(g.cuda, llvm::formatv("inline constexpr bool kHasPartialForm = {0};",
                                        partial ? "true" : "false")
                              .str()) == 1);
      CHECK(count(g.cuda, llvm::formatv("inline constexpr credit::WorkloadGeometry geometry_partial = "
                                        "{{{0}, {1}, {2}, {3}, {4}, {5}};",
                                        geo.keepBytesPerElem - (partial ? 4 : 0), geo.numStages, geo.qMax,
                                        geo.qSum, geo.threads, geo.hOnlyArrays)
                              .str()) == 1);
      CHECK(count(g.cuda, "__global__ void __launch_bounds__(256, CREDIT_MIN_CTAS_PER_SM) credit_" +
                              std::string(k) + "_cluster_partial_") == (partial ? 4u : 0u));
      CHECK(count(g.cuda, llvm::formatv("inline constexpr int K_sync = {0};", b.sync).str()) == 1);
      CHECK(count(g.cuda, llvm::formatv("inline constexpr int K_mbarrier = {0};", b.mbarrier).str()) ==
            1);
      CHECK(count(g.cuda, llvm::formatv("//   bytes/element: baseline {0}, cluster {1}, reread {2}, keep {3}",
                                        t.baseline, t.cluster, t.reread, t.keep)
                              .str()) == 1);
      // Sync protocol: 2 cluster barriers per stage in the body; mbarrier: L mbarriers.
      CHECK(count(g.cuda, "credit_cluster_sync();  // stage") == static_cast<size_t>(b.sync));
      CHECK(count(g.cuda, ">(cta_partial, stage_slots, stage_bar, P);") == t.L);
      // Self-contained: the runtime headers are embedded, none is included.
      CHECK(g.cuda.find("#include \"") == std::string::npos);
      CHECK(count(g.cuda, "// ===== begin embedded") == 3);
      CHECK(count(g.cuda, "#include <cuda_runtime.h>") == 1);
      CHECK(count(g.cuda, "#if !defined(__CUDACC_RTC__)\n#include <cuda_runtime.h>") == 1);
    }
  }
}

TEST_CASE("the generic signature lists the data arguments in order", "[codegen]") {
  Generated q(examplePath("quant_int8"), "sm_90");
  CHECK(q.cuda.find("return \"x:in:row:f32;q:out:row:i8;scale:out:scalar:f32\";") != std::string::npos);
  Generated l(examplePath("layernorm"), "sm_90");
  CHECK(l.cuda.find("return \"x:in:row:f32;gamma:in:broadcast:f32;beta:in:broadcast:f32;y:out:row:f32\";") !=
        std::string::npos);
  Generated w(examplePath("wvar_bwd"), "sm_90");
  CHECK(w.cuda.find("return \"x:in:row:f32;w:in:row:f32;g:in:scalar:f32;dx:out:row:f32;dw:out:row:f32\";") !=
        std::string::npos);
}

TEST_CASE("emission is deterministic", "[codegen]") {
  Generated a(examplePath("pearson_bwd"), "sm_90"), b(examplePath("pearson_bwd"), "sm_90");
  CHECK(a.cuda == b.cuda);
  Generated c(examplePath("pearson_bwd"), "sm_120");
  CHECK(c.cuda.find("credit::findTarget(\"sm_120\")") != std::string::npos);
}

TEST_CASE("float literals round-trip and read well", "[codegen][expr]") {
  using credit::cudaold::cudaFloatLiteral;
  using credit::cudaold::shortestFloat;
  CHECK(cudaFloatLiteral(1e-5f) == "1e-05f");
  CHECK(cudaFloatLiteral(127.0f) == "127.0f");
  CHECK(cudaFloatLiteral(-0.5f) == "-0.5f");
  CHECK(cudaFloatLiteral(0.1f) == "0.1f");
  CHECK(cudaFloatLiteral(1e-12f) == "1e-12f");
  CHECK(cudaFloatLiteral(-0.0f) == "-0.0f");
  CHECK(cudaFloatLiteral(INFINITY) == "__int_as_float(0x7f800000)");
  CHECK(cudaFloatLiteral(-INFINITY) == "__int_as_float(0xff800000)");
  for (float f : {1e-5f, 0.1f, 3.14159274f, 1e-9f, 1.17549435e-38f, 3.40282347e+38f, 16777215.0f,
                  1.00000012f, 123456.789f, 1e-45f}) {
    std::string s = shortestFloat(f);
    CHECK(std::strtof(s.c_str(), nullptr) == f);
    std::string lit = cudaFloatLiteral(f);
    lit.pop_back(); // the f suffix
    CHECK(std::strtof(lit.c_str(), nullptr) == f);
  }
}

TEST_CASE("C++ names: keywords, generated identifiers and reserved prefixes", "[codegen][expr]") {
  credit::cudaold::NameTable t;
  t.reserve("row");
  CHECK(t.unique("x") == "x");
  CHECK(t.unique("x") == "x_");
  CHECK(t.unique("x") == "x_2");
  CHECK(t.unique("float") == "float_");
  CHECK(t.unique("row") == "row_");
  CHECK(t.unique("credit_scale") == "u_credit_scale");
  CHECK(t.unique("__x") == "u_x");
  CHECK(t.unique("_Upper") == "u_Upper");
}
