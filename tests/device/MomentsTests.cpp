// The moments arithmetic (credit/device/moments.cuh) on the host: what the kernels'
// trees and sweeps rely on, checked against float64 two-pass sums. The device
// computes count_rcp with rcp.approx (within an ulp) where the host divides; every
// property below holds for either.
#include "credit/device/moments.cuh"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace {

using credit::device::moments::combine;
using credit::device::moments::merge_run;

constexpr int kVec = 8;

struct Moments {
  float m[3] = {0.0f, 0.0f, 0.0f};  // (n, s, M2)
};

// One thread's sweep: its positions t, t + T, t + 2T, ... of kVec terms each.
Moments sweep(const std::vector<float>& x, int t, int T) {
  Moments r;
  for (size_t p = size_t(t) * kVec; p + kVec <= x.size(); p += size_t(T) * kVec) {
    float g[kVec];
    for (int v = 0; v < kVec; ++v) g[v] = x[p + v];
    merge_run(r.m[0], r.m[1], r.m[2], g);
  }
  return r;
}

// A row reduced as a kernel does: T threads sweep, then a pairwise tree of combines.
Moments reduceRow(const std::vector<float>& x, int T) {
  std::vector<Moments> parts;
  for (int t = 0; t < T; ++t) parts.push_back(sweep(x, t, T));
  while (parts.size() > 1) {
    std::vector<Moments> next;
    for (size_t i = 0; i + 1 < parts.size(); i += 2) {
      Moments a = parts[i];
      combine(a.m, parts[i + 1].m);
      next.push_back(a);
    }
    if (parts.size() % 2) next.push_back(parts.back());
    parts = next;
  }
  return parts[0];
}

struct TwoPass {
  double mean, m2;
};
TwoPass twoPass(const std::vector<float>& x) {
  double s = 0;
  for (float v : x) s += v;
  const double mean = s / double(x.size());
  double m2 = 0;
  for (float v : x) m2 += (v - mean) * (v - mean);
  return {mean, m2};
}

// Rows as the GPU tests draw them: values with few significand bits (16-bit inputs).
float round11(double v) {
  int e;
  const double f = std::frexp(v, &e);
  return float(std::ldexp(std::nearbyint(std::ldexp(f, 11)), e - 11));
}

std::vector<float> row(const char* kind, int N, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> nd;
  std::vector<float> x(size_t(N), 0.0f);
  for (int i = 0; i < N; ++i) {
    double v = nd(rng);
    if (!std::strcmp(kind, "offset")) v += 100.0;
    if (!std::strcmp(kind, "sorted")) v = -3.0 + 6.0 * i / N;
    if (!std::strcmp(kind, "outlier first") && i == 0) v = 3000.0;
    x[size_t(i)] = round11(v);
  }
  return x;
}

bool sameBits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

TEST_CASE("moments: a constant row's M2 is exactly 0, its sum exact", "[device][moments]") {
  for (int N : {8, 4096, 4104, 65536}) {
    for (int T : {1, 64, 256}) {
      const std::vector<float> x(size_t(N), 3.0f);
      const Moments r = reduceRow(x, T);
      INFO("N " << N << ", threads " << T);
      CHECK(r.m[0] == float(N));
      CHECK(r.m[1] == 3.0f * float(N));
      CHECK(r.m[2] == 0.0f);
    }
  }
}

TEST_CASE("moments: the combine is commutative bit for bit", "[device][moments]") {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<float> u(-1e3f, 1e3f);
  std::uniform_int_distribution<int> cnt(1, 1 << 20);
  for (int i = 0; i < 20000; ++i) {
    const float na = float(cnt(rng)), nb = float(cnt(rng));
    const float a0[3] = {na, u(rng) * na, std::fabs(u(rng)) * na};
    const float b0[3] = {nb, u(rng) * nb, std::fabs(u(rng)) * nb};
    float ab[3] = {a0[0], a0[1], a0[2]}, ba[3] = {b0[0], b0[1], b0[2]};
    combine(ab, b0);
    combine(ba, a0);
    INFO("case " << i);
    REQUIRE(sameBits(ab[0], ba[0]));
    REQUIRE(sameBits(ab[1], ba[1]));
    REQUIRE(sameBits(ab[2], ba[2]));
  }
}

TEST_CASE("moments: the identity leaves an operand as it is", "[device][moments]") {
  const float x[3] = {24.0f, -7.5f, 12.25f}, zero[3] = {0.0f, 0.0f, 0.0f};
  float a[3] = {0.0f, 0.0f, 0.0f};
  combine(a, x);
  float b[3] = {x[0], x[1], x[2]};
  combine(b, zero);
  for (int i = 0; i < 3; ++i) {
    CHECK(sameBits(a[i], x[i]));
    CHECK(sameBits(b[i], x[i]));
  }
}

// Many terms per thread (a one-CTA kernel at 262144) is where a shifted sum drifted:
// the mean must stay as close as a plain sum's, the variance close to the two-pass one.
TEST_CASE("moments: mean and M2 of wide rows against the float64 two-pass sums", "[device][moments]") {
  for (const char* kind : {"centred", "offset", "sorted", "outlier first"}) {
    for (int N : {65536, 262144}) {
      for (int T : {64, 256, 1024}) {
        const std::vector<float> x = row(kind, N, unsigned(N + T));
        const TwoPass ref = twoPass(x);
        const Moments r = reduceRow(x, T);
        // A mean error relative to the mean, or to the row's spread where the mean is near 0.
        const double scale = std::max(std::fabs(ref.mean), std::sqrt(ref.m2 / N));
        const double meanErr = std::fabs(double(r.m[1]) / N - ref.mean) / scale;
        const double m2Err = std::fabs(double(r.m[2]) - ref.m2) / ref.m2;
        INFO(kind << ", N " << N << ", threads " << T << ": mean error " << meanErr << " of the RMS, M2 error "
                  << m2Err);
        CHECK(r.m[0] == float(N));
        CHECK(meanErr < 5e-7);
        CHECK(m2Err < 1e-5);
      }
    }
  }
}

TEST_CASE("moments: an infinite term makes the sum infinite and M2 NaN, a NaN both", "[device][moments]") {
  std::vector<float> x = row("centred", 4096, 3);
  x[100] = INFINITY;
  Moments r = reduceRow(x, 64);
  CHECK(std::isinf(r.m[1]));
  CHECK(r.m[1] > 0);
  CHECK(std::isnan(r.m[2]));
  x[100] = NAN;
  r = reduceRow(x, 64);
  CHECK(std::isnan(r.m[1]));
  CHECK(std::isnan(r.m[2]));
}
