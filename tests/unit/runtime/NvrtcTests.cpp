// NVRTC: the device library compiles from the headers embedded in the runtime
// (with every exchange primitive used) for sm_90, sm_100 and sm_120, without a GPU.
#include "credit/runtime/EmbeddedSources.h"
#include "credit/runtime/Library.h"
#include "credit/runtime/Nvrtc.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <unistd.h>

using namespace credit;

namespace {

// A hand-written stand-in for a row kernel: a one-stage all-gather of three
// statistics (sum, max, min) over the row slices of a cluster, once with the sync
// protocol and once with the mbarrier protocol, from the device library's
// primitives. Its #includes resolve to the headers NVRTC gets from the runtime
// (no include path), or to runtime/include for nvcc.
const char* const kTestKernels = R"cu(
#include "credit/device/exchange.cuh"
#include "credit/device/memory.cuh"
#include "credit/device/ptx.cuh"
#include "credit/device/reduce.cuh"
#include "credit/runtime/Layout.h"
#include "credit/runtime/LaunchCheck.h"

// The layout and launch rules are constexpr on the device side as well.
static_assert(credit::pickPad(56, 2) == 16, "bank-conflict pad");
static_assert(credit::sliceElems(65536, 8) == 8192, "slice");
static_assert(credit::isValidClusterSize(16), "cluster sizes");

namespace {
using namespace credit::device;
constexpr int kThreads = 256;
constexpr int kQ = 3;  // sum, max, min
constexpr credit::WorkloadGeometry kGeom{4, 1, kQ, kQ, kThreads};

template <int VEC>
__device__ __forceinline__ void test_load_slice(const float* __restrict__ xr, float* keep, long long begin,
                                                long long end, float (&acc)[kQ]) {
  acc[0] = identity<Reduce::Sum>();
  acc[1] = identity<Reduce::Max>();
  acc[2] = identity<Reduce::Min>();
  for (long long i = begin + VEC * threadIdx.x; i < end; i += VEC * blockDim.x) {
    float v[VEC];
    ld_global<VEC>(v, xr + i);  // end - begin is a multiple of VEC
    st_smem<VEC>(keep + (i - begin), v);
    for (int e = 0; e < VEC; ++e) {
      acc[0] = combine<Reduce::Sum>(acc[0], v[e]);
      acc[1] = combine<Reduce::Max>(acc[1], v[e]);
      acc[2] = combine<Reduce::Min>(acc[2], v[e]);
    }
  }
}
}  // namespace

// y = (x - mean) / (max - min), one row per cluster, sync protocol.
template <int VEC>
__global__ void __launch_bounds__(kThreads) credit_test_exchange_sync(const float* __restrict__ x,
                                                                      float* __restrict__ y, int N) {
  ptx::cluster_arrive_relaxed();  // rule 0, split: overlaps the load below
  unsigned char* smem = ptx::dynamic_smem();
  const int P = static_cast<int>(ptx::cluster_nctarank());
  const int rank = static_cast<int>(ptx::cluster_ctarank());
  const long long row = blockIdx.x / P;
  const credit::SmemLayout L = credit::smemLayout(kGeom, N, P, credit::Protocol::Sync);
  float* warp_part = reinterpret_cast<float*>(smem + L.warpPartialsOffset);
  float* cta_part = reinterpret_cast<float*>(smem + L.ctaPartialOffset);
  float* slots = reinterpret_cast<float*>(smem + L.slotsOffset);
  float* keep = reinterpret_cast<float*>(smem + L.keepOffset);
  const long long slice = credit::sliceElems(N, P);
  const long long begin = rank * slice;
  const long long end = begin + slice < N ? begin + slice : N;
  float acc[kQ];
  test_load_slice<VEC>(x + row * N, keep, begin, end, acc);
  BlockReduce<kThreads / 32, kQ, Reduce::Sum, Reduce::Max, Reduce::Min>::run(acc, warp_part, cta_part,
                                                                             threadIdx.x / 32, threadIdx.x % 32);
  ptx::cluster_wait();  // rule 0: every CTA of the cluster has started
  push_sync<kQ>(cta_part, slots, P);
  ptx::cluster_sync();  // every CTA's pushes visible before anyone combines
  const float mean = combine_slots<Reduce::Sum>(slots, 0, kQ, P) / static_cast<float>(N);
  const float hi = combine_slots<Reduce::Max>(slots, 1, kQ, P);
  const float lo = combine_slots<Reduce::Min>(slots, 2, kQ, P);
  ptx::cluster_sync();  // slots read by all before reuse or exit
  const float inv = 1.0f / (hi - lo);
  for (long long i = begin + threadIdx.x; i < end; i += blockDim.x) y[row * N + i] = (keep[i - begin] - mean) * inv;
}

// The same computation, mbarrier protocol.
extern "C" __global__ void __launch_bounds__(kThreads) credit_test_exchange_mbarrier(const float* __restrict__ x,
                                                                                     float* __restrict__ y, int N) {
  unsigned char* smem = ptx::dynamic_smem();
  const int P = static_cast<int>(ptx::cluster_nctarank());
  const int rank = static_cast<int>(ptx::cluster_ctarank());
  const long long row = blockIdx.x / P;
  const credit::SmemLayout L = credit::smemLayout(kGeom, N, P, credit::Protocol::Mbarrier);
  float* warp_part = reinterpret_cast<float*>(smem + L.warpPartialsOffset);
  float* cta_part = reinterpret_cast<float*>(smem + L.ctaPartialOffset);
  float* slots = reinterpret_cast<float*>(smem + L.slotsOffset);
  uint64_t* bar = reinterpret_cast<uint64_t*>(smem + L.mbarOffset);
  float* keep = reinterpret_cast<float*>(smem + L.keepOffset);
  const uint32_t bar_addr = ptx::smem_addr(bar);
  if (threadIdx.x == 0) {
    ptx::mbar_init(bar_addr, 1);
    ptx::fence_mbarrier_init_cluster();
  }
  ptx::cluster_arrive();  // release the init; the split set-up barrier (rule 0 too)
  const long long slice = credit::sliceElems(N, P);
  const long long begin = rank * slice;
  const long long end = begin + slice < N ? begin + slice : N;
  float acc[kQ];
  test_load_slice<1>(x + row * N, keep, begin, end, acc);
  BlockReduce<kThreads / 32, kQ, Reduce::Sum, Reduce::Max, Reduce::Min>::run(acc, warp_part, cta_part,
                                                                             threadIdx.x / 32, threadIdx.x % 32);
  if (threadIdx.x == 0) ptx::mbar_arrive_expect_tx(bar_addr, static_cast<uint32_t>(P * kQ * 4));
  ptx::cluster_wait();  // every peer started and its mbarrier initialised
  push_async<kQ>(cta_part, slots, bar, P);
  if (P == 1) __syncthreads();
  ptx::mbar_wait(bar_addr, 0);
  const float mean = combine_slots<Reduce::Sum>(slots, 0, kQ, P) / static_cast<float>(N);
  const float hi = combine_slots<Reduce::Max>(slots, 1, kQ, P);
  const float lo = combine_slots<Reduce::Min>(slots, 2, kQ, P);
  const float inv = 1.0f / (hi - lo);
  for (long long i = begin + threadIdx.x; i < end; i += blockDim.x) y[row * N + i] = (keep[i - begin] - mean) * inv;
}

template __global__ void credit_test_exchange_sync<4>(const float*, float*, int);
template __global__ void credit_test_exchange_sync<1>(const float*, float*, int);
)cu";

}  // namespace

