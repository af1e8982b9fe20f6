//===- ControlFit.cpp - The control grid from measured control kernels ----===//
//
// A profile that holds control-kernel timings (control.entries: the work-free
// control kernel of some kernels, each at a footprint, M, N, P and protocol)
// rather than the control grid's figures is reduced to the device's figures:
// for each protocol and P, the five GridCost figures of Model.h are fitted to
// every entry's t_control_ms (P = 1: t_one_cta_ms) by least squares on the
// relative error, under the constraint that each figure is >= 0. The kernel an
// entry was measured for plays no part: only its footprint (L, sum q, CTAs per
// SM, rows per wave) does, so the figures price any kernel (docs/cost-model.md,
// "The control grid").
//
//===----------------------------------------------------------------------===//
#include "credit/Model/CostModel.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <vector>

using namespace llvm;
using namespace credit::model;

namespace {

constexpr int kFigures = 5; // launch, CTA, stage, statistic, issue

struct Point {
  std::array<double, kFigures> x; // the coefficients of the figures in t (ms)
  double t;                       // the measured time, ms
};

/// Least squares on the figures in `mask` (others 0), each row weighted by
/// 1 / t. Nothing when singular or when a figure comes out negative.
std::optional<std::array<double, kFigures>> solveMasked(const std::vector<Point> &pts, unsigned mask) {
  int idx[kFigures], n = 0;
  for (int i = 0; i < kFigures; ++i)
    if (mask >> i & 1)
      idx[n++] = i;
  double a[kFigures][kFigures + 1] = {};
  for (const Point &p : pts) {
    const double w = 1.0 / (p.t * p.t);
    for (int r = 0; r < n; ++r) {
      for (int c = 0; c < n; ++c)
        a[r][c] += w * p.x[idx[r]] * p.x[idx[c]];
      a[r][n] += w * p.x[idx[r]] * p.t;
    }
  }
  for (int c = 0; c < n; ++c) { // Gauss-Jordan with partial pivoting
    int piv = c;
    for (int r = c + 1; r < n; ++r)
      if (std::fabs(a[r][c]) > std::fabs(a[piv][c]))
        piv = r;
    if (!(std::fabs(a[piv][c]) > 1e-300))
      return std::nullopt;
    for (int k = 0; k <= n; ++k)
      std::swap(a[c][k], a[piv][k]);
    for (int r = 0; r < n; ++r) {
      if (r == c)
        continue;
      const double f = a[r][c] / a[c][c];
      for (int k = c; k <= n; ++k)
        a[r][k] -= f * a[c][k];
    }
  }
  std::array<double, kFigures> v{};
  for (int r = 0; r < n; ++r) {
    const double x = a[r][n] / a[r][r];
    if (!std::isfinite(x) || x < 0)
      return std::nullopt;
    v[idx[r]] = x;
  }
  return v;
}

/// The non-negative fit of least relative error over every subset of figures
/// (32 small systems). Its RMS relative error in `rms`.
std::optional<std::array<double, kFigures>> fitFigures(const std::vector<Point> &pts, double &rms) {
  std::optional<std::array<double, kFigures>> best;
  double bestErr = 0;
  for (unsigned mask = 1; mask < (1u << kFigures); ++mask) {
    std::optional<std::array<double, kFigures>> v = solveMasked(pts, mask);
    if (!v)
      continue;
    double err = 0;
    for (const Point &p : pts) {
      double t = 0;
      for (int i = 0; i < kFigures; ++i)
        t += (*v)[i] * p.x[i];
      err += (t / p.t - 1) * (t / p.t - 1);
    }
    if (!best || err < bestErr) {
      best = v;
      bestErr = err;
    }
  }
  rms = best ? std::sqrt(bestErr / static_cast<double>(pts.size())) : 0;
  return best;
}

/// The coefficients of a grid of M rows, L stages, sum q statistics at P CTAs
/// a row and `smem` bytes of dynamic SMEM per CTA (Model.h, gridMs).
Point pointOf(const Device &d, int P, long long M, int L, int q, int threads, long long smem, double t) {
  const int k = ctasPerSm(d, smem, threads);
  const long long R = residentClusters(d, P, k);
  const double W = static_cast<double>(ceilDivPos(M, R < 1 ? 1 : R));
  const double perCycle = W / (d.smClockMHz * 1e3);
  return Point{{1e-3, perCycle, perCycle * L, perCycle * q, perCycle * (k - 1)}, t};
}

std::optional<double> num(const json::Object &o, StringRef key) {
  std::optional<double> v = o.getNumber(key);
  return v && std::isfinite(*v) && *v >= 0 ? v : std::nullopt;
}

} // namespace

