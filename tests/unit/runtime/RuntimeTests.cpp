// Runtime: the dlopen()ed driver-API layer. The untagged cases run anywhere
// (no GPU, no libcuda); the [gpu] cases need a device and otherwise WARN
// "SKIPPED: no CUDA device: <reason>" and return.
#include "credit/runtime/Runtime.h"

#include "TestSupport.h"

#include <catch2/catch.hpp>

#include <ftw.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace credit;
using credit::testing::EnvGuard;
using credit::testing::TempDir;

namespace {



bool startsWith(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

// The toolkit's stub libcuda.so (exports every driver symbol; cuInit fails).
std::string stubLibcuda() {
  std::string inc = defaultNvrtcIncludeDirs().front();  // <root>/include
  const std::string root = inc.substr(0, inc.rfind('/'));
  for (const char* rel : {"/lib64/stubs/libcuda.so", "/lib/stubs/libcuda.so",
                          "/targets/x86_64-linux/lib/stubs/libcuda.so"}) {
    const std::string p = root + rel;
    if (access(p.c_str(), R_OK) == 0) return p;
  }
  return std::string();
}

// Creates the runtime or WARNs the skip (visible in the Catch2 output).
#define CREDIT_REQUIRE_GPU(rt)                                         \
  do {                                                                 \
    const Status credit_gpu_status_ = Runtime::create(rt);             \
    if (!credit_gpu_status_.ok()) {                                    \
      WARN("SKIPPED: no CUDA device: " << credit_gpu_status_.message); \
      return;                                                          \
    }                                                                  \
  } while (0)

// One cluster all-gather with the device library's sync protocol: CTA r of a cluster
// of P pushes r+1 into every peer's slot r (DSMEM), then each CTA sums its
// slots: P(P+1)/2. Thread 0 also writes/reads the last word of the dynamic SMEM
// (exercises the > 48 KiB opt-in).
const char* const kClusterProbe = R"cu(
#include <credit/device/exchange.cuh>
using namespace credit::device;
extern "C" __global__ void credit_rt_cluster_probe(int* out, unsigned smemBytes) {
  ptx::cluster_arrive_relaxed();  // rule 0, split: every CTA started before any push
  unsigned char* smem = ptx::dynamic_smem();
  float* slots = reinterpret_cast<float*>(smem);
  __shared__ float part[1];
  const int P = static_cast<int>(ptx::cluster_nctarank());
  const int rank = static_cast<int>(ptx::cluster_ctarank());
  volatile unsigned* last = reinterpret_cast<volatile unsigned*>(smem + smemBytes - 4);
  if (threadIdx.x == 0) {
    part[0] = static_cast<float>(rank + 1);
    *last = 0xC0FFEEu + blockIdx.x;
  }
  __syncthreads();
  ptx::cluster_wait();
  push_sync<1>(part, slots, P);
  ptx::cluster_sync();  // pushes visible
  const float sum = combine_slots<Reduce::Sum>(slots, 0, 1, P);
  ptx::cluster_sync();  // slots read before any CTA exits
  if (threadIdx.x == 0) {
    int* o = out + 4 * blockIdx.x;
    o[0] = static_cast<int>(sum);
    o[1] = P;
    o[2] = rank;
    o[3] = *last == 0xC0FFEEu + blockIdx.x ? 1 : 0;
  }
}
)cu";

std::string probeSource() { return kClusterProbe; }

// The exchange's slot combines as every thread of a CTA runs them, on one slot
// set slots[16][3] in SMEM: for P = 2, 4, 8, 16 and statistic j, combine_slots
// for sums (the lanes' tree) and max (the per-thread tree), and the per-thread sum
// tree itself. out[((pi * 3 + j) * 3 + form) * blockDim.x + thread], as bits.
const char* const kCombineProbe = R"cu(
#include <credit/device/exchange.cuh>
using namespace credit::device;
template <Reduce K>
static __device__ float tree_at(const float* slots, int j, int P) {
  switch (P) {
    case 2: return combine_slots_tree<K, 2>(slots, j, 3);
    case 4: return combine_slots_tree<K, 4>(slots, j, 3);
    case 8: return combine_slots_tree<K, 8>(slots, j, 3);
    default: return combine_slots_tree<K, 16>(slots, j, 3);
  }
}
extern "C" __global__ void credit_rt_combine_probe(const float* in, unsigned* out) {
  __shared__ float slots[16 * 3];
  if (threadIdx.x < 16 * 3) slots[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  const unsigned T = blockDim.x;
  int pi = 0;
  for (int P = 2; P <= 16; P *= 2, ++pi) {
    for (int j = 0; j < 3; ++j) {
      unsigned* o = out + (pi * 3 + j) * 3 * T + threadIdx.x;
      o[0] = __float_as_uint(combine_slots<Reduce::Sum>(slots, j, 3, P));
      o[T] = __float_as_uint(tree_at<Reduce::Sum>(slots, j, P));
      o[2 * T] = __float_as_uint(combine_slots<Reduce::Max>(slots, j, 3, P));
    }
  }
}
)cu";

std::string combineProbeSource() { return kCombineProbe; }

// The balanced tree of combine_slots_tree, on the host.
float hostSumTree(const std::vector<float>& slots, int j, int P) {
  std::vector<float> v(P);
  for (int c = 0; c < P; ++c) v[c] = slots[c * 3 + j];
  for (int s = 1; s < P; s *= 2)
    for (int c = 0; c + s < P; c += 2 * s) v[c] = v[c] + v[c + s];
  return v[0];
}

// JIT-compiles `source` with its cache in `dir` and loads it into `mod`; fails the
// test case, with NVRTC's log, when that does not work.
void jitLoadOrFail(Runtime& rt, const std::string& source, const char* name, const TempDir& dir, Module& mod) {
  CacheOptions cache;
  cache.dir = dir.path;
  CachedNvrtcResult cr;
  const Status s = rt.jitCompileAndLoad(source, name, mod, NvrtcOptions(), cache, &cr);
  INFO(s.message << "\n" << cr.log);
  REQUIRE(s.ok());
}

unsigned floatBits(float f) {
  unsigned u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

}  // namespace

// ---------------------------------------------------------------------------
// No GPU needed.
// ---------------------------------------------------------------------------
TEST_CASE("Runtime: a missing driver library fails cleanly", "[runtime]") {
  EnvGuard g("CREDIT_LIBCUDA");
  setenv("CREDIT_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
  CHECK(cudaDriverLibraryName() == "/nonexistent/libcuda.so.1");
  Runtime rt;
  const Status s = Runtime::create(rt);
  INFO(s.message);
  CHECK_FALSE(s.ok());
  CHECK(s.code == Status::kNoDriver);
  CHECK(startsWith(s.message, "no CUDA driver (/nonexistent/libcuda.so.1 not found)"));
  CHECK_FALSE(rt.valid());
  CHECK(rt.arch().empty());
  CHECK(rt.device().ordinal == -1);
}

TEST_CASE("Runtime: default driver either works or reports why", "[runtime]") {
  EnvGuard g("CREDIT_LIBCUDA");
  unsetenv("CREDIT_LIBCUDA");
  CHECK(cudaDriverLibraryName() == "libcuda.so.1");
  Runtime rt;
  const Status s = Runtime::create(rt);
  if (s.ok()) {
    CHECK(rt.valid());
    CHECK(startsWith(rt.arch(), "sm_"));
  } else {
    INFO(s.message);
    CHECK((s.code == Status::kNoDriver || s.code == Status::kNoDevice));
    CHECK((startsWith(s.message, "no CUDA driver") || startsWith(s.message, "no CUDA device") ||
           startsWith(s.message, "no usable CUDA driver")));
    if (s.code == Status::kNoDriver && startsWith(s.message, "no CUDA driver (libcuda"))
      CHECK(startsWith(s.message, "no CUDA driver (libcuda.so.1 not found)"));
    CHECK_FALSE(rt.valid());
  }
}

TEST_CASE("Runtime: every driver symbol exists in the toolkit's stub libcuda", "[runtime][fork]") {
  const std::vector<std::string> names = cudaDriverSymbolNames();
  CHECK(names.size() >= 25);
  const std::vector<std::string> bogus = missingCudaDriverSymbols("/nonexistent/libcuda.so");
  REQUIRE(bogus.size() == 1);
  CHECK(startsWith(bogus[0], "dlopen: "));

  const std::string stub = stubLibcuda();
  if (stub.empty()) {
    WARN("SKIPPED: the CUDA toolkit's stubs/libcuda.so not found");
    return;
  }
  // In a child process: the stub's soname is libcuda.so.1, so once loaded it
  // would shadow the real driver for a later dlopen("libcuda.so.1") here.
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  if (pid == 0) {  // child: no Catch2 assertions here
    close(fds[0]);
    std::string report;
    for (const std::string& m : missingCudaDriverSymbols(stub)) report += "missing " + m + "\n";
    // Pointed at the stub, create() resolves every symbol, then cuInit reports
    // the stub: a clean kNoDriver, not a crash.
    setenv("CREDIT_LIBCUDA", stub.c_str(), 1);
    Runtime rt;
    const Status s = Runtime::create(rt);
    report += "code " + std::to_string(s.code) + "\n" + s.message;
    const char* p = report.data();
    std::size_t left = report.size();
    while (left > 0) {
      const ssize_t w = write(fds[1], p, left);
      if (w <= 0) break;
      p += w;
      left -= static_cast<std::size_t>(w);
    }
    _exit(0);
  }
  REQUIRE(pid > 0);
  close(fds[1]);
  std::string report;
  char buf[512];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) report.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  INFO("stub " << stub << ":\n" << report);
  CHECK(WIFEXITED(status));
  CHECK(report.find("missing ") == std::string::npos);
  CHECK(report.find("code " + std::to_string(Status::kNoDriver) + "\n") != std::string::npos);
  CHECK(report.find("stub") != std::string::npos);
}

TEST_CASE("Runtime: an uncreated runtime returns errors", "[runtime]") {
  Runtime rt;
  Module m;
  Function f;
  DeviceBuffer b;
  CHECK(rt.loadModule({'x'}, m).code == Status::kNotInitialized);
  CHECK(rt.getFunction(m, "k", f).code == Status::kNotInitialized);
  CHECK(rt.maxClusterSize(f, 1, 1, 0).status.code == Status::kNotInitialized);
  CHECK(rt.launch(f, LaunchConfig(), nullptr).code == Status::kNotInitialized);
  CHECK(rt.jitCompileAndLoad("__global__ void k() {}", "k.cu", m).code == Status::kNotInitialized);
  CHECK(rt.allocate(16, b).code == Status::kNotInitialized);
  CHECK(rt.copyToDevice(0, nullptr, 0).code == Status::kNotInitialized);
  CHECK(rt.copyToHost(nullptr, 0, 0).code == Status::kNotInitialized);
  CHECK(rt.synchronize().code == Status::kNotInitialized);
  CHECK_FALSE(m.valid());
  CHECK_FALSE(f.valid());
  CHECK(f.name().empty());
  CHECK(f.numRegisters() == -1);
  CHECK(b.ptr() == 0);
  CHECK(m.handle() == nullptr);
  CHECK_FALSE(rt.loadModule({'x'}, m).message.empty());
}

TEST_CASE("Runtime: Status and Expected", "[runtime]") {
  CHECK(Status().ok());
  CHECK(static_cast<bool>(Status::success("warn")));
  CHECK(Status::success("warn").message == "warn");
  const Status e = Status::error(Status::kInvalidLaunch, "bad");
  CHECK_FALSE(e.ok());
  CHECK(e.code == Status::kInvalidLaunch);
  Expected<int> x;
  CHECK(x.ok());
  CHECK(x.value == 0);
}

// ---------------------------------------------------------------------------
// GPU ([gpu]): skipped with a visible warning without a device.
// ---------------------------------------------------------------------------
TEST_CASE("GPU: device info", "[gpu]") {
  Runtime rt;
  CREDIT_REQUIRE_GPU(rt);
  const DeviceInfo& d = rt.device();
  INFO(d.name << " cc " << d.ccMajor << "." << d.ccMinor << " SMs " << d.smCount << " optin "
              << d.smemOptinBytes << " L2 " << d.l2Bytes << " driver " << d.driverVersion);
  CHECK(d.ordinal == 0);
  CHECK_FALSE(d.name.empty());
  CHECK(d.ccMajor >= 3);
  CHECK(d.smCount > 0);
  CHECK(d.smemOptinBytes >= 48 * 1024);
  CHECK(d.l2Bytes > 0);
  CHECK(d.maxThreadsPerBlock >= 1024);
  CHECK(d.driverVersion >= 11000);
  CHECK(rt.arch() == "sm_" + std::to_string(d.ccMajor) + std::to_string(d.ccMinor));
  CHECK(rt.context() != nullptr);
  if (d.ccMajor >= 9) CHECK(d.clusterLaunch);
  Runtime bad;
  const Status s = Runtime::create(bad, 1 << 20);
  CHECK(s.code == Status::kNoDevice);
}

TEST_CASE("GPU: JIT-compiled cluster kernel, clusters of 1, 2, 8 and 16", "[gpu]") {
  Runtime rt;
  CREDIT_REQUIRE_GPU(rt);
  if (rt.device().ccMajor < 9) {
    WARN("SKIPPED: clusters need sm_90+, device is " << rt.arch());
    return;
  }
  TempDir dir;
  CacheOptions cache;
  cache.dir = dir.path;
  Module mod;
  CachedNvrtcResult cr;
  Status s = rt.jitCompileAndLoad(probeSource(), "probe.cu", mod, NvrtcOptions(), cache, &cr);
  INFO(s.message << "\n" << cr.log);
  REQUIRE(s.ok());
  CHECK(s.message.empty());  // no cache warning
  CHECK_FALSE(cr.fromCache);
  CHECK(cr.flags.front() == "--gpu-architecture=" + rt.arch());
  {  // the second JIT is a cache hit and loads as well
    Module again;
    CachedNvrtcResult cr2;
    REQUIRE(
        rt.jitCompileAndLoad(probeSource(), "probe.cu", again, NvrtcOptions(), cache, &cr2).ok());
    CHECK(cr2.fromCache);
  }
  Function fn;
  REQUIRE(rt.getFunction(mod, "credit_rt_cluster_probe", fn).ok());
  CHECK(fn.name() == "credit_rt_cluster_probe");
  CHECK(fn.numRegisters() > 0);
  CHECK(fn.staticSmemBytes() >= 4);

  const unsigned block = 64;
  const Expected<int> mc = rt.maxClusterSize(fn, 16 * 4, block, 256);
  INFO("max cluster size " << mc.value << " " << mc.status.message);
  REQUIRE(mc.ok());
  CHECK(mc.value >= 8);
  if (rt.device().ccMajor == 9) CHECK(mc.value >= 16);  // H100/H200: non-portable 16

  struct Case {
    unsigned P;
    std::size_t smem;
  };
  // Every case under each scheduling policy: placement must not change what a cluster sees.
  for (const ClusterPolicy policy : {ClusterPolicy::Default, ClusterPolicy::Spread, ClusterPolicy::LoadBalancing})
  for (const Case c : {Case{1, 256}, Case{2, 256}, Case{2, 64 * 1024}, Case{8, 256}, Case{16, 256},
                       Case{16, 100 * 1024}}) {
    INFO("cluster " << c.P << " smem " << c.smem << " policy " << static_cast<int>(policy));
    const Expected<int> cmax = rt.maxClusterSize(fn, c.P * 4, block, c.smem);
    REQUIRE(cmax.ok());
    if (static_cast<int>(c.P) > cmax.value) {
      WARN("cluster " << c.P << " with " << c.smem << " B SMEM exceeds this device's max ("
                      << cmax.value << "); launch must be rejected");
    }
    const unsigned grid = c.P * 4;
    DeviceBuffer out;
    REQUIRE(rt.allocate(grid * 4 * sizeof(int), out).ok());
    std::vector<int> host(grid * 4, -7);
    REQUIRE(rt.copyToDevice(out.ptr(), host.data(), host.size() * sizeof(int)).ok());
    CUdeviceptr outPtr = out.ptr();
    unsigned smemArg = static_cast<unsigned>(c.smem);
    void* args[] = {&outPtr, &smemArg};
    LaunchConfig cfg;
    cfg.gridX = grid;
    cfg.blockX = block;
    cfg.smemBytes = c.smem;
    cfg.clusterX = c.P;
    cfg.clusterPolicy = policy;
    s = rt.launch(fn, cfg, args);
    INFO(s.message);
    if (static_cast<int>(c.P) > cmax.value) {
      CHECK(s.code == Status::kInvalidLaunch);
      continue;
    }
    REQUIRE(s.ok());
    s = rt.synchronize();
    INFO(s.message);
    REQUIRE(s.ok());
    REQUIRE(rt.copyToHost(host.data(), out.ptr(), host.size() * sizeof(int)).ok());
    int bad = 0;
    for (unsigned b = 0; b < grid; ++b) {
      const int* o = &host[4 * b];
      const bool good = o[0] == static_cast<int>(c.P * (c.P + 1) / 2) &&
                        o[1] == static_cast<int>(c.P) && o[2] == static_cast<int>(b % c.P) &&
                        o[3] == 1;
      if (!good && bad++ < 4)
        UNSCOPED_INFO("CTA " << b << ": sum " << o[0] << " P " << o[1] << " rank " << o[2]
                             << " smem " << o[3]);
    }
    CHECK(bad == 0);
  }
}

TEST_CASE("GPU: the slot combines give the tree's bits in every lane and every thread", "[gpu]") {
  // Sums across the lanes (credit_sum_slots_lanes) must be the per-thread tree's
  // association, bit for bit, or CTAs running different forms would disagree.
  Runtime rt;
  CREDIT_REQUIRE_GPU(rt);
  TempDir dir;
  Module mod;
  jitLoadOrFail(rt, combineProbeSource(), "combine.cu", dir, mod);
  Function fn;
  REQUIRE(rt.getFunction(mod, "credit_rt_combine_probe", fn).ok());

  // Column 0: magnitudes from 1e-6 to 1e7 with both signs, where the association
  // changes the rounded sum; column 1: moderate values; column 2: signed zeros
  // and negatives, for max (fmaxf(+0, -0) may depend on the order).
  std::vector<float> slots(16 * 3);
  unsigned rng = 12345u;
  auto next = [&rng] { return rng = rng * 1664525u + 1013904223u; };
  for (int c = 0; c < 16; ++c) {
    const float mag = std::pow(10.0f, static_cast<float>(static_cast<int>(next() % 14u)) - 6.0f);
    slots[c * 3 + 0] = (next() & 1u ? 1.0f : -1.0f) * mag * (1.0f + static_cast<float>(next() % 1000u) / 997.0f);
    slots[c * 3 + 1] = static_cast<float>(static_cast<int>(next() % 2001u) - 1000) / 7.0f;
    slots[c * 3 + 2] = c % 3 == 0 ? 0.0f : c % 3 == 1 ? -0.0f : -1.0f - static_cast<float>(c);
  }
  {  // the data can tell associations apart: the tree and a left-to-right sum differ
    float left = slots[0];
    for (int c = 1; c < 16; ++c) left = left + slots[c * 3];
    REQUIRE(floatBits(left) != floatBits(hostSumTree(slots, 0, 16)));
  }

  const unsigned threads = 256;
  const std::size_t words = 4 * 3 * 3 * threads;
  DeviceBuffer in, out;
  REQUIRE(rt.allocate(slots.size() * sizeof(float), in).ok());
  REQUIRE(rt.allocate(words * sizeof(unsigned), out).ok());
  REQUIRE(rt.copyToDevice(in.ptr(), slots.data(), slots.size() * sizeof(float)).ok());
  std::vector<unsigned> host(words, 0xDEADBEEFu);
  REQUIRE(rt.copyToDevice(out.ptr(), host.data(), words * sizeof(unsigned)).ok());
  CUdeviceptr inPtr = in.ptr(), outPtr = out.ptr();
  void* args[] = {&inPtr, &outPtr};
  LaunchConfig cfg;
  cfg.gridX = 1;
  cfg.blockX = threads;
  const Status s = rt.launch(fn, cfg, args);
  INFO(s.message);
  REQUIRE(s.ok());
  REQUIRE(rt.synchronize().ok());
  REQUIRE(rt.copyToHost(host.data(), out.ptr(), words * sizeof(unsigned)).ok());

  int pi = 0;
  for (int P = 2; P <= 16; P *= 2, ++pi) {
    for (int j = 0; j < 3; ++j) {
      INFO("P " << P << " statistic " << j);
      const unsigned* sum = &host[(pi * 3 + j) * 3 * threads];
      const unsigned* tree = sum + threads;
      const unsigned* mx = sum + 2 * threads;
      float hostMax = slots[j];
      for (int c = 1; c < P; ++c) hostMax = std::fmax(hostMax, slots[c * 3 + j]);
      int bad = 0;
      for (unsigned t = 0; t < threads; ++t) {
        float m;
        std::memcpy(&m, &mx[t], sizeof m);
        const bool good = sum[t] == floatBits(hostSumTree(slots, j, P)) && tree[t] == sum[t] &&
                          mx[t] == mx[0] && m == hostMax;
        if (!good && bad++ < 4)
          UNSCOPED_INFO("thread " << t << ": lanes 0x" << std::hex << sum[t] << " tree 0x" << tree[t]
                                  << " host tree 0x" << floatBits(hostSumTree(slots, j, P)) << " max 0x" << mx[t]
                                  << " thread 0's max 0x" << mx[0] << std::dec);
      }
      CHECK(bad == 0);
    }
  }
}

TEST_CASE("GPU: invalid launch configurations are rejected without launching", "[gpu]") {
  Runtime rt;
  CREDIT_REQUIRE_GPU(rt);
  if (rt.device().ccMajor < 9) {
    WARN("SKIPPED: clusters need sm_90+, device is " << rt.arch());
    return;
  }
  TempDir dir;
  CacheOptions cache;
  cache.dir = dir.path;
  Module mod;
  Status s = rt.jitCompileAndLoad(probeSource(), "probe.cu", mod, NvrtcOptions(), cache);
  INFO(s.message);
  REQUIRE(s.ok());
  Function fn;
  REQUIRE(rt.getFunction(mod, "credit_rt_cluster_probe", fn).ok());
  DeviceBuffer out;
  REQUIRE(rt.allocate(64 * 4 * sizeof(int), out).ok());
  CUdeviceptr outPtr = out.ptr();
  unsigned smemArg = 256;
  void* args[] = {&outPtr, &smemArg};

  auto rejected = [&](LaunchConfig cfg, const char* needle) {
    const Status r = rt.launch(fn, cfg, args);
    INFO(needle << ": " << r.message);
    CHECK(r.code == Status::kInvalidLaunch);
    CHECK(r.message.find(needle) != std::string::npos);
  };
  LaunchConfig good;
  good.gridX = 8;
  good.blockX = 64;
  good.smemBytes = 256;
  good.clusterX = 2;

  LaunchConfig c = good;
  c.gridX = 7;
  rejected(c, "not a multiple of the cluster size");
  c = good;
  c.smemBytes = static_cast<std::size_t>(rt.device().smemOptinBytes) + 16;
  rejected(c, "exceeds the device opt-in limit");
  c = good;
  c.clusterX = 32;
  c.gridX = 64;
  rejected(c, "max potential cluster size");
  c = good;
  c.blockX = 4096;
  rejected(c, "max threads per block");
  c = good;
  c.gridX = 0;
  rejected(c, ">= 1");
  c = good;
  c.clusterX = 0;
  rejected(c, ">= 1");
  c = good;
  c.clusterPolicy = static_cast<ClusterPolicy>(7);
  rejected(c, "unknown cluster scheduling policy");

  CHECK(rt.launch(Function(), good, args).code == Status::kInvalidArgument);
  Module garbage;
  const Status g = rt.loadModule({'n', 'o', 't', ' ', 'a', ' ', 'c', 'u', 'b', 'i', 'n'}, garbage);
  CHECK(g.code > 0);  // a CUresult (CUDA_ERROR_INVALID_IMAGE or similar)
  CHECK(g.message.find("cuModuleLoadData") != std::string::npos);
  CHECK(rt.loadModule({}, garbage).code == Status::kInvalidArgument);
  Function missing;
  const Status nf = rt.getFunction(mod, "no_such_kernel", missing);
  CHECK(nf.code == CUDA_ERROR_NOT_FOUND);
  CHECK(nf.message.find("no_such_kernel") != std::string::npos);
  const Status cc = rt.jitCompileAndLoad("__global__ void k() { nope; }", "bad.cu", garbage,
                                         NvrtcOptions(), cache);
  CHECK(cc.code == Status::kCompileError);
  CHECK(cc.message.find("nope") != std::string::npos);

  // Nothing was launched and nothing is sticky: the good config still works.
  s = rt.launch(fn, good, args);
  INFO(s.message);
  REQUIRE(s.ok());
  s = rt.synchronize();
  INFO(s.message);
  CHECK(s.ok());
  std::vector<int> host(8 * 4);
  REQUIRE(rt.copyToHost(host.data(), out.ptr(), host.size() * sizeof(int)).ok());
  for (unsigned b = 0; b < 8; ++b) {
    CHECK(host[4 * b] == 3);
    CHECK(host[4 * b + 1] == 2);
  }
}

TEST_CASE("GPU: handles keep their context and module alive", "[gpu]") {
  Function fn;
  DeviceBuffer out;
  {
    Runtime rt;
    CREDIT_REQUIRE_GPU(rt);
    if (rt.device().ccMajor < 9) {
      WARN("SKIPPED: clusters need sm_90+, device is " << rt.arch());
      return;
    }
    TempDir dir;
    Module mod;
    jitLoadOrFail(rt, probeSource(), "probe.cu", dir, mod);
    REQUIRE(rt.getFunction(mod, "credit_rt_cluster_probe", fn).ok());
    REQUIRE(rt.allocate(4 * 4 * sizeof(int), out).ok());
  }  // Runtime and Module handles gone; fn and out still hold them
  Runtime rt2;
  CREDIT_REQUIRE_GPU(rt2);  // same device, same primary context
  CUdeviceptr outPtr = out.ptr();
  unsigned smemArg = 256;
  void* args[] = {&outPtr, &smemArg};
  LaunchConfig cfg;
  cfg.gridX = 4;
  cfg.blockX = 32;
  cfg.smemBytes = 256;
  cfg.clusterX = 4;
  Status s = rt2.launch(fn, cfg, args);
  INFO(s.message);
  REQUIRE(s.ok());
  REQUIRE(rt2.synchronize().ok());
  std::vector<int> host(16);
  REQUIRE(rt2.copyToHost(host.data(), out.ptr(), host.size() * sizeof(int)).ok());
  for (unsigned b = 0; b < 4; ++b) CHECK(host[4 * b] == 10);
}
