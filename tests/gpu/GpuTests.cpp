// GPU correctness of every generated kernel variant against the float64
// reference that creditc derives from the same IR (--emit=reference).
//
// For each workload, N and M: fresh random inputs (seed printed on failure, and
// CREDIT_GPU_TEST_SEED=<seed> reruns every problem with it; bf16
// and f16 inputs are random values rounded to their type, which the reference gets
// exactly; i32 / i64 class indices in [0, N) with about one row in 8 at the ignore
// index -100, bool masks about 3/4 true, u8 / i8 small integers, all exact as f32;
// from M = 3 on, the middle row's byte inputs (masks) all zero and its class index
// -100), outputs poisoned before every launch, every variant and legal cluster
// size launched through the generated launch API, then
//   - no output element still holds the poison (every element written),
//   - f32 outputs: ||out - ref|| / ||ref|| <= 1e-5 over the checked rows, bf16
//     outputs <= 1e-2, f16 outputs <= 2e-3 (NaN exactly where the reference is NaN),
//     or every element within that tolerance of itself plus the cancellation floor
//     (Arg::kCancellationFloor),
//   - i8 outputs: exact, except rounding ties of x/s (|diff| = 1, at most
//     1 in 10^4 elements), since the kernel divides in f32 and the reference in f64.
// Rows checked: all when M <= 64, otherwise 16 rows (first, second, middle,
// last and 12 random ones): the reference is a host loop in double.
//
// The forms the launchers do not run are checked as well: "staged_smem" (the
// row in SMEM where the staged launcher uses registers), "cluster_regs"
// (the slice in registers, where it fits), "cluster_partial" (one kept input
// re-read from global memory, at every shape) and "cluster_full" (every kept
// input in SMEM, where "cluster" runs the partial form), "cluster_rowwise"
// (one row per cluster, where "cluster" runs the persistent form) and
// "cluster_persistent" (the persistent form wherever it can run, also where the
// launcher prefers one row per cluster, rows claimed at run time) and
// "cluster_persistent_static" (the same with the static rows).
// CREDIT_GPU_TEST_SCOPE=small or tiny restricts the shapes (tiny: N = 4096,
// 4099, 8192, 12289, 16384, 32767 and 32768 -- the float4 path with bulk copies in
// the SMEM forms, the scalar path, the register forms, the wide-CTA twins and,
// at 32768 and P = 2, the partial-retention form and the persistent form as
// "cluster" runs them -- every variant, for compute-sanitizer). Every scope but
// small adds N = 32768 (not tiny) and 30004 at M = 400 for "cluster" and
// "cluster_persistent" at P = 2 alone: the persistent form (for "cluster": layernorm and the two-input
// workloads on the H200), several rows per cluster, the ring units and slot sets
// reused; with two kept inputs the ring holds seven half slices, so a row's four
// copies land in units of different parity, and at 30004 the halves differ in
// length. Without a GPU every test case skips with a visible warning.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

cudaError_t creditTestFillUniform(float *p, size_t n, uint64_t seed, float lo, float hi);
cudaError_t creditTestFillUniform16(void *p, size_t n, uint64_t seed, float lo, float hi, bool bf16);
cudaError_t creditTestFillClassIndices(void *p, size_t n, int elemBytes, uint64_t seed, long long classes);
cudaError_t creditTestFillBytes(void *p, size_t n, uint64_t seed, int lo, int hi, bool mask);
cudaError_t creditTestCountPoisonElems(const void *p, size_t bytes, int elemBytes, unsigned long long *out);

using LaunchFn = int (*)(const char *variant, void *const *args, long long M, long long N, int P,
                         int protocol, cudaStream_t stream);
using ReferenceFn = void (*)(const void *const *args, long long M, long long N);
using SignatureFn = const char *(*)();
using MaxLegalFn = long long (*)(const char *variant, int P, int protocol);
using StatusFn = const char *(*)(int);

// credit_plan: every file generated with --profile (scripts/gpu-prepare.sh, and
// this CMakeLists in the main build) defines it, as does its API header. Files for a
// target without clusters (--arch=sm_80) have no dispatch: CREDIT_GPU_TESTS_NO_DISPATCH.
#ifndef CREDIT_GPU_TESTS_NO_DISPATCH
#include "layernorm.h"

using LaunchAutoFn = int (*)(void *const *args, long long M, long long N, cudaStream_t stream);
using AutotuneFn = int (*)(void *const *args, long long M, long long N, cudaStream_t stream,
                           credit_plan *model, credit_plan *tuned);
using LastPlanFn = int (*)(long long M, long long N, credit_plan *out);
#define CREDIT_DISPATCH_DECLS(K)                                                                  \
  extern "C" int credit_##K##_launch_auto_generic(void *const *, long long, long long,           \
                                                  cudaStream_t);                                  \
  extern "C" int credit_##K##_autotune_generic(void *const *, long long, long long, cudaStream_t, \
                                               credit_plan *, credit_plan *);                     \
  extern "C" int credit_##K##_last_plan(long long, long long, credit_plan *);                     \
  extern "C" int credit_##K##_dispatch_mode(int);
#define CREDIT_DISPATCH_ENTRIES(K)                                                                \
  , credit_##K##_launch_auto_generic, credit_##K##_autotune_generic, credit_##K##_last_plan,      \
      credit_##K##_dispatch_mode
#else
#define CREDIT_DISPATCH_DECLS(K)
#define CREDIT_DISPATCH_ENTRIES(K)
#endif

#define CREDIT_WORKLOAD(K)                                                                        \
  extern "C" int credit_##K##_launch_named(const char *, void *const *, long long, long long,    \
                                           int, int, cudaStream_t);                               \
  extern "C" void credit_##K##_reference_generic(const void *const *, long long, long long);     \
  extern "C" const char *credit_##K##_signature();                                               \
  extern "C" long long credit_##K##_max_legal_n_named(const char *, int, int);                   \
  extern "C" const char *credit_##K##_status_string(int);                                        \
  CREDIT_DISPATCH_DECLS(K)
#include "credit_gpu_registry.inc"
#undef CREDIT_WORKLOAD

