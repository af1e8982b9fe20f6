// The GPU tests of the device library: one workload of tests/device/fixtures per
// translation unit (it #includes the fixture), its float64 reference, and the test
// cases of LibraryTests.h run on it.
//
// A Problem holds one (M, N) of a workload on the GPU: fresh random inputs (the seed
// is printed on a failure; bf16 and f16 inputs hold the values rounded to their type,
// which the reference gets exactly), the reference of the checked rows (all when
// M <= 64, else 16: first, second, middle, last and random ones), and outputs poisoned
// before every launch. check() says whether every output element was written and
// matches the reference: f32 outputs within a relative L2 error of 1e-5, bf16 1e-2,
// f16 2e-3 (NaN exactly where the reference is NaN), i8 outputs exactly but for
// rounding ties (|diff| = 1 in at most 1 of 10^4 elements: the kernel rounds in f32,
// the reference in f64). setRow() replaces a row of an input (special values) and
// computes the reference anew; check() then takes other tolerances where such a row's
// values call for them.
#ifndef CREDIT_TESTS_GPU_LIBRARY_HARNESS_H
#define CREDIT_TESTS_GPU_LIBRARY_HARNESS_H

#include <catch2/catch.hpp>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "credit/runtime/Launch.h"

cudaError_t creditTestFillUniform(float* p, size_t n, uint64_t seed, float lo, float hi);
cudaError_t creditTestFillUniform16(void* p, size_t n, uint64_t seed, float lo, float hi, bool bf16);
cudaError_t creditTestCountPoisonElems(const void* p, size_t bytes, int elemBytes, unsigned long long* out);

namespace credit_test {

using credit::device::Elem;

// The element types of workload W's arguments: inputs, then outputs.
template <class W>
std::vector<Elem> elemsOf() {
  std::vector<Elem> e;
  for (const credit::device::Operand& o : W::kInputs) e.push_back(o.elem);
  for (const credit::device::Operand& o : W::kOutputs) e.push_back(o.elem);
  return e;
}

// Whether a stage of workload W has an online statistic (a max and sums of exp
// relative to it, Reduce::SumExpMax).
template <class W>
constexpr bool hasOnlineStatistic() {
  for (int p = 0; p < W::kStages; ++p)
    if (credit::device::Contract<W>::hasSumExp(p)) return true;
  return false;
}

// How far `got` is from `ref`, NaNs apart: the sums of squares of the difference
// (num) and of ref (den), the largest absolute difference, and the elements where
// one side is NaN and the other not.
struct Difference {
  double num = 0, den = 0, maxAbs = 0;
  size_t nanMismatch = 0;
};
template <class R>
Difference difference(const std::vector<float>& got, const std::vector<R>& ref) {
  Difference d;
  for (size_t e = 0; e < ref.size(); ++e) {
    if (std::isnan(ref[e]) || std::isnan(got[e])) {
      d.nanMismatch += std::isnan(ref[e]) != std::isnan(got[e]);
      continue;
    }
    const double diff = double(got[e]) - double(ref[e]);
    d.num += diff * diff;
    d.den += double(ref[e]) * double(ref[e]);
    d.maxAbs = std::max(d.maxAbs, std::fabs(diff));
  }
  return d;
}

// A 16-bit element's value (exact in f32).
inline float from16(Elem e, uint16_t bits) {
  return e == Elem::BF16 ? __bfloat162float(__ushort_as_bfloat16(bits)) : __half2float(__ushort_as_half(bits));
}
// A reference value as a 16-bit output stores it rounded to nearest even: what the kernel
// is compared with, so that the store's own rounding (up to half a subnormal step, a large
// relative error on values as small as a wide softmax's) is not counted as its error.
inline double stored16(Elem e, double v) {
  return e == Elem::BF16 ? __bfloat162float(__float2bfloat16_rn(float(v))) : __half2float(__float2half_rn(float(v)));
}

// The relative L2 error allowed per output type, against the reference as the output
// stores it. f32: the kernel's f32 arithmetic against float64; bf16 and f16: where that
// arithmetic lands the value on the other side of a rounding boundary, one step of 2^-8
// (bf16, 8 significand bits) or 2^-11 (f16) relative.
inline double tolerance(Elem e) { return e == Elem::BF16 ? 1e-2 : e == Elem::F16 ? 2e-3 : 1e-5; }

// The checked rows of a problem on the host: inputs as float (row: R x N, broadcast:
// N, per-row: R), the reference's outputs as double (row: R x N, per-row: R).
struct HostRows {
  long long R = 0, N = 0;
  std::vector<std::vector<float>> in;
  std::vector<std::vector<double>> out;
};
using Reference = void (*)(HostRows&);

// Inputs uniform in [lo, hi) per input (a workload may need positive values).
struct Range {
  float lo = -1.0f, hi = 1.0f;
};

struct Spec {
  const char* name;
  const credit::host::Workload& w;
  int numInputs;
  Reference reference;
  std::vector<Range> ranges;  // per input; empty: [-1, 1) for all
  std::vector<Elem> elems;    // per argument (elemsOf<Workload>()); empty: f32, i8 where one byte
  bool onlineStatistic = false;  // a stage with an online statistic (hasOnlineStatistic<Workload>())
};

inline std::string gpuUnavailable() {
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) return cudaGetErrorString(err);
  if (n == 0) return "no CUDA device";
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  if (prop.major < 9) return std::string(prop.name) + " has compute capability < 9.0 (no clusters)";
  return "";
}

