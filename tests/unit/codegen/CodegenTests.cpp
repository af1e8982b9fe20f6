// Unit tests of the CUDA emitter: every example through NVRTC for sm_90, sm_100
// and sm_120 with the library's embedded headers (no GPU needed), exactly the
// kernels of the schedule's forms, none spilling; each --variant alone; the
// Workload's constants against the schedule; names that collide with C++,
// macros and the library; long let chains. The kernels themselves run in
// tests/gpu on a GPU.
#include "credit/Dialect/Credit/Transforms/Analyses.h"
#include "credit/Dialect/Credit/Transforms/Schedule.h"
#include "credit/Driver/Pipeline.h"
#include "credit/Target/Cuda/CudaEmitter.h"
#include "credit/runtime/Nvrtc.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <catch2/catch.hpp>

#include <algorithm>
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
const Variant kVariants[] = {Variant::Cluster, Variant::Staged, Variant::Reread, Variant::Control};

std::string examplePath(const std::string &name) {
  return std::string(CREDIT_SOURCE_DIR) + "/dsl_examples/" + name + ".credit";
}
std::string inputPath(const std::string &name) {
  return std::string(CREDIT_SOURCE_DIR) + "/tests/lit/CodeGen/Inputs/" + name + ".credit";
}

/// A .credit file (or text) taken through the pipeline and the emitter.
struct Generated {
  std::string diags;
  llvm::raw_string_ostream diagOS{diags};
  std::unique_ptr<Compilation> c;
  cr::KernelOp kernel;
  std::string name;
  std::string cuda;

  Generated(std::unique_ptr<llvm::MemoryBuffer> buf, const std::string &arch, std::vector<Variant> variants,
            bool standalone) {
    const std::string source = buf->getBuffer().str();
    c = std::make_unique<Compilation>(std::move(buf), diagOS);
    PipelineOptions opts;
    opts.arch = arch;
    REQUIRE(c->run(opts) == Compilation::Ok);
    REQUIRE(c->kernels().size() == 1);
    kernel = c->kernels().front();
    name = kernel.getSymName().str();
    CudaEmitOptions eo;
    eo.arch = arch;
    eo.variants = std::move(variants);
    eo.sourceName = c->bufferName().str();
    eo.sourceText = source;
    eo.standalone = standalone;
    llvm::raw_string_ostream os(cuda);
    INFO(diags);
    REQUIRE(succeeded(emitCuda(kernel, eo, os)));
    REQUIRE(!cuda.empty());
  }
  static Generated file(const std::string &path, const std::string &arch = "sm_90",
                        std::vector<Variant> variants = {}, bool standalone = false) {
    auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
    REQUIRE(buf);
    return Generated(std::move(*buf), arch, std::move(variants), standalone);
  }
  static Generated text(const std::string &source) {
    return Generated(llvm::MemoryBuffer::getMemBufferCopy(source, "inline.credit"), "sm_90", {}, false);
  }
  Generated(Generated &&) = default;
};

/// The extern "C" kernels of an example: the names the runtime, the GPU tests
/// and the benchmark launch (the same as every earlier creditc generated).
std::set<std::string> expectedKernels(const std::string &k, const std::vector<Variant> &vs) {
  std::set<std::string> out;
  auto want = [&](Variant v) { return vs.empty() || std::count(vs.begin(), vs.end(), v); };
  const std::string p = "credit_" + k + "_";
  if (want(Variant::Cluster)) {
    for (const char *s : {"cluster_sync_v4", "cluster_sync_v1", "cluster_mbarrier_v4", "cluster_mbarrier_v1",
                          "cluster_regs_sync_v4", "cluster_regs_sync_v1", "cluster_regs_mbarrier_v4",
                          "cluster_regs_mbarrier_v1", "cluster_sync_v4_cta512", "cluster_sync_v1_cta512",
                          "cluster_mbarrier_v4_cta512", "cluster_mbarrier_v1_cta512",
                          "cluster_persistent_v4_cta512", "cluster_persistent_halves_v4_cta512",
                          "cluster_persistent_claims_v4_cta512", "cluster_persistent_halves_claims_v4_cta512"})
      out.insert(p + s);
    // The partial-retention form: two or more kept inputs.
    if (k != "layernorm" && k != "quant_int8")
      for (const char *s : {"cluster_partial_sync_v4", "cluster_partial_sync_v1", "cluster_partial_mbarrier_v4",
                            "cluster_partial_mbarrier_v1"})
        out.insert(p + s);
  }
  if (want(Variant::Staged)) {
    for (const char *s : {"staged_v4", "staged_v1", "staged_regs_v4", "staged_regs_v1", "staged_regs_wide_v4",
                          "staged_regs_wide_v1", "staged_v4_cta512", "staged_v1_cta512",
                          "staged_regs_wide_v4_cta512", "staged_regs_wide_v1_cta512"})
      out.insert(p + s);
    // The deep register twin: one kept input.
    if (k == "layernorm" || k == "quant_int8")
      out.insert({p + "staged_regs_deep_v4_cta512", p + "staged_regs_deep_v1_cta512"});
  }
  if (want(Variant::Reread))
    out.insert({p + "reread_v4", p + "reread_v1"});
  if (want(Variant::Control))
    out.insert({p + "control_sync", p + "control_mbarrier"});
  return out;
}