namespace {

struct Workload {
  const char *name;
  LaunchFn launch;
  ReferenceFn reference;
  SignatureFn signature;
  MaxLegalFn maxLegalN;
  StatusFn status;
#ifndef CREDIT_GPU_TESTS_NO_DISPATCH
  LaunchAutoFn launchAuto;
  AutotuneFn autotune;
  LastPlanFn lastPlan;
  int (*dispatchMode)(int);
#endif
};

const Workload kWorkloads[] = {
#define CREDIT_WORKLOAD(K)                                                                        \
  {#K,                                                                                            \
   credit_##K##_launch_named,                                                                     \
   credit_##K##_reference_generic,                                                                \
   credit_##K##_signature,                                                                        \
   credit_##K##_max_legal_n_named,                                                                \
   credit_##K##_status_string CREDIT_DISPATCH_ENTRIES(K)},
#include "credit_gpu_registry.inc"
#undef CREDIT_WORKLOAD
};

/// One argument of the generated ABI: "name:in|out:row|broadcast|scalar|param:<type>", the
/// type f32, bf16, f16 or i8, or for inputs u8, bool (per element) or i32, i64 (per row);
/// a param (a runtime param) is an f32 input whose array entry is its value's address.
struct Arg {
  std::string name;
  bool input = true;
  enum Kind { Row, Broadcast, Scalar, Param } kind = Row;  // Param: a runtime param (its address)
  enum Type { F32, I8, BF16, F16, U8, Bool, I32, I64 } type = F32;
  size_t count(long long M, long long N) const {
    return kind == Row ? size_t(M) * size_t(N) : kind == Broadcast ? size_t(N) : kind == Param ? 1 : size_t(M);
  }
  size_t elemBytes() const {
    return type == I64 ? 8 : type == F32 || type == I32 ? 4 : is16() ? 2 : 1;
  }
  bool is16() const { return type == BF16 || type == F16; }
  bool isIndex() const { return type == I32 || type == I64; }
  bool isByte() const { return type == I8 || type == U8 || type == Bool; }
  // An integer element's value, as the reference gets it (a bool byte: 0 or 1).
  float fromInteger(const void *elem) const {
    if (type == I64) {
      int64_t v;
      std::memcpy(&v, elem, 8);
      return float(v);
    }
    if (type == I32) {
      int32_t v;
      std::memcpy(&v, elem, 4);
      return float(v);
    }
    const uint8_t byte = *static_cast<const uint8_t *>(elem);
    return type == Bool ? float(byte != 0) : type == I8 ? float(int8_t(byte)) : float(byte);
  }
  // The relative L2 error allowed, against the reference as the output stores it (a 16-bit
  // one rounded to nearest even, so that the store's rounding of tiny values, up to half a
  // subnormal step, is not counted): f32 the arithmetic's against float64; bf16 (f16) where
  // that lands a value across a rounding boundary, one step of 8 (11) significand bits.
  double tolerance() const { return type == BF16 ? 1e-2 : type == F16 ? 2e-3 : 1e-5; }
  // The inputs are of order one, so an output far below it is order-one terms cancelling
  // (a centred row's mean, a gradient where g equals its softmax-weighted mean): f32 gives
  // it an absolute accuracy, not a relative one. Such an element may also be off by
  // tolerance() x kCancellationFloor (1e-7 in f32) beyond tolerance() x |reference|.
  static constexpr double kCancellationFloor = 1e-2;
  // A 16-bit element's value (exact in f32), and a value rounded to nearest even.
  float from16(uint16_t bits) const {
    return type == BF16 ? __bfloat162float(__ushort_as_bfloat16(bits)) : __half2float(__ushort_as_half(bits));
  }
  uint16_t to16(float v) const {
    return type == BF16 ? __bfloat16_as_ushort(__float2bfloat16_rn(v)) : __half_as_ushort(__float2half_rn(v));
  }
};

std::vector<Arg> parseSignature(const std::string &sig) {
  std::vector<Arg> args;
  std::stringstream ss(sig);
  std::string item;
  while (std::getline(ss, item, ';')) {
    if (item.empty())
      continue;
    std::vector<std::string> f;
    std::stringstream is(item);
    std::string part;
    while (std::getline(is, part, ':'))
      f.push_back(part);
    INFO("signature entry " << item);
    REQUIRE(f.size() == 4);
    const char *words[] = {"f32", "i8", "bf16", "f16", "u8", "bool", "i32", "i64"};  // Arg::Type's order
    const auto word = std::find(std::begin(words), std::end(words), f[3]);
    REQUIRE(word != std::end(words));
    Arg a;
    a.name = f[0];
    a.input = f[1] == "in";
    a.kind = f[2] == "row" ? Arg::Row : f[2] == "broadcast" ? Arg::Broadcast : f[2] == "param" ? Arg::Param : Arg::Scalar;
    a.type = static_cast<Arg::Type>(word - std::begin(words));
    if (a.kind == Arg::Param) // a runtime param: one f32 input
      REQUIRE((a.input && a.type == Arg::F32));
    // Class indices are per row, masks per element, and both are inputs only.
    if (a.isIndex())
      REQUIRE((a.input && a.kind == Arg::Scalar));
    if (a.type == Arg::U8 || a.type == Arg::Bool)
      REQUIRE((a.input && a.kind != Arg::Scalar));
    args.push_back(a);
  }
  return args;
}

/// Input `a`: U(lo, hi) (16-bit types: rounded to nearest even), [0.5, 1.5) where
/// `positive`, else [-1, 1). Integer inputs: i32 / i64 class indices uniform in [0, N)
/// but about one row in 8 at -100 (an ignore index: the target contributes nothing);
/// bool masks about 3/4 true; u8 in [0, 3] and i8 in [-3, 3].
cudaError_t fillInput(const Arg &a, void *p, size_t n, uint64_t seed, bool positive, long long N) {
  const float lo = positive ? 0.5f : -1.0f, hi = positive ? 1.5f : 1.0f;
  if (a.isIndex())
    return creditTestFillClassIndices(p, n, int(a.elemBytes()), seed, N);
  if (a.type == Arg::Bool)
    return creditTestFillBytes(p, n, seed, 0, 1, true);
  if (a.type == Arg::U8 || (a.type == Arg::I8 && a.input))
    return creditTestFillBytes(p, n, seed, a.type == Arg::U8 ? 0 : -3, 3, false);
  if (a.is16())
    return creditTestFillUniform16(p, n, seed, lo, hi, a.type == Arg::BF16);
  return creditTestFillUniform(static_cast<float *>(p), n, seed, lo, hi);
}

/// The byte outputs are filled with before a launch: i8 0x80 (-128: outputs are
/// clamped to [-127, 127]), else 0xFF (f32 0xFFFFFFFF, bf16 / f16 0xFFFF: NaNs that
/// no store rounds to).
int poisonByte(const Arg &a) { return a.type == Arg::I8 ? 0x80 : 0xFF; }

std::string gpuUnavailableReason() {
  int n = 0;
  cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess)
    return cudaGetErrorString(err);
  if (n == 0)
    return "no CUDA device";
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  if (prop.major < 9)
    return std::string("device ") + prop.name + " has compute capability < 9.0 (no clusters)";
  return "";
}

std::string scope() {
  const char *s = std::getenv("CREDIT_GPU_TEST_SCOPE");
  return s ? s : "full";
}

struct Config {
  // cluster, staged, reread; cluster_regs, cluster_full, cluster_partial,
  // cluster_rowwise, cluster_persistent(_static), staged_smem (the forms the launchers do not run, or not
  // at every shape);
  // auto: the model-driven dispatch (_launch_auto)
  std::string variant;
  int P;
  int protocol; // 0 sync, 1 mbarrier
  std::string label() const {
    if (variant == "cluster" || variant == "cluster_regs" || variant == "cluster_full" ||
        variant == "cluster_partial" || variant == "cluster_rowwise" || variant == "cluster_persistent" ||
        variant == "cluster_persistent_static")
      return variant + "_" + std::string(protocol ? "mbarrier" : "sync") + " P=" + std::to_string(P);
    return variant;
  }
};

struct Totals {
  int launches = 0, skippedLimit = 0, failures = 0;
};

/// Everything allocated for one (workload, M, N).
class Problem {
public:
  Problem(const Workload &w, long long M, long long N, uint64_t seed)
      : w(w), M(M), N(N), args(parseSignature(w.signature())) {
    // A runtime param's entry is the address of its value in host memory: a value in
    // [0.5, 2) from the seed, the same for the kernels and the reference.
    paramValue.assign(args.size(), 0.5f + float(seed % 1500) / 1000.0f);
    for (size_t i = 0; i < args.size(); ++i) {
      const Arg &a = args[i];
      void *p = &paramValue[i];
      size_t bytes = std::max<size_t>(a.count(M, N) * a.elemBytes(), 16);
      if (a.kind != Arg::Param)
        REQUIRE(cudaMalloc(&p, bytes) == cudaSuccess);
      device.push_back(p);
    }
    // Inputs: U(-1, 1); weights of wvar_bwd must be positive (S_w = sum(w) is a divisor).
    for (size_t i = 0; i < args.size(); ++i) {
      const Arg &a = args[i];
      if (!a.input || a.kind == Arg::Param)
        continue;
      bool positive = std::string(w.name) == "wvar_bwd" && a.name == "w";
      REQUIRE(fillInput(a, device[i], a.count(M, N), seed + 7919 * i, positive, N) == cudaSuccess);
    }
    if (M >= 3)
      setEdgeRow(M / 2);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    chooseRows(seed);
    computeReference();
  }
  ~Problem() {
    for (size_t i = 0; i < device.size(); ++i)
      if (args[i].kind != Arg::Param)
        cudaFree(device[i]);
  }

