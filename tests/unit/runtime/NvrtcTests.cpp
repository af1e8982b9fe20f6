// NVRTC: the embedded runtime headers + device prelude compile (with every
// primitive used) for sm_90, sm_100 and sm_120, without a GPU.
#include "credit/runtime/EmbeddedSources.h"
#include "credit/runtime/Nvrtc.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <unistd.h>

using namespace credit;

namespace {

// Hand-written stand-in for generated code: a one-stage all-gather of three
// statistics (sum, max, min) over the row slices of a cluster, once with the
// Sync protocol (rule-0 arrive/wait, push_sync + 2 cluster syncs) and once
// with the Mbarrier protocol (init, fence, 1 split setup cluster barrier,
// arrive_expect_tx, push_async, wait). Compiles standalone with nvcc too (the #includes are skipped when the
// embedded texts precede it).
const char* const kTestKernels = R"cu(
#ifndef CREDIT_LAYOUT_H
#include "credit/runtime/Layout.h"
#endif
#ifndef CREDIT_LAUNCH_CHECK_H
#include "credit/runtime/LaunchCheck.h"
#endif
#ifndef CREDIT_DEVICE_CUH
#include "credit/device/credit_device.cuh"
#endif

// Layout.h / LaunchCheck.h are constexpr on the device side as well.
static_assert(credit::pickPad(56, 2) == 16, "seed 002 rule");
static_assert(credit::sliceElems(65536, 8) == 8192, "slice");
static_assert(credit::isValidClusterSize(16), "cluster sizes");

namespace {
constexpr int kThreads = 256;
constexpr int kQ = 3;  // sum, max, min
constexpr credit::WorkloadGeometry kGeom{4, 1, kQ, kQ, kThreads};
}

// Thread -> warp -> CTA reduction of the three statistics into cta_part[0..3).
// Ends with __syncthreads(): cta_part is complete for the push.
static __device__ __forceinline__ void test_cta_reduce(float s, float mx, float mn,
                                                       float* warp_part, float* cta_part) {
  s = credit_warp_reduce<CREDIT_SUM>(s);
  mx = credit_warp_reduce<CREDIT_MAX>(mx);
  mn = credit_warp_reduce<CREDIT_MIN>(mn);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) {
    warp_part[warp * kQ + 0] = s;
    warp_part[warp * kQ + 1] = mx;
    warp_part[warp * kQ + 2] = mn;
  }
  __syncthreads();
  if (warp == 0) {
    const int nw = blockDim.x >> 5;
    float a = lane < nw ? warp_part[lane * kQ + 0] : credit_identity<CREDIT_SUM>();
    float b = lane < nw ? warp_part[lane * kQ + 1] : credit_identity<CREDIT_MAX>();
    float c = lane < nw ? warp_part[lane * kQ + 2] : credit_identity<CREDIT_MIN>();
    a = credit_warp_reduce<CREDIT_SUM>(a);
    b = credit_warp_reduce<CREDIT_MAX>(b);
    c = credit_warp_reduce<CREDIT_MIN>(c);
    if (lane == 0) {
      cta_part[0] = a;
      cta_part[1] = b;
      cta_part[2] = c;
    }
  }
  __syncthreads();
}