/// NVRTC: ok, a cubin, exactly `want` as entry points (any if empty), none of
/// them spilling.
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
  }
  if (!want.empty())
    CHECK(got == want);
}

size_t count(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

size_t lines(const std::string &text) { return count(text, "\n"); }

} // namespace

TEST_CASE("every example compiles with NVRTC for every target, no spills", "[codegen][nvrtc]") {
  for (const char *k : kExamples)
    for (const char *arch : kArchs) {
      DYNAMIC_SECTION(k << " " << arch) {
        Generated g = Generated::file(examplePath(k), arch);
        checkCompiles(g, arch, expectedKernels(k, {}));
      }
    }
}

/// Every non-empty subset of the four variants, on two examples: fn(example, subset, mask).
template <typename Fn> static void forEachVariantSubset(Fn fn) {
  for (const char *k : {"layernorm", "pearson_bwd"})
    for (unsigned mask = 1; mask < 16; ++mask) {
      std::vector<Variant> subset;
      std::string label;
      for (unsigned i = 0; i < 4; ++i)
        if (mask & (1u << i)) {
          subset.push_back(kVariants[i]);
          label += variantName(kVariants[i]).str() + " ";
        }
      DYNAMIC_SECTION(k << " " << label) { fn(k, subset, mask); }
    }
}

TEST_CASE("every --variant subset holds only its launchers", "[codegen]") {
  const char *const launchers[] = {"launch_cluster", "launch_staged", "launch_reread", "launch_control"};
  forEachVariantSubset([&](const char *k, const std::vector<Variant> &subset, unsigned mask) {
    Generated g = Generated::file(examplePath(k), "sm_90", subset);
    for (unsigned i = 0; i < 4; ++i)
      CHECK(count(g.cuda, std::string("int credit_") + k + "_" + launchers[i] + "(") ==
            ((mask & (1u << i)) ? 1u : 0u));
    // The generic entry points are always there.
    for (const char *fn : {"_signature(", "_max_legal_n(", "_launch_generic(", "_status_string("})
      CHECK(count(g.cuda, std::string("credit_") + k + fn) == 1);
  });
}

TEST_CASE("every --variant subset compiles to only its kernels", "[codegen][nvrtc]") {
  forEachVariantSubset([&](const char *k, const std::vector<Variant> &subset, unsigned) {
    Generated g = Generated::file(examplePath(k), "sm_90", subset);
    checkCompiles(g, "sm_90", expectedKernels(k, subset));
  });
}

TEST_CASE("the generated file is lean: the Workload, one line per kernel, the API", "[codegen]") {
  Generated g = Generated::file(examplePath("layernorm"));
  CHECK(lines(g.cuda) <= 600);
  CHECK(count(g.cuda, "#include <credit/device/row_kernel.cuh>") == 1);
  CHECK(count(g.cuda, "struct Workload {") == 1);
  CHECK(count(g.cuda, "__global__") == 0); // the kernels are the library's
  CHECK(count(g.cuda, "asm(") == 0);
  CHECK(count(g.cuda, "_KERNEL(credit_layernorm_") == expectedKernels("layernorm", {}).size());
  // The launch API is host code only.
  CHECK(count(g.cuda, "#if !defined(__CUDACC_RTC__)\n#include <credit/runtime/Launch.h>") == 1);
}