TEST_CASE("embedded library headers", "[embed]") {
  std::size_t n = 0;
  const EmbeddedHeader* h = deviceLibraryHeaders(&n);
  REQUIRE(n >= 10);
  // Dependency order: every credit/ header a header includes comes before it.
  std::vector<std::string> seen;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string text = h[i].text;
    INFO(h[i].name);
    CHECK(std::string(h[i].name).rfind("credit/", 0) == 0);
    std::size_t pos = 0;
    while ((pos = text.find("#include \"credit/", pos)) != std::string::npos) {
      const std::size_t b = pos + 10, e = text.find('"', b);
      const std::string inc = text.substr(b, e - b);
      CHECK(std::find(seen.begin(), seen.end(), inc) != seen.end());
      pos = e;
    }
    seen.push_back(h[i].name);
  }
  CHECK(std::find(seen.begin(), seen.end(), "credit/device/row_kernel.cuh") != seen.end());
  std::size_t nh = 0;
  const EmbeddedHeader* host = hostLibraryHeaders(&nh);
  REQUIRE(nh >= 3);
  CHECK(std::string(host[nh - 1].name) == "credit/runtime/Dispatch.h");
  const std::string inlined = inlineLibraryHeaders(true);
  CHECK(inlined.find("#include \"credit/") == std::string::npos);
  CHECK(inlined.find("#include <credit/") == std::string::npos);
  CHECK(inlined.find("struct RowKernel") != std::string::npos);
  CHECK(inlined.find("launchCluster") != std::string::npos);
  CHECK(libraryDigest().size() == 64);
}