#define CREDIT_REQUIRE_GPU()                              \
  do {                                                    \
    const std::string why_ = credit_test::gpuUnavailable(); \
    if (!why_.empty()) {                                  \
      WARN("SKIPPED: " << why_);                          \
      return;                                             \
    }                                                     \
  } while (0)

inline uint64_t freshSeed() {
  if (const char* s = std::getenv("CREDIT_GPU_TEST_SEED")) return std::strtoull(s, nullptr, 10);
  return static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
}

class Problem {
 public:
  // `misaligned`: every per-element pointer one element past an aligned address, so
  // that the launchers take the VEC = 1 kernels.
  Problem(const Spec& s, long long M, long long N, bool misaligned = false)
      : spec(s), w(s.w), M(M), N(N), seed(freshSeed()) {
    for (int i = 0; i < w.numArgs; ++i) {
      void* p = nullptr;
      REQUIRE(cudaMalloc(&p, bytes(i) + 256) == cudaSuccess);  // room for the misaligned shift
      base.push_back(p);
      const bool shift = misaligned && w.argKind[i] != credit::host::kArgPerRow;
      args.push_back(static_cast<char*>(p) + (shift ? w.argBytes[i] : 0));
    }
    for (int i = 0; i < w.numArgs; ++i) REQUIRE(credit::device::elemBytes(elem(i)) == w.argBytes[i]);
    for (int i = 0; i < s.numInputs; ++i) {
      const Range r = i < static_cast<int>(s.ranges.size()) ? s.ranges[i] : Range{};
      if (elem(i) == Elem::F32)
        REQUIRE(creditTestFillUniform(static_cast<float*>(args[i]), count(i), seed + 7919 * i, r.lo, r.hi) ==
                cudaSuccess);
      else if (w.argBytes[i] == 1)
        fillBytes(i, seed + 7919 * i);
      else
        REQUIRE(creditTestFillUniform16(args[i], count(i), seed + 7919 * i, r.lo, r.hi, elem(i) == Elem::BF16) ==
                cudaSuccess);
    }
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    chooseRows();
    reference();
  }
  ~Problem() {
    for (void* p : base) cudaFree(p);
  }
  Problem(const Problem&) = delete;
  Problem& operator=(const Problem&) = delete;

  const void* const* data() const { return args.data(); }
  void* const* mutableData() { return args.data(); }