TEST_CASE("the Workload's constants are the schedule's", "[codegen]") {
  for (const char *k : kExamples) {
    DYNAMIC_SECTION(k) {
      Generated g = Generated::file(examplePath(k));
      mlir::FailureOr<cr::KernelSchedule> s = cr::readSchedule(g.kernel);
      REQUIRE(succeeded(s));
      auto list = [](auto values) {
        std::string out;
        for (auto v : values)
          out += (out.empty() ? "" : ", ") + std::to_string(v);
        return out;
      };
      CHECK(count(g.cuda, "static constexpr int kNumKept = " + std::to_string(s->kept.size()) + ";") == 1);
      CHECK(count(g.cuda, "static constexpr int kKept[kNumKept] = {" + list(s->kept) + "};") == 1);
      CHECK(count(g.cuda, "static constexpr int kSmemSlot[kNumKept] = {" + list(s->smemSlot) + "};") == 1);
      CHECK(count(g.cuda, "static constexpr int kPartialDrop = " + std::to_string(s->partialDrop) + ";") == 1);
      CHECK(count(g.cuda, llvm::formatv("static constexpr int kThreads = {0}, kWideThreads = {1};", s->threads,
                                        s->wideThreads)
                              .str()) == 1);
      // The figures tools read, as the analyses recorded them.
      const ::credit::WorkloadGeometry &geo = s->geometry;
      CHECK(count(g.cuda, llvm::formatv("inline constexpr credit::WorkloadGeometry geometry = "
                                        "{{{0}, {1}, {2}, {3}, {4}, {5}};",
                                        geo.keepBytesPerElem, geo.numStages, geo.qMax, geo.qSum, geo.threads,
                                        geo.hOnlyArrays)
                              .str()) == 1);
      mlir::FailureOr<cr::Barriers> b = cr::readBarriers(g.kernel);
      REQUIRE(succeeded(b));
      CHECK(count(g.cuda, "inline constexpr int K_sync = " + std::to_string(b->sync) + ";") == 1);
      CHECK(count(g.cuda, "inline constexpr int K_mbarrier = " + std::to_string(b->mbarrier) + ";") == 1);
      // One pass function per pass, one finish per stage.
      for (size_t p = 0; p < s->passes.size(); ++p)
        CHECK(count(g.cuda, "static void pass(Pass<" + std::to_string(p) + ">") == 1);
      CHECK(count(g.cuda, "static void finish(Stage<") == s->passes.size() - 1);
    }
  }
}

TEST_CASE("the generic signature lists the data arguments in order", "[codegen]") {
  CHECK(count(Generated::file(examplePath("quant_int8")).cuda,
              "return \"x:in:row:f32;q:out:row:i8;scale:out:scalar:f32\";") == 1);
  CHECK(count(Generated::file(examplePath("layernorm")).cuda,
              "return \"x:in:row:f32;gamma:in:broadcast:f32;beta:in:broadcast:f32;y:out:row:f32\";") == 1);
  CHECK(count(Generated::file(examplePath("wvar_bwd")).cuda,
              "return \"x:in:row:f32;w:in:row:f32;g:in:scalar:f32;dx:out:row:f32;dw:out:row:f32\";") == 1);
}

TEST_CASE("emission is deterministic", "[codegen]") {
  CHECK(Generated::file(examplePath("pearson_bwd")).cuda == Generated::file(examplePath("pearson_bwd")).cuda);
  CHECK(count(Generated::file(examplePath("pearson_bwd"), "sm_120").cuda, "credit::findTarget(\"sm_120\")") == 1);
}

TEST_CASE("names that clash with keywords, macros and the library compile", "[codegen][nvrtc]") {
  for (const char *arch : kArchs) {
    DYNAMIC_SECTION(arch) {
      Generated g = Generated::file(inputPath("names_stress"), arch);
      checkCompiles(g, arch, {});
    }
  }
}

TEST_CASE("names that clash keep their source names where C++ allows, else get a `_`", "[codegen]") {
  Generated g = Generated::file(inputPath("names_stress"));
  CHECK(count(g.cuda, "int credit_names_stress_launch_staged(const float* float_, const float* INFINITY_, "
                      "const float* linux_, const float* r, const float* unused, float* int_, int8_t* e, "
                      "float* INT_MAX_, long long M, long long N, cudaStream_t stream)") == 1);
  CHECK(count(g.cuda, "static constexpr float NAN_ = 2.0f;") == 1);
}

/// let a1 = a0 * a0, a2 = a1 * a1, ...: each let used twice by the next.
static std::string letChainSource(int lets) {
  std::string src = "kernel chain {\n  in x : f32[N]\n  out y : f32[N]\n  stage { m = max(x) }\n"
                    "  let a0 = x - m\n";
  for (int i = 1; i <= lets; ++i)
    src += llvm::formatv("  let a{0} = a{1} * a{1} + a{1}\n", i, i - 1).str();
  src += llvm::formatv("  y = a{0} * a{0}\n}\n", lets).str();
  return src;
}

TEST_CASE("a chain of lets stays linear in size", "[codegen]") {
  Generated g = Generated::text(letChainSource(40));
  CHECK(lines(g.cuda) < 400);
  CHECK(g.cuda.size() < 40000);
}

TEST_CASE("a chain of lets compiles", "[codegen][nvrtc]") {
  Generated g = Generated::text(letChainSource(40));
  checkCompiles(g, "sm_90", {});
}