TEST_CASE("NVRTC version", "[nvrtc]") {
  const std::string v = nvrtcVersionString();
  CHECK(v.find('.') != std::string::npos);
  CHECK(v != "unknown");
}

TEST_CASE("NVRTC compiles the library's exchange protocols with no include path", "[nvrtc]") {
  const std::string src = kTestKernels;
  for (const char* arch : {"sm_90", "sm_100", "sm_120"}) {
    NvrtcOptions opt;
    opt.arch = arch;
    opt.nameExpressions = {"credit_test_exchange_sync<4>", "credit_test_exchange_sync<1>"};
    const NvrtcResult r = compileToCubin(src, "credit_test_kernels.cu", opt);
    INFO("arch " << arch << "\nlog:\n" << r.log);
    REQUIRE(r.ok);
    REQUIRE(r.cubin.size() > 4);
    CHECK(std::memcmp(r.cubin.data(), "\x7f" "ELF", 4) == 0);
    CHECK(r.nvrtcVersion == nvrtcVersionString());
    REQUIRE(r.loweredNames.size() == 2);
    // ptxas -v lines reached the log and were parsed: 3 entry functions.
    CHECK(r.log.find("Compiling entry function") != std::string::npos);
    REQUIRE(r.kernels.size() == 3);
    bool sawMbarrier = false;
    int sawSync = 0;
    for (const KernelResources& k : r.kernels) {
      INFO("kernel " << k.name);
      CHECK(k.registers > 0);
      CHECK(k.spillStoreBytes == 0);
      CHECK(k.spillLoadBytes == 0);
      CHECK(k.stackFrameBytes == 0);
      CHECK(k.sharedBytes == 0);  // dynamic SMEM only
      if (k.name == "credit_test_exchange_mbarrier") sawMbarrier = true;
      for (const auto& ln : r.loweredNames)
        if (k.name == ln.second) ++sawSync;
    }
    CHECK(sawMbarrier);
    CHECK(sawSync == 2);
    for (const KernelResources& f : r.functions) {
      INFO("function " << f.name);
      CHECK(f.spillStoreBytes == 0);
      CHECK(f.spillLoadBytes == 0);
    }
  }
}

TEST_CASE("NVRTC reports a compile error without throwing", "[nvrtc]") {
  NvrtcOptions opt;
  const NvrtcResult r = compileToCubin(
      "#include <credit/device/ptx.cuh>\n"
      "extern \"C\" __global__ void broken(float* x) { x[0] = credit_no_such_fn(1.0f) }\n",
      "broken.cu", opt);
  CHECK_FALSE(r.ok);
  CHECK(r.cubin.empty());
  CHECK(r.kernels.empty());
  CHECK(r.log.find("error") != std::string::npos);
  CHECK(r.log.find("credit_no_such_fn") != std::string::npos);

  NvrtcOptions bad;
  bad.arch = "sm_1";  // invalid option: still no throw
  const NvrtcResult b = compileToCubin("__global__ void k() {}\n", "k.cu", bad);
  CHECK_FALSE(b.ok);
  CHECK_FALSE(b.log.empty());
}