  // Outputs poisoned: f32 words 0xFFFFFFFF and bf16 / f16 halves 0xFFFF (NaNs no kernel
  // writes here), i8 bytes 0x80 (-128: outputs are clamped to [-127, 127]).
  void poison() {
    for (int i = spec.numInputs; i < w.numArgs; ++i)
      REQUIRE(cudaMemset(args[i], w.argBytes[i] == 1 ? 0x80 : 0xFF, bytes(i)) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  }

  // Row r of row input i set to value(c) at every column c (a 16-bit input holds the
  // values rounded to its type, as the fill does), and the reference computed anew.
  void setRow(int i, long long r, const std::function<float(long long)>& value) {
    REQUIRE(w.argKind[i] == credit::host::kArgRow);
    REQUIRE((elem(i) == Elem::F32 || credit::device::is16Bit(elem(i))));
    std::vector<float> v(static_cast<size_t>(N));
    for (long long c = 0; c < N; ++c) v[size_t(c)] = value(c);
    char* dst = static_cast<char*>(args[i]) + size_t(r) * size_t(N) * size_t(w.argBytes[i]);
    if (elem(i) == Elem::F32) {
      REQUIRE(cudaMemcpy(dst, v.data(), v.size() * 4, cudaMemcpyHostToDevice) == cudaSuccess);
    } else {
      std::vector<uint16_t> bits(v.size());
      for (size_t e = 0; e < v.size(); ++e)
        bits[e] = elem(i) == Elem::BF16 ? __bfloat16_as_ushort(__float2bfloat16_rn(v[e]))
                                        : __half_as_ushort(__float2half_rn(v[e]));
      REQUIRE(cudaMemcpy(dst, bits.data(), bits.size() * 2, cudaMemcpyHostToDevice) == cudaSuccess);
    }
    reference();
  }

  // Every output written and matching the reference (after a launch returned 0).
  // tolerances[o], where given and not negative, replaces output o's tolerance().
  bool check(const std::vector<double>& tolerances = {}) {
    const cudaError_t err = cudaDeviceSynchronize();
    INFO("kernel: " << cudaGetErrorString(err));
    REQUIRE(err == cudaSuccess);
    bool ok = true;
    for (int i = spec.numInputs; i < w.numArgs; ++i) {
      unsigned long long poisoned = 0;
      REQUIRE(creditTestCountPoisonElems(args[i], bytes(i), w.argBytes[i], &poisoned) == cudaSuccess);
      INFO("output " << i << ": " << poisoned << " elements never written");
      CHECK(poisoned == 0);
      const size_t o = size_t(i - spec.numInputs);
      const double tol = o < tolerances.size() && tolerances[o] >= 0 ? tolerances[o] : tolerance(elem(i));
      ok = ok && poisoned == 0 && compare(i, tol);
    }
    return ok;
  }

  // Every output's bytes (for bit-for-bit comparisons).
  std::vector<std::vector<char>> outputs() {
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    std::vector<std::vector<char>> out;
    for (int i = spec.numInputs; i < w.numArgs; ++i) {
      out.emplace_back(bytes(i));
      REQUIRE(cudaMemcpy(out.back().data(), args[i], bytes(i), cudaMemcpyDeviceToHost) == cudaSuccess);
    }
    return out;
  }

  // Output i's bytes (outputs()) as floats; byte outputs as their integers.
  std::vector<float> decode(int i, const std::vector<char>& bytes) const {
    const size_t eb = size_t(w.argBytes[i]), n = bytes.size() / eb;
    std::vector<float> v(n);
    for (size_t e = 0; e < n; ++e) {
      if (eb == 1) {
        v[e] = float(static_cast<int8_t>(bytes[e]));
      } else if (eb == 2) {
        uint16_t b;
        std::memcpy(&b, bytes.data() + e * 2, 2);
        v[e] = from16(elem(i), b);
      } else {
        std::memcpy(&v[e], bytes.data() + e * 4, 4);
      }
    }
    return v;
  }

  std::string label() const {
    return std::string(spec.name) + " M=" + std::to_string(M) + " N=" + std::to_string(N) +
           " seed=" + std::to_string(seed);
  }

  const Spec& spec;
  const credit::host::Workload& w;
  const long long M, N;
  const uint64_t seed;

 private:
  size_t count(int i) const {
    const int k = w.argKind[i];
    return k == credit::host::kArgRow ? size_t(M) * size_t(N) : k == credit::host::kArgBroadcast ? size_t(N) : size_t(M);
  }
  // An argument's bytes: exactly its elements (poisoned, counted and compared), so
  // that an i8 output of fewer than four elements has no bytes no kernel writes.
  size_t bytes(int i) const { return count(i) * size_t(w.argBytes[i]); }
  size_t perRow(int i) const { return w.argKind[i] == credit::host::kArgRow ? size_t(N) : 1; }
  Elem elem(int i) const {
    return !spec.elems.empty() ? spec.elems[size_t(i)] : w.argBytes[i] == 1 ? Elem::I8 : Elem::F32;
  }

  // A byte input: a bool mask about 3/4 true, u8 in [0, 255], i8 in [-128, 127].
  void fillBytes(int i, uint64_t s) {
    std::mt19937_64 rng(s);
    std::vector<uint8_t> h(count(i));
    for (uint8_t& b : h) b = elem(i) == Elem::Bool ? uint8_t(rng() % 4 != 0) : uint8_t(rng());
    REQUIRE(cudaMemcpy(args[i], h.data(), h.size(), cudaMemcpyHostToDevice) == cudaSuccess);
  }

  // `n` elements of input i from `src` as floats (16-bit and byte ones widened, exactly).
  void readInput(int i, const void* src, size_t n, float* dst) const {
    if (elem(i) == Elem::F32) {
      REQUIRE(cudaMemcpy(dst, src, n * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
      return;
    }
    if (w.argBytes[i] == 1) {
      std::vector<uint8_t> b(n);
      REQUIRE(cudaMemcpy(b.data(), src, n, cudaMemcpyDeviceToHost) == cudaSuccess);
      for (size_t e = 0; e < n; ++e)
        dst[e] = elem(i) == Elem::Bool ? float(b[e] != 0) : elem(i) == Elem::I8 ? float(int8_t(b[e])) : float(b[e]);
      return;
    }
    std::vector<uint16_t> bits(n);
    REQUIRE(cudaMemcpy(bits.data(), src, n * 2, cudaMemcpyDeviceToHost) == cudaSuccess);
    for (size_t e = 0; e < n; ++e) dst[e] = from16(elem(i), bits[e]);
  }

  void chooseRows() {
    if (M <= 64) {
      for (long long r = 0; r < M; ++r) rows.push_back(r);
      return;
    }
    std::mt19937_64 rng(seed);
    rows = {0, 1, M / 2, M - 1};
    while (rows.size() < 16) rows.push_back(static_cast<long long>(rng() % static_cast<uint64_t>(M)));
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  }

  void reference() {
    host.R = static_cast<long long>(rows.size());
    host.N = N;
    host.in.resize(spec.numInputs);
    for (int i = 0; i < spec.numInputs; ++i) {
      auto& h = host.in[i];
      if (w.argKind[i] == credit::host::kArgBroadcast) {
        h.resize(size_t(N));
        readInput(i, args[i], size_t(N), h.data());
        continue;
      }
      h.resize(rows.size() * perRow(i));
      const size_t eb = size_t(w.argBytes[i]);
      for (size_t r = 0; r < rows.size(); ++r)
        readInput(i, static_cast<const char*>(args[i]) + size_t(rows[r]) * perRow(i) * eb, perRow(i),
                  h.data() + r * perRow(i));
    }
    host.out.assign(w.numArgs - spec.numInputs, {});
    for (int i = spec.numInputs; i < w.numArgs; ++i) host.out[i - spec.numInputs].resize(rows.size() * perRow(i));
    spec.reference(host);
  }

  bool compare(int i, double tol) {
    const std::vector<double>& ref = host.out[i - spec.numInputs];
    const size_t per = perRow(i), eb = size_t(w.argBytes[i]);
    std::vector<char> got(rows.size() * per * eb);
    for (size_t r = 0; r < rows.size(); ++r)
      REQUIRE(cudaMemcpy(got.data() + r * per * eb, static_cast<char*>(args[i]) + size_t(rows[r]) * per * eb,
                         per * eb, cudaMemcpyDeviceToHost) == cudaSuccess);
    const std::vector<float> g = decode(i, got);
    std::vector<double> stored;
    if (eb == 2) {
      stored.resize(ref.size());
      for (size_t e = 0; e < ref.size(); ++e) stored[e] = std::isnan(ref[e]) ? ref[e] : stored16(elem(i), ref[e]);
    }
    if (eb == 1) {
      size_t mismatches = 0, bad = 0;
      for (size_t e = 0; e < ref.size(); ++e) {
        const int d = std::abs(int(g[e]) - int(ref[e]));
        mismatches += d != 0;
        bad += d > 1;
      }
      const size_t allowed = std::max<size_t>(1, ref.size() / 10000);
      INFO("output " << i << " (i8): " << mismatches << " of " << ref.size() << " differ, " << bad << " by more than 1");
      CHECK(bad == 0);
      CHECK(mismatches <= allowed);
      return bad == 0 && mismatches <= allowed;
    }
    const Difference d = difference(g, eb == 2 ? stored : ref);
    const double rel = d.den > 0 ? std::sqrt(d.num / d.den) : d.maxAbs;
    INFO("output " << i << ": relative L2 error " << rel << " (allowed " << tol << "), max abs error " << d.maxAbs
                   << ", NaN mismatches " << d.nanMismatch);
    CHECK(d.nanMismatch == 0);
    CHECK(rel <= tol);
    return d.nanMismatch == 0 && rel <= tol;
  }

  std::vector<void*> base, args;
  std::vector<long long> rows;
  HostRows host;
};

}  // namespace credit_test

#endif  // CREDIT_TESTS_GPU_LIBRARY_HARNESS_H