Error credit::model::fitControlGrid(const json::Array &entries, StringRef name, Device &d,
                                    std::vector<std::string> &notes) {
  std::vector<Point> pts[2][kNumClusterSizes];
  std::vector<std::array<long long, 4>> seenOne[2]; // (M, N, L, q) of the one-CTA points taken
  for (size_t i = 0; i < entries.size(); ++i) {
    auto bad = [&](const Twine &msg) {
      return createStringError(inconvertibleErrorCode(),
                               formatv("{0}: key 'control.entries[{1}]': ", name, i).str() + msg.str());
    };
    const json::Object *e = entries[i].getAsObject();
    if (!e)
      return bad("expected an object");
    std::optional<StringRef> proto = e->getString("protocol");
    if (!proto || (*proto != "sync" && *proto != "mbarrier"))
      return bad("'protocol' must be \"sync\" or \"mbarrier\"");
    const int protocol = *proto == "mbarrier";
    std::optional<int64_t> P = e->getInteger("P"), M = e->getInteger("M"), N = e->getInteger("N");
    if (!P || log2P(static_cast<int>(*P)) < 1 || !M || *M < 1 || *M > kMaxRows || !N || *N < 1)
      return bad("'P' must be 2, 4, 8 or 16 and 'M', 'N' positive integers");
    const json::Object *g = e->getObject("geometry");
    std::optional<int64_t> L = g ? g->getInteger("L") : std::nullopt;
    std::optional<int64_t> q = g ? g->getInteger("q_sum") : std::nullopt;
    std::optional<int64_t> threads = g ? g->getInteger("threads") : std::nullopt;
    std::optional<int64_t> smem = e->getInteger("smem_bytes"), smemOne = e->getInteger("one_cta_smem_bytes");
    std::optional<double> t = num(*e, "t_control_ms"), tOne = num(*e, "t_one_cta_ms");
    // A T_ctrl alone (no footprint, no raw times) names a kernel, not the device: not used.
    if (!L || !q || !threads || !smem || !t || *L < 1 || *L > 64 || *q < 0 || *q > 1024 || *threads < 32 ||
        *threads > 1024 || *smem < 0 || *smem > (1LL << 40))
      continue;
    if (*t > 0)
      pts[protocol][log2P(static_cast<int>(*P))].push_back(
          pointOf(d, static_cast<int>(*P), *M, static_cast<int>(*L), static_cast<int>(*q),
                  static_cast<int>(*threads), *smem, *t));
    const std::array<long long, 4> key{*M, *N, *L, *q};
    if (smemOne && *smemOne >= 0 && *smemOne <= (1LL << 40) && tOne && *tOne > 0 &&
        std::find(seenOne[protocol].begin(), seenOne[protocol].end(), key) == seenOne[protocol].end()) {
      seenOne[protocol].push_back(key);
      pts[protocol][0].push_back(pointOf(d, 1, *M, static_cast<int>(*L), static_cast<int>(*q),
                                         static_cast<int>(*threads), *smemOne, *tOne));
    }
  }
  for (int protocol = 0; protocol < 2; ++protocol)
    for (int l = 0; l < kNumClusterSizes; ++l) {
      if (pts[protocol][l].size() < static_cast<size_t>(kFigures))
        continue; // too few points: not fitted (the candidates of this P are not evaluated)
      double rms = 0;
      std::optional<std::array<double, kFigures>> v = fitFigures(pts[protocol][l], rms);
      if (!v)
        continue;
      d.grid[protocol][l] = GridCost{(*v)[0], (*v)[1], (*v)[2], (*v)[3], (*v)[4]};
      d.gridMeasured[protocol][l] = true;
      notes.push_back(formatv("control grid {0} P = {1} fitted to {2} control timings (RMS error {3:P0})",
                              protocol ? "mbarrier" : "sync", 1 << l, pts[protocol][l].size(), rms)
                          .str());
    }
  return Error::success();
}