TEST_CASE("NVRTC options: defines, include dirs, flags", "[nvrtc]") {
  NvrtcOptions opt;
  opt.defines = {"CREDIT_TEST_VALUE=3"};
  opt.extraFlags = {"--use_fast_math"};
  const NvrtcResult r = compileToCubin(
      "static_assert(CREDIT_TEST_VALUE == 3, \"define\");\n"
      "#include <cuda/std/cstdint>\n"
      "extern \"C\" __global__ void k(float* x) { x[threadIdx.x] = __expf(x[0]); }\n",
      "k.cu", opt);
  INFO(r.log);
  CHECK(r.ok);
  bool sawPtxas = false, sawStd = false;
  for (const std::string& f : r.flags) {
    if (f == "--ptxas-options=-v") sawPtxas = true;
    if (f == "-std=c++17") sawStd = true;
  }
  CHECK(sawPtxas);
  CHECK(sawStd);
  CHECK(r.flags.front() == "--gpu-architecture=sm_90");
  CHECK(defaultNvrtcIncludeDirs().size() == 2);
}

// nvcc is stricter than NVRTC in places (e.g. it rejects binding a reference
// to a namespace-scope constexpr object in device code), so the same source is
// also compiled with nvcc -c when a toolkit with nvcc is present. Warnings are
// errors: the library must be warning-free for generated code.
TEST_CASE("nvcc compiles the same source warning-free", "[nvcc]") {
  std::string root = "/usr/local/cuda";
  if (const char* env = std::getenv("CUDA_HOME"); env && *env) root = env;
  const std::string nvcc = root + "/bin/nvcc";
  if (access(nvcc.c_str(), X_OK) != 0) {
    WARN("nvcc not found at " << nvcc << "; skipped");
    return;
  }
  char dir[] = "/tmp/credit-nvcc-XXXXXX";
  REQUIRE(mkdtemp(dir) != nullptr);
  const std::string cu = std::string(dir) + "/kernels.cu";
  {
    std::ofstream out(cu);
    out << kTestKernels;
  }
  for (const char* arch : {"sm_90", "sm_120"}) {
    const std::string cmd = nvcc + " -std=c++17 -arch=" + arch + " -Werror all-warnings -I" +
                            CREDIT_RUNTIME_INCLUDE_DIR + " -c " + cu + " -o " + dir + "/kernels.o > " + dir +
                            "/log.txt 2>&1";
    const int rc = std::system(cmd.c_str());
    std::ifstream in(std::string(dir) + "/log.txt");
    const std::string log((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    INFO(cmd << "\n" << log);
    CHECK(rc == 0);
  }
  std::remove((std::string(dir) + "/kernels.o").c_str());
  std::remove((std::string(dir) + "/log.txt").c_str());
  std::remove(cu.c_str());
  rmdir(dir);
}

TEST_CASE("parsePtxasLog", "[nvrtc]") {
  const std::string log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'kern_a' for 'sm_90'\n"
      "ptxas info    : Function properties for kern_a\n"
      "ptxas         .     24 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
      "ptxas info    : Used 255 registers, used 1 barriers, 24 bytes cumulative stack size, "
      "1024 bytes smem, 380 bytes cmem[0], 8 bytes cmem[2]\n"
      "ptxas info    : Compile time = 9.5 ms\n"
      "ptxas info    : Compiling entry function '_Z1kILi4EEvPfm' for 'sm_90'\n"
      "ptxas info    : Function properties for _Z1kILi4EEvPfm\n"
      "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 30 registers, used 0 barriers\n"
      "ptxas info    : Function properties for _Z1fPfi\n"
      "ptxas         .     16 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n";
  std::vector<KernelResources> k, f;
  parsePtxasLog(log, k, f);
  REQUIRE(k.size() == 2);
  CHECK(k[0].name == "kern_a");
  CHECK(k[0].registers == 255);
  CHECK(k[0].barriers == 1);
  CHECK(k[0].stackFrameBytes == 24);
  CHECK(k[0].spillStoreBytes == 8);
  CHECK(k[0].spillLoadBytes == 12);
  CHECK(k[0].cumulativeStackBytes == 24);
  CHECK(k[0].sharedBytes == 1024);
  CHECK(k[0].constBytes == 388);
  CHECK(k[1].name == "_Z1kILi4EEvPfm");
  CHECK(k[1].registers == 30);
  CHECK(k[1].barriers == 0);
  CHECK(k[1].sharedBytes == 0);
  CHECK(k[1].spillStoreBytes == 0);
  REQUIRE(f.size() == 1);
  CHECK(f[0].name == "_Z1fPfi");
  CHECK(f[0].stackFrameBytes == 16);
  CHECK(f[0].spillStoreBytes == 4);
}