  /// Runs one configuration; returns false (after reporting) on a failure.
  bool run(const Config &c, Totals &totals) {
    INFO(w.name << " M=" << M << " N=" << N << " " << c.label());
    for (size_t i = 0; i < args.size(); ++i)
      if (!args[i].input)
        REQUIRE(cudaMemset(device[i], poisonByte(args[i]), args[i].count(M, N) * args[i].elemBytes()) ==
                cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
#ifndef CREDIT_GPU_TESTS_NO_DISPATCH
    int status = c.variant == "auto" ? w.launchAuto(device.data(), M, N, nullptr)
                                     : w.launch(c.variant.c_str(), device.data(), M, N, c.P, c.protocol, nullptr);
#else
    int status = w.launch(c.variant.c_str(), device.data(), M, N, c.P, c.protocol, nullptr);
#endif
    if (status == 5 /* ClusterTooLarge: beyond this device's cluster limit */) {
      ++totals.skippedLimit;
      return true;
    }
    INFO("launch status " << status << ": " << w.status(status));
    CHECK(status == 0);
    if (status != 0) {
      ++totals.failures;
      return false;
    }
    cudaError_t err = cudaDeviceSynchronize();
    INFO("kernel: " << cudaGetErrorString(err));
    REQUIRE(err == cudaSuccess);
    ++totals.launches;
    bool ok = true;
    for (size_t i = 0; i < args.size(); ++i) {
      const Arg &a = args[i];
      if (a.input)
        continue;
      unsigned long long poisoned = 0;
      REQUIRE(creditTestCountPoisonElems(device[i], a.count(M, N) * a.elemBytes(), int(a.elemBytes()),
                                         &poisoned) == cudaSuccess);
      INFO("output " << a.name << ": " << poisoned << " elements never written");
      CHECK(poisoned == 0);
      ok &= poisoned == 0;
      ok &= compareOutput(i);
    }
    if (!ok)
      ++totals.failures;
    return ok;
  }

  void *const *deviceArgs() const { return device.data(); }

  /// Row `row` of input `name` replaced by `values(i)` (i < N); false if the
  /// workload has no such row input. refresh() then recomputes the reference.
  template <class F> bool setRow(const std::string &name, long long row, F values) {
    for (size_t i = 0; i < args.size(); ++i) {
      if (!args[i].input || args[i].kind != Arg::Row || args[i].name != name)
        continue;
      const Arg &a = args[i];
      std::vector<float> h(static_cast<size_t>(N));
      for (long long e = 0; e < N; ++e)
        h[size_t(e)] = values(e);
      char *dst = static_cast<char *>(device[i]) + size_t(row) * size_t(N) * a.elemBytes();
      if (a.is16()) {
        std::vector<uint16_t> bits(h.size());
        for (size_t e = 0; e < h.size(); ++e)
          bits[e] = a.to16(h[e]);
        REQUIRE(cudaMemcpy(dst, bits.data(), size_t(N) * 2, cudaMemcpyHostToDevice) == cudaSuccess);
      } else if (a.isByte()) {  // a mask or small integers: the value's byte (bool: nonzero is 1)
        std::vector<uint8_t> bytes(h.size());
        for (size_t e = 0; e < h.size(); ++e)
          bytes[e] = a.type == Arg::Bool ? uint8_t(h[e] != 0.0f)
                     : a.type == Arg::I8 ? uint8_t(int8_t(h[e]))
                                         : uint8_t(h[e]);
        REQUIRE(cudaMemcpy(dst, bytes.data(), size_t(N), cudaMemcpyHostToDevice) == cudaSuccess);
      } else {
        REQUIRE(cudaMemcpy(dst, h.data(), size_t(N) * 4, cudaMemcpyHostToDevice) == cudaSuccess);
      }
      return true;
    }
    return false;
  }
  void refresh() { computeReference(); }

private:
  /// Row `row` (one that is always checked) of every byte row input all zero (a mask
  /// that keeps nothing), and of every class index the ignore index: the paths the
  /// random fill may miss.
  void setEdgeRow(long long row) {
    for (size_t i = 0; i < args.size(); ++i) {
      const Arg &a = args[i];
      char *base = static_cast<char *>(device[i]);
      if (a.input && a.isByte() && a.kind == Arg::Row) {
        REQUIRE(cudaMemset(base + size_t(row) * size_t(N), 0, size_t(N)) == cudaSuccess);
      } else if (a.input && a.isIndex()) {
        const int64_t ignore64 = -100;
        const int32_t ignore32 = -100;
        const void *src = a.type == Arg::I64 ? static_cast<const void *>(&ignore64) : &ignore32;
        REQUIRE(cudaMemcpy(base + size_t(row) * a.elemBytes(), src, a.elemBytes(), cudaMemcpyHostToDevice) ==
                cudaSuccess);
      }
    }
  }

  void chooseRows(uint64_t seed) {
    if (M <= 64) {
      for (long long r = 0; r < M; ++r)
        rows.push_back(r);
      return;
    }
    std::mt19937_64 rng(seed);
    rows = {0, 1, M / 2, M - 1};
    while (rows.size() < 16)
      rows.push_back(static_cast<long long>(rng() % static_cast<uint64_t>(M)));
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  }

  /// Copies the checked rows of the inputs to the host and runs the reference
  /// on them as a compact problem of rows.size() rows.
  void computeReference() {
    long long R = static_cast<long long>(rows.size());
    hostIn.resize(args.size());
    refOut.resize(args.size());
    refI8.resize(args.size());
    std::vector<const void *> refArgs(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      const Arg &a = args[i];
      if (a.kind == Arg::Param) {
        refArgs[i] = &paramValue[i];
      } else if (a.input) {
        auto &h = hostIn[i];
        if (a.kind == Arg::Broadcast) {
          h.resize(size_t(N));
          readInput(a, device[i], size_t(N), h.data());
        } else {
          size_t per = a.kind == Arg::Row ? size_t(N) : 1;
          h.resize(rows.size() * per);
          for (size_t r = 0; r < rows.size(); ++r)
            readInput(a, static_cast<const char *>(device[i]) + size_t(rows[r]) * per * a.elemBytes(), per,
                      h.data() + r * per);
        }
        refArgs[i] = h.data();
      } else if (a.type == Arg::I8) {
        refI8[i].resize(a.count(R, N));
        refArgs[i] = refI8[i].data();
      } else {
        refOut[i].resize(a.count(R, N));
        refArgs[i] = refOut[i].data();
      }
    }
    w.reference(refArgs.data(), R, N);
  }

  bool compareOutput(size_t i) {
    const Arg &a = args[i];
    size_t per = a.kind == Arg::Row ? size_t(N) : 1;
    std::vector<float> gotF;
    std::vector<int8_t> gotI;
    std::vector<uint16_t> got16;
    if (a.type == Arg::I8)
      gotI.resize(rows.size() * per);
    else
      gotF.resize(rows.size() * per);
    if (a.is16())
      got16.resize(rows.size() * per);
    for (size_t r = 0; r < rows.size(); ++r) {
      char *src = static_cast<char *>(device[i]) + size_t(rows[r]) * per * a.elemBytes();
      void *dst = a.type == Arg::I8 ? static_cast<void *>(gotI.data() + r * per)
                  : a.is16()        ? static_cast<void *>(got16.data() + r * per)
                                    : static_cast<void *>(gotF.data() + r * per);
      REQUIRE(cudaMemcpy(dst, src, per * a.elemBytes(), cudaMemcpyDeviceToHost) == cudaSuccess);
    }
    for (size_t e = 0; e < got16.size(); ++e)
      gotF[e] = a.from16(got16[e]);
    if (a.type == Arg::I8) {
      size_t mismatches = 0, bad = 0;
      for (size_t e = 0; e < gotI.size(); ++e) {
        int d = std::abs(int(gotI[e]) - int(refI8[i][e]));
        mismatches += d != 0;
        bad += d > 1;
      }
      size_t allowed = std::max<size_t>(1, gotI.size() / 10000);
      INFO("output " << a.name << " (i8): " << mismatches << " of " << gotI.size()
                     << " differ (rounding ties allowed: " << allowed << "), " << bad << " by more than 1");
      CHECK(bad == 0);
      CHECK(mismatches <= allowed);
      return bad == 0 && mismatches <= allowed;
    }
    double num = 0, den = 0, maxAbs = 0;
    size_t nanMismatch = 0, infMismatch = 0, beyondFloor = 0;
    const double tol = a.tolerance(), floor = tol * Arg::kCancellationFloor;
    for (size_t e = 0; e < gotF.size(); ++e) {
      double ref = refOut[i][e], got = gotF[e];
      if (a.is16() && !std::isnan(ref)) // as the output stores it (Arg::tolerance)
        ref = a.from16(a.to16(float(ref)));
      if (std::isnan(ref) || std::isnan(got)) {
        nanMismatch += std::isnan(ref) != std::isnan(got);
        continue;
      }
      if (std::isinf(ref) || std::isinf(got)) { // infinities exactly, with their sign
        infMismatch += ref != got;
        continue;
      }
      num += (got - ref) * (got - ref);
      den += ref * ref;
      maxAbs = std::max(maxAbs, std::fabs(got - ref));
      beyondFloor += std::fabs(got - ref) > floor + tol * std::fabs(ref);
    }
    double rel = den > 0 ? std::sqrt(num / den) : maxAbs;
    // Within the relative L2 tolerance, or every element within the tolerance of itself
    // plus the cancellation floor.
    const bool close = rel <= tol || beyondFloor == 0;
    INFO("output " << a.name << ": relative L2 error " << rel << " (allowed " << tol << "), max abs error "
                   << maxAbs << ", " << beyondFloor << " elements beyond " << floor << " + " << tol
                   << " x |reference|, NaN mismatches " << nanMismatch << ", infinity mismatches " << infMismatch);
    CHECK(nanMismatch == 0);
    CHECK(infMismatch == 0);
    CHECK(close);
    return nanMismatch == 0 && infMismatch == 0 && close;
  }

  /// `n` elements of input `a` at `src` as floats (16-bit ones widened, exactly: the
  /// reference's inputs are f32; integers converted, exactly below 2^24).
  static void readInput(const Arg &a, const void *src, size_t n, float *dst) {
    if (a.isIndex() || a.isByte()) {
      std::vector<unsigned char> raw(n * a.elemBytes());
      REQUIRE(cudaMemcpy(raw.data(), src, raw.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
      for (size_t e = 0; e < n; ++e)
        dst[e] = a.fromInteger(raw.data() + e * a.elemBytes());
      return;
    }
    if (!a.is16()) {
      REQUIRE(cudaMemcpy(dst, src, n * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
      return;
    }
    std::vector<uint16_t> bits(n);
    REQUIRE(cudaMemcpy(bits.data(), src, n * 2, cudaMemcpyDeviceToHost) == cudaSuccess);
    for (size_t e = 0; e < n; ++e)
      dst[e] = a.from16(bits[e]);
  }

  const Workload &w;
  long long M, N;
  std::vector<Arg> args;
  std::vector<void *> device;
  std::vector<float> paramValue;  // the runtime params' values (device[i] points here)
  std::vector<long long> rows;
  std::vector<std::vector<float>> hostIn;
  std::vector<std::vector<double>> refOut;
  std::vector<std::vector<int8_t>> refI8;
};

/// CREDIT_GPU_TEST_MAX_P caps the cluster size (compute-sanitizer's synccheck
/// misreports clusters of 16: docs/results/README.md §1).
int maxClusterP() {
  const char *s = std::getenv("CREDIT_GPU_TEST_MAX_P");
  return s ? std::atoi(s) : 16;
}

/// A fresh seed per problem, or CREDIT_GPU_TEST_SEED's value for every problem, so
/// that a failure's printed seed reproduces it.
uint64_t nextSeed(std::random_device &rd) {
  static const char *fixed = std::getenv("CREDIT_GPU_TEST_SEED");
  return fixed ? std::strtoull(fixed, nullptr, 10) : (uint64_t(rd()) << 32) ^ rd();
}

std::vector<Config> configsFor(const Workload &w, long long N) {
  std::vector<Config> out;
  out.push_back({"reread", 1, 0});
  // Register forms: rows / slices of at most 32 x CTA threads elements (N <=
  // 131072 at 256 threads and P = 16); "cluster_regs" falls back to the SMEM
  // form beyond that, so it is only run where it differs.
  const bool otherForms = N <= 131072;
  if (w.maxLegalN("staged", 1, 0) >= N) {
    out.push_back({"staged", 1, 0});
    if (otherForms)
      out.push_back({"staged_smem", 1, 0});
  }
  // The partial-retention form (two or more kept inputs; max_legal_n 0
  // otherwise) at every shape, though "cluster" runs it only where the full
  // form allows one CTA per SM; "cluster_full" (the full form, the wide-CTA
  // twin there) where that can happen.
  for (int protocol : {0, 1})
    for (int P : {2, 4, 8, 16})
      if (P <= maxClusterP() && w.maxLegalN("cluster", P, protocol) >= N) {
        out.push_back({"cluster", P, protocol});
        if (otherForms)
          out.push_back({"cluster_regs", P, protocol});
        if (w.maxLegalN("cluster_partial", P, protocol) >= N) {
          out.push_back({"cluster_partial", P, protocol});
          if (N >= 32768)
            out.push_back({"cluster_full", P, protocol});
        }
        // The one-row-per-cluster form where "cluster" may run the persistent
        // one (kept inputs and a 512-thread twin; max_legal_n 0 otherwise).
        if (protocol == 1 && N >= 16384 && w.maxLegalN("cluster_rowwise", P, protocol) >= N)
          out.push_back({"cluster_rowwise", P, protocol});
        // The persistent form wherever it can run, also where the launcher's rule prefers
        // one row per cluster (quant_int8 on the H200): the same file's kernel, run.
        if (protocol == 1 && N >= 16384 && w.maxLegalN("cluster_persistent", P, protocol) >= N) {
          out.push_back({"cluster_persistent", P, protocol});
          out.push_back({"cluster_persistent_static", P, protocol});
        }
      }
  return out;
}

void runWorkload(const Workload &w) {
  std::string why = gpuUnavailableReason();
  if (!why.empty()) {
    WARN("SKIPPED: no usable GPU (" << why << "): " << w.name << " not run");
    return;
  }
  // 32767 and 32768: the staged twin's deep register form (one kept input;
  // scalar, float4) and, with two kept inputs, the SMEM twin. 1000: runs of 8
  // without bulk copies of byte or 16-bit kept slices (N % 16 != 0); 4100: N % 8
  // == 4, runs of 4 (f32 workloads) or the scalar kernels (runs of 8).
  std::vector<long long> Ns = {1, 31, 1000, 4096, 4099, 4100, 12289, 16384, 32767, 32768, 65536, 131072, 262144};
  std::vector<long long> Ms = {1, 7, 2048};
  if (scope() == "small") {
    Ns = {1, 31, 1000, 4099};
    Ms = {1, 7};
  } else if (scope() == "tiny") { // under compute-sanitizer: every variant, both load paths
    // 4096: float4 (+ bulk copies in the SMEM forms); 4099: scalar; 8192: wide
    // staged registers; 12289 and 16384: cluster slices in registers at P = 2
    // (scalar, float4), and (two kept inputs) the 512-thread staged twins;
    // 32768: at P = 2 the partial-retention form (two kept inputs: "cluster") and the
    // 512-thread cluster twins ("cluster_full"; one kept input: "cluster");
    // 32767 and 32768: one kept input, the staged twin's deep register form.
    Ns = {4096, 4099, 8192, 12289, 16384, 32767, 32768};
    Ms = {3};
  }
  std::vector<std::pair<long long, long long>> shapes;
  for (long long N : Ns)
    for (long long M : Ms)
      shapes.push_back({N, M});
  // The persistent form over several rows per cluster (more rows than the
  // resident clusters of 2: the ring units and slot sets are reused), at P = 2:
  // 32768 (slices of 16384: two kept inputs copy them in two equal pieces) and
  // 30004 (slices of 15004 and 15000: pieces of 8192 and 6812 / 6808, or whole
  // slices of two lengths for one kept input).
  const long long kPersistentRows = 400;
  // (tiny, under compute-sanitizer: 30004 alone, which takes the same code paths
  // as 32768 and keeps a sanitizer run short.)
  std::vector<long long> persistentNs = {32768, 30004};
  if (scope() == "tiny")
    persistentNs = {30004};
  if (scope() != "small")
    for (long long N : persistentNs)
      if (w.maxLegalN("cluster_rowwise", 2, 1) >= N)
        shapes.push_back({N, kPersistentRows});
  std::random_device rd;
  Totals totals;
  for (auto [N, M] : shapes) {
    std::vector<Config> configs = configsFor(w, N);
    if (M == kPersistentRows)
      configs = {{"cluster", 2, 1}, {"cluster_persistent", 2, 1}, {"cluster_persistent_static", 2, 1}};
    uint64_t seed = nextSeed(rd);
    INFO("seed " << seed);
    Problem problem(w, M, N, seed);
    for (const Config &c : configs)
      problem.run(c, totals);
  }
  std::printf("%-20s %5d launches checked, %d skipped (cluster size above the device limit), %d failed\n",
              w.name, totals.launches, totals.skippedLimit, totals.failures);
  std::fflush(stdout);
  CHECK(totals.failures == 0);
}

} // namespace

TEST_CASE("every variant of every workload matches the float64 reference", "[gpu]") {
  for (const Workload &w : kWorkloads) {
    SECTION(w.name) { runWorkload(w); }
  }
}

// Rows claimed at run time (the persistent form's row claims, Layout.h) change
// which cluster computes a row, not its arithmetic: every launch must give the
// static rows' output bit for bit. Launches follow each other on two streams
// without a host synchronisation (the launcher orders them on its counter, and
// each leaves it zero for the next), then one from a captured graph, replayed
// twice (no counter under capture: the static rows). M = 400 rows at P = 2: more
// rows than the resident clusters' ring depth, so most rows are claimed.
TEST_CASE("persistent form: claimed rows give the static rows' bits, launch after launch", "[gpu]") {
  std::string why = gpuUnavailableReason();
  if (!why.empty()) {
    WARN("SKIPPED: no usable GPU (" << why << ")");
    return;
  }
  const long long M = 400, N = 32768;
  const int P = 2;
  int tested = 0;
  for (const Workload &w : kWorkloads) {
    if (w.maxLegalN("cluster_persistent", P, 1) < N)
      continue;  // no persistent form in this file
    INFO(w.name);
    ++tested;
    std::vector<Arg> args = parseSignature(w.signature());
    constexpr int kLaunches = 6, kGraphLaunches = 2, kSets = 1 + kLaunches + kGraphLaunches;
    std::vector<void *> inputs(args.size(), nullptr);
    std::vector<std::vector<void *>> sets(kSets, std::vector<void *>(args.size(), nullptr));
    std::vector<float> params(args.size(), 0.75f);  // runtime params: addresses of host values
    for (size_t i = 0; i < args.size(); ++i) {
      const size_t bytes = std::max<size_t>(args[i].count(M, N) * args[i].elemBytes(), 16);
      if (args[i].kind == Arg::Param) {
        for (auto &set : sets)
          set[i] = &params[i];
      } else if (args[i].input) {
        REQUIRE(cudaMalloc(&inputs[i], bytes) == cudaSuccess);
        const bool positive = std::string(w.name) == "wvar_bwd" && args[i].name == "w";
        REQUIRE(fillInput(args[i], inputs[i], args[i].count(M, N), 1234 + 7919 * i, positive, N) == cudaSuccess);
        for (auto &set : sets)
          set[i] = inputs[i];
      } else {
        for (auto &set : sets) {
          REQUIRE(cudaMalloc(&set[i], bytes) == cudaSuccess);
          REQUIRE(cudaMemset(set[i], poisonByte(args[i]), bytes) == cudaSuccess);
        }
      }
    }
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    cudaStream_t streams[2];
    for (cudaStream_t &s : streams)
      REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
    CHECK(w.launch("cluster_persistent_static", sets[0].data(), M, N, P, 1, streams[0]) == 0);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    for (int l = 0; l < kLaunches; ++l)
      CHECK(w.launch("cluster_persistent", sets[1 + l].data(), M, N, P, 1, streams[l % 2]) == 0);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    // Captured: one launch per graph (each with its own outputs), replayed.
    for (int g = 0; g < kGraphLaunches; ++g) {
      cudaGraph_t graph = nullptr;
      cudaGraphExec_t exec = nullptr;
      REQUIRE(cudaStreamBeginCapture(streams[0], cudaStreamCaptureModeRelaxed) == cudaSuccess);
      const int status = w.launch("cluster_persistent", sets[1 + kLaunches + g].data(), M, N, P, 1, streams[0]);
      REQUIRE(cudaStreamEndCapture(streams[0], &graph) == cudaSuccess);
      CHECK(status == 0);
      REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
      REQUIRE(cudaGraphLaunch(exec, streams[0]) == cudaSuccess);
      REQUIRE(cudaGraphLaunch(exec, streams[1]) == cudaSuccess);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      cudaGraphExecDestroy(exec);
      cudaGraphDestroy(graph);
    }
    cudaError_t err = cudaGetLastError();
    INFO("CUDA: " << cudaGetErrorString(err));
    CHECK(err == cudaSuccess);
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i].input)
        continue;
      const size_t bytes = args[i].count(M, N) * args[i].elemBytes();
      unsigned long long poisoned = 0;
      REQUIRE(creditTestCountPoisonElems(sets[0][i], bytes, int(args[i].elemBytes()), &poisoned) == cudaSuccess);
      INFO("output " << args[i].name << " of the static rows: " << poisoned << " elements never written");
      CHECK(poisoned == 0);
      std::vector<unsigned char> expected(bytes), got(bytes);
      REQUIRE(cudaMemcpy(expected.data(), sets[0][i], bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
      for (int s = 1; s < kSets; ++s) {
        REQUIRE(cudaMemcpy(got.data(), sets[s][i], bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
        INFO("output " << args[i].name << ", launch " << s << (s > kLaunches ? " (graph)" : " (claimed rows)"));
        CHECK(std::memcmp(expected.data(), got.data(), bytes) == 0);
      }
    }
    for (cudaStream_t s : streams)
      cudaStreamDestroy(s);
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i].kind == Arg::Param)
        continue;
      if (args[i].input)
        cudaFree(inputs[i]);
      else
        for (auto &set : sets)
          cudaFree(set[i]);
    }
  }
  std::printf("claimed rows: %d workloads with the persistent form checked\n", tested);
  CHECK(tested > 0);
}

// Special values in the row of an online statistic's pivot (x, of the workloads that
// take max(x) and sums of exp(x - m), which creditc fuses into one online statistic):
// every variant must match the float64 two-pass reference -- NaN and infinities where
// it has them -- on rows of -inf, one +inf, one NaN, one -inf, all equal, huge values
// (up to 1e38, so that x - m stays finite in f32), a large offset, ascending and
// descending ramps (ascending: a new running maximum at every element, the online
// rescaling at its most frequent), and a row of -inf but its last element (CTAs of a
// cluster without a finite element). One row per problem, so the relative error is
// the row's own; N = 1 and 31 leave most CTAs of a cluster without elements (the
// statistic's identity). The other inputs stay U(-1, 1). bf16 rows take the patterns
// rounded to bf16 (the reference reads the same rounded row).
TEST_CASE("online statistic: special values match the two-pass reference", "[gpu][online]") {
  std::string why = gpuUnavailableReason();
  if (!why.empty()) {
    WARN("SKIPPED: no usable GPU (" << why << ")");
    return;
  }
  struct Pattern {
    const char *name;
    float (*value)(long long i, long long N, float random);
  };
  const Pattern patterns[] = {
      {"all -inf", [](long long, long long, float) { return -INFINITY; }},
      {"one +inf", [](long long i, long long N, float u) { return i == N / 2 ? INFINITY : u; }},
      {"one NaN", [](long long i, long long N, float u) { return i == N / 3 ? NAN : u; }},
      {"one -inf", [](long long i, long long N, float u) { return i == N / 2 ? -INFINITY : u; }},
      {"all equal", [](long long, long long, float) { return 3.0f; }},
      {"huge", [](long long, long long, float u) { return u * 1.0e38f; }},
      {"large offset", [](long long, long long, float u) { return 1000.0f + 20.0f * u; }},
      {"ascending", [](long long i, long long N, float) { return 16.0f * float(i) / float(N); }},
      {"descending", [](long long i, long long N, float) { return 16.0f * float(N - i) / float(N); }},
      {"-inf but the last", [](long long i, long long N, float u) { return i == N - 1 ? u : -INFINITY; }},
  };
  const char *online[] = {"softmax",      "log_softmax",           "softmax_logits_bwd",    "cross_entropy_bwd",
                          "softmax_bf16", "cross_entropy_fwd_bf16", "cross_entropy_bwd_bf16", "masked_softmax_bf16"};
  const long long Ns[] = {1, 31, 4096, 4099, 65536, 262144};
  std::random_device rd;
  int tested = 0;
  for (const Workload &w : kWorkloads) {
    if (std::find_if(std::begin(online), std::end(online),
                     [&](const char *n) { return std::string(n) == w.name; }) == std::end(online))
      continue;
    ++tested;
    Totals totals;
    for (long long N : Ns)
      for (const Pattern &pat : patterns) {
        const uint64_t seed = nextSeed(rd);
        INFO(w.name << " N=" << N << " row: " << pat.name << ", seed " << seed);
        Problem problem(w, 1, N, seed);
        std::mt19937_64 rng(seed);
        std::uniform_real_distribution<float> u(-1.0f, 1.0f);
        REQUIRE(problem.setRow("x", 0, [&](long long i) { return pat.value(i, N, u(rng)); }));
        problem.refresh();
        for (const Config &c : configsFor(w, N))
          problem.run(c, totals);
      }
    std::printf("%-20s %5d launches on special rows checked, %d skipped, %d failed\n", w.name,
                totals.launches, totals.skippedLimit, totals.failures);
    std::fflush(stdout);
    CHECK(totals.failures == 0);
  }
  CHECK(tested == int(std::size(online)));  // every workload named is generated
}

// Special values in the rows of the examples whose mean and centred sum of squares
// --fuse-moments fuses, in both builds (<example> and <example>_moments, which
// scripts/gpu-prepare.sh generates; the in-tree build has the former only): every
// variant must match the float64 two-pass reference, NaN where it has NaN (one
// infinity or NaN makes the variance NaN), on rows of one +inf, one -inf, one NaN, all
// equal (variance exactly 0), a large offset, a ramp, and an outlier at the first
// element (the fused form's per-thread shift comes from the first elements). N = 1 and
// 31 leave most CTAs of a cluster without elements (the moments' identity).
TEST_CASE("moments: special values match the two-pass reference", "[gpu][moments]") {
  std::string why = gpuUnavailableReason();
  if (!why.empty()) {
    WARN("SKIPPED: no usable GPU (" << why << ")");
    return;
  }
  struct Pattern {
    const char *name;
    float (*value)(long long i, long long N, float random);
  };
  const Pattern patterns[] = {
      {"one +inf", [](long long i, long long N, float u) { return i == N / 2 ? INFINITY : u; }},
      {"one -inf", [](long long i, long long N, float u) { return i == N / 2 ? -INFINITY : u; }},
      {"one NaN", [](long long i, long long N, float u) { return i == N / 3 ? NAN : u; }},
      {"all equal", [](long long, long long, float) { return 3.0f; }},
      {"large offset", [](long long, long long, float u) { return 1000.0f + 20.0f * u; }},
      {"ascending", [](long long i, long long N, float) { return 16.0f * float(i) / float(N); }},
      {"outlier first", [](long long i, long long, float u) { return i == 0 ? 1000.0f : u; }},
  };
  const char *examples[] = {"layernorm", "layernorm_bf16", "layernorm_f16", "standardize_residual_bf16"};
  const long long Ns[] = {1, 31, 4096, 4099, 65536, 262144};
  std::random_device rd;
  int fused = 0;
  for (const Workload &w : kWorkloads) {
    const std::string name = w.name;
    const bool isFused = name.size() > 8 && name.compare(name.size() - 8, 8, "_moments") == 0;
    const std::string base = isFused ? name.substr(0, name.size() - 8) : name;
    if (std::find_if(std::begin(examples), std::end(examples), [&](const char *n) { return base == n; }) ==
        std::end(examples))
      continue;
    fused += isFused;
    Totals totals;
    for (long long N : Ns)
      for (const Pattern &pat : patterns) {
        const uint64_t seed = nextSeed(rd);
        INFO(w.name << " N=" << N << " row: " << pat.name << ", seed " << seed);
        Problem problem(w, 1, N, seed);
        std::mt19937_64 rng(seed);
        std::uniform_real_distribution<float> u(-1.0f, 1.0f);
        REQUIRE(problem.setRow("x", 0, [&](long long i) { return pat.value(i, N, u(rng)); }));
        problem.refresh();
        for (const Config &c : configsFor(w, N))
          problem.run(c, totals);
      }
    std::printf("%-34s %5d launches on special rows checked, %d skipped, %d failed\n", w.name,
                totals.launches, totals.skippedLimit, totals.failures);
    std::fflush(stdout);
    CHECK(totals.failures == 0);
  }
  if (fused == 0) WARN("no <example>_moments build among the generated files (scripts/gpu-prepare.sh makes them)");
}

TEST_CASE("launchers validate their arguments instead of launching", "[gpu]") {
  std::string why = gpuUnavailableReason();
  if (!why.empty()) {
    WARN("SKIPPED: no usable GPU (" << why << ")");
    return;
  }
  for (const Workload &w : kWorkloads) {
    INFO(w.name);
    std::vector<Arg> args = parseSignature(w.signature());
    std::vector<void *> null(args.size(), nullptr);
    CHECK(w.launch("reread", null.data(), 4, 1024, 1, 0, nullptr) == 1); // NullPointer
    // A misaligned pointer (f32 and i32 need 4-byte alignment, i64 8-byte, bf16 and f16
    // 2-byte; a byte argument has none to miss): the first argument wider than a byte.
    std::vector<void *> bufs;
    std::vector<float> params(args.size(), 1.0f);  // runtime params: addresses of host values
    for (size_t i = 0; i < args.size(); ++i) {
      void *p = &params[i];
      if (args[i].kind != Arg::Param)
        REQUIRE(cudaMalloc(&p, args[i].count(4, 1024) * args[i].elemBytes() + 16) == cudaSuccess);
      bufs.push_back(p);
    }
    const auto wide = std::find_if(args.begin(), args.end(), [](const Arg &a) { return a.elemBytes() > 1; });
    REQUIRE(wide != args.end());
    std::vector<void *> shifted = bufs;
    shifted[size_t(wide - args.begin())] = static_cast<char *>(bufs[size_t(wide - args.begin())]) + 1;
    CHECK(w.launch("reread", shifted.data(), 4, 1024, 1, 0, nullptr) == 2); // Misaligned
    CHECK(w.launch("cluster", bufs.data(), 4, 1024, 3, 0, nullptr) == 4);   // BadClusterSize
    CHECK(w.launch("cluster", bufs.data(), 4, 1024, 2, 7, nullptr) != 0);   // bad protocol
    CHECK(w.launch("reread", bufs.data(), -1, 1024, 1, 0, nullptr) == 3);   // BadShape
    long long tooWide = w.maxLegalN("staged", 1, 0) + 4;
    CHECK(w.launch("staged", bufs.data(), 1, tooWide, 1, 0, nullptr) != 0); // Eq. 3
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    for (size_t i = 0; i < bufs.size(); ++i)
      if (args[i].kind != Arg::Param)
        cudaFree(bufs[i]);
  }
}

#ifndef CREDIT_GPU_TESTS_NO_DISPATCH
TEST_CASE("model-driven dispatch: launch_auto, last_plan, autotune", "[gpu][dispatch]") {
  std::string why = gpuUnavailableReason();
  if (!why.empty()) {
    WARN("SKIPPED: no usable GPU (" << why << ")");
    return;
  }
  // 16384 (two kept inputs) and 32768 (one): the staged kernel runs one CTA per
  // SM, so the dispatch also times T_slice(P) on scratch buffers.
  std::vector<long long> Ns = {4096, 16384, 32768, 65536, 262144};
  if (scope() != "full")
    Ns = {4096};
  std::random_device rd;
  const char *names[] = {"reread", "staged", "cluster"};
  for (const Workload &w : kWorkloads) {
    for (long long N : Ns) {
      const long long M = std::string(w.name) == "layernorm" ? 2048 : 4096;
      uint64_t seed = nextSeed(rd);
      INFO(w.name << " M=" << M << " N=" << N << " seed " << seed);
      Problem problem(w, M, N, seed);
      Totals totals;
      credit_plan p{};
      CHECK(w.lastPlan(M, N, &p) == 102);  // no decision before the first launch_auto
      // 1. The model's choice, from a T_B timed on the first call, then the fastest of
      // the baseline and the model's closest candidates (source 4) where it timed any.
      CHECK(problem.run({"auto", 1, 0}, totals));
      REQUIRE(w.lastPlan(M, N, &p) == 0);
      CHECK((p.source == 0 || p.source == 4));
      CHECK(p.tB_ms > 0);
      if (p.source == 0)
        CHECK((p.variant == 2 ? p.deltaT_ms > 0 : p.variant == p.baseline));
      else
        CHECK(p.measured_ms > 0);
      CHECK((p.variant == 2 ? (p.P >= 2 && p.P <= 16) : p.P == 1));
      // 2. Autotune: every variant timed; the fastest is recorded and then used.
      credit_plan model{}, tuned{};
      REQUIRE(w.autotune(problem.deviceArgs(), M, N, nullptr, &model, &tuned) == 0);
      CHECK(tuned.source == 1);
      CHECK(model.source == 0);
      CHECK(model.baseline == p.baseline);
      CHECK(tuned.measured_ms > 0);
      CHECK(tuned.measured_ms <= tuned.tB_ms);  // the baseline itself is a candidate
      CHECK(problem.run({"auto", 1, 0}, totals));
      credit_plan after{};
      REQUIRE(w.lastPlan(M, N, &after) == 0);
      CHECK(after.source == 1);
      CHECK(after.variant == tuned.variant);
      CHECK(after.P == tuned.P);
      CHECK(totals.failures == 0);
      auto label = [&](const credit_plan &q) {
        std::string s = names[q.variant < 0 || q.variant > 2 ? 0 : q.variant];
        if (q.variant == 2)
          s += std::string(q.protocol ? "_mbarrier" : "_sync") + "_P" + std::to_string(q.P);
        return s;
      };
      std::printf("dispatch %-20s M=%-5lld N=%-7lld T_B %.4f ms (%s)  model: %-22s dT %+.4f  "
                  "autotune: %-22s %.4f ms\n",
                  w.name, M, N, model.tB_ms, names[model.baseline], label(model).c_str(),
                  model.deltaT_ms, label(tuned).c_str(), tuned.measured_ms);
      std::fflush(stdout);
    }
  }
}

TEST_CASE("dispatch first use: never timed under stream capture; the predict mode times nothing",
          "[gpu][dispatch][capture]") {
  std::string why = gpuUnavailableReason();
  if (!why.empty()) {
    WARN("SKIPPED: no usable GPU (" << why << ")");
    return;
  }
  const long long M = 1000, N = 65536;  // a shape no other case decides
  for (const Workload &w : kWorkloads) {
    INFO(w.name);
    const int before = w.dispatchMode(1);  // measure: what capture must override
    Problem problem(w, M, N, 7);
    cudaStream_t stream = nullptr;
    REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
    REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
    const int status = w.launchAuto(problem.deviceArgs(), M, N, stream);
    cudaGraph_t graph = nullptr;
    const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
    INFO("launch_auto under capture: " << w.status(status));
    CHECK(status == 0);
    REQUIRE(ended == cudaSuccess);
    credit_plan p{};
    CHECK(w.lastPlan(M, N, &p) == 102);  // the prediction ran, unrecorded
    cudaGraphExec_t exec = nullptr;
    REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
    CHECK(cudaGraphLaunch(exec, stream) == cudaSuccess);
    CHECK(cudaStreamSynchronize(stream) == cudaSuccess);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(stream);
    // The predict mode: decided without timing anything, recorded.
    CHECK(w.dispatchMode(0) == 1);
    Totals totals;
    CHECK(problem.run({"auto", 1, 0}, totals));
    REQUIRE(w.lastPlan(M, N, &p) == 0);
    CHECK((p.source == 0 || p.source == 2));
    CHECK(p.measured_ms == 0);
    CHECK(totals.failures == 0);
    CHECK(w.dispatchMode(7) == -2);
    // What first use costs in measure mode (a new shape), against a decided launch.
    CHECK(w.dispatchMode(1) == 0);
    Problem fresh(w, M + 1, N, 8);
    auto wall = [&]() {
      const auto t0 = std::chrono::steady_clock::now();
      const int s = w.launchAuto(fresh.deviceArgs(), M + 1, N, nullptr);
      const cudaError_t e = cudaDeviceSynchronize();
      CHECK(s == 0);
      CHECK(e == cudaSuccess);
      return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    };
    const double first = wall(), decided = wall();
    REQUIRE(w.lastPlan(M + 1, N, &p) == 0);
    std::printf("first use %-20s M=%lld N=%lld: %.3f ms (decided: %.3f ms), source %d\n", w.name, M + 1, N, first,
                decided, p.source);
    std::fflush(stdout);
    w.dispatchMode(before);
  }
}
#endif  // CREDIT_GPU_TESTS_NO_DISPATCH