template <int VEC>
static __device__ __forceinline__ void test_load_slice(const float* __restrict__ xr, float* keep,
                                                       long long begin, long long end,
                                                       float& s, float& mx, float& mn) {
  s = credit_identity<CREDIT_SUM>();
  mx = credit_identity<CREDIT_MAX>();
  mn = credit_identity<CREDIT_MIN>();
  if (VEC == 4) {
    for (long long i = begin + 4 * threadIdx.x; i < end; i += 4 * blockDim.x) {
      const float4 v = *reinterpret_cast<const float4*>(xr + i);  // end - begin is a multiple of 4
      *reinterpret_cast<float4*>(keep + (i - begin)) = v;
      s += (v.x + v.y) + (v.z + v.w);
      mx = credit_combine<CREDIT_MAX>(mx, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
      mn = credit_combine<CREDIT_MIN>(mn, fminf(fminf(v.x, v.y), fminf(v.z, v.w)));
    }
  } else {
    for (long long i = begin + threadIdx.x; i < end; i += blockDim.x) {
      const float v = xr[i];
      keep[i - begin] = v;
      s = credit_combine<CREDIT_SUM>(s, v);
      mx = credit_combine<CREDIT_MAX>(mx, v);
      mn = credit_combine<CREDIT_MIN>(mn, v);
    }
  }
}

// y = (x - mean) / (max - min), one row per cluster, Sync protocol.
template <int VEC>
__global__ void __launch_bounds__(kThreads)
credit_test_exchange_sync(const float* __restrict__ x, float* __restrict__ y, int N) {
  credit_cluster_arrive_relaxed();  // rule 0, split: overlaps the load below
  unsigned char* credit_smem = credit_dynamic_smem();
  const int P = static_cast<int>(credit_cluster_nctarank());
  const int rank = static_cast<int>(credit_cluster_ctarank());
  const long long row = blockIdx.x / P;
  const credit::SmemLayout L = credit::smemLayout(kGeom, N, P, credit::Protocol::Sync);
  float* warp_part = reinterpret_cast<float*>(credit_smem + L.warpPartialsOffset);
  float* cta_part = reinterpret_cast<float*>(credit_smem + L.ctaPartialOffset);
  float* slots = reinterpret_cast<float*>(credit_smem + L.slotsOffset);
  float* keep = reinterpret_cast<float*>(credit_smem + L.keepOffset);
  const long long slice = credit::sliceElems(N, P);
  const long long begin = rank * slice;
  const long long end = begin + slice < N ? begin + slice : N;
  const float* xr = x + row * N;

  float s, mx, mn;
  test_load_slice<VEC>(xr, keep, begin, end, s, mx, mn);
  test_cta_reduce(s, mx, mn, warp_part, cta_part);

  credit_cluster_wait();  // rule 0: every CTA of the cluster has started
  credit_push_sync<kQ>(cta_part, slots, P);
  credit_cluster_sync();  // rule 1: every CTA's pushes visible before anyone combines
  const float mean = credit_combine_slots<CREDIT_SUM>(slots, 0, kQ, P) / static_cast<float>(N);
  const float hi = credit_combine_slots<CREDIT_MAX>(slots, 1, kQ, P);
  const float lo = credit_combine_slots<CREDIT_MIN>(slots, 2, kQ, P);
  credit_cluster_sync();  // rule 2: slots read by all before reuse / exit

  const float inv = 1.0f / (hi - lo);
  for (long long i = begin + threadIdx.x; i < end; i += blockDim.x)
    y[row * N + i] = (keep[i - begin] - mean) * inv;
}

// Same computation, Mbarrier protocol.
extern "C" __global__ void __launch_bounds__(kThreads)
credit_test_exchange_mbarrier(const float* __restrict__ x, float* __restrict__ y, int N) {
  unsigned char* credit_smem = credit_dynamic_smem();
  const int P = static_cast<int>(credit_cluster_nctarank());
  const int rank = static_cast<int>(credit_cluster_ctarank());
  const long long row = blockIdx.x / P;
  const credit::SmemLayout L = credit::smemLayout(kGeom, N, P, credit::Protocol::Mbarrier);
  float* warp_part = reinterpret_cast<float*>(credit_smem + L.warpPartialsOffset);
  float* cta_part = reinterpret_cast<float*>(credit_smem + L.ctaPartialOffset);
  float* slots = reinterpret_cast<float*>(credit_smem + L.slotsOffset);
  uint64_t* bar = reinterpret_cast<uint64_t*>(credit_smem + L.mbarOffset);
  float* keep = reinterpret_cast<float*>(credit_smem + L.keepOffset);
  const uint32_t bar_addr = credit_smem_addr(bar);

  if (threadIdx.x == 0) {
    credit_mbar_init(bar_addr, 1);
    credit_fence_mbarrier_init_cluster();
  }
  credit_cluster_arrive();  // release the init; split setup barrier (rule 0 too)

  const long long slice = credit::sliceElems(N, P);
  const long long begin = rank * slice;
  const long long end = begin + slice < N ? begin + slice : N;
  const float* xr = x + row * N;
  float s, mx, mn;
  test_load_slice<1>(xr, keep, begin, end, s, mx, mn);
  test_cta_reduce(s, mx, mn, warp_part, cta_part);

  if (threadIdx.x == 0) credit_mbar_arrive_expect_tx(bar_addr, static_cast<uint32_t>(P * kQ * 4));
  credit_cluster_wait();  // every peer started and its mbarrier initialised
  credit_push_async<kQ>(cta_part, slots, bar, P);
  credit_mbar_wait(bar_addr, 0);

  const float mean = credit_combine_slots<CREDIT_SUM>(slots, 0, kQ, P) / static_cast<float>(N);
  const float hi = credit_combine_slots<CREDIT_MAX>(slots, 1, kQ, P);
  const float lo = credit_combine_slots<CREDIT_MIN>(slots, 2, kQ, P);
  const float inv = 1.0f / (hi - lo);
  for (long long i = begin + threadIdx.x; i < end; i += blockDim.x)
    y[row * N + i] = (keep[i - begin] - mean) * inv;
}

template __global__ void credit_test_exchange_sync<4>(const float*, float*, int);
template __global__ void credit_test_exchange_sync<1>(const float*, float*, int);
)cu";

std::string fullSource() {
  std::string src;
  src += embedded::kLayoutH;
  src += embedded::kLaunchCheckH;
  src += embedded::kDevicePreludeCuh;
  src += kTestKernels;
  return src;
}

}  // namespace

TEST_CASE("embedded sources", "[embed]") {
  const std::string layout = embedded::kLayoutH;
  const std::string launch = embedded::kLaunchCheckH;
  const std::string prelude = embedded::kDevicePreludeCuh;
  CHECK(layout.find("#ifndef CREDIT_LAYOUT_H") != std::string::npos);
  CHECK(layout.find("pickPad") != std::string::npos);
  CHECK(launch.find("#ifndef CREDIT_LAUNCH_CHECK_H") != std::string::npos);
  CHECK(prelude.find("#ifndef CREDIT_DEVICE_CUH") != std::string::npos);
  CHECK(prelude.find("credit_push_async") != std::string::npos);
  // Verbatim: the files end with their closing #endif and a newline.
  CHECK(layout.substr(layout.size() - 1) == "\n");
  CHECK(prelude.rfind("#endif") != std::string::npos);
}

TEST_CASE("NVRTC version", "[nvrtc]") {
  const std::string v = nvrtcVersionString();
  CHECK(v.find('.') != std::string::npos);
  CHECK(v != "unknown");
}

TEST_CASE("NVRTC compiles the prelude and both exchange protocols", "[nvrtc]") {
  const std::string src = fullSource();
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
      std::string(embedded::kDevicePreludeCuh) +
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
// errors: the prelude must be warning-free for generated code.
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
    out << fullSource();
  }
  for (const char* arch : {"sm_90", "sm_120"}) {
    const std::string cmd = nvcc + " -std=c++17 -arch=" + arch + " -Werror all-warnings -c " +
                            cu + " -o " + dir + "/kernels.o > " + dir + "/log.txt 2>&1";
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
