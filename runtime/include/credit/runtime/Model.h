// credit/runtime/Model.h -- the profitability model's arithmetic (docs/cost-model.md).
//
// One implementation of the paper's Eqs. 5-9 and of the T_ctrl table lookup,
// shared by the compiler (compiler/lib/Model/CostModel.cpp: `creditc predict`,
// which adds the profile parsing, the messages and the report) and by the
// generated files' model-driven dispatch (`creditc --profile`: this file is
// embedded VERBATIM into their host section, with the profile's figures for
// that kernel as constants). Plain data in, plain data out: host C++17, no
// allocation, no std:: containers, no CUDA; never compiled by NVRTC.
#ifndef CREDIT_MODEL_H
#define CREDIT_MODEL_H

#if !defined(__CUDACC_RTC__)
#include <math.h>

namespace credit {
namespace model {

// ---------------------------------------------------------------------------
// T_ctrl(M, N, P): the work-free control's excess time, from measured points.
// ---------------------------------------------------------------------------

// One measured point (profile key control.entries[i]); protocol 0 sync, 1 mbarrier.
struct CtrlPoint {
  int protocol;
  int P;
  long long M;
  long long N;
  double ms;
};

enum CtrlSource : int { kCtrlMeasured = 0, kCtrlInterpolated = 1, kCtrlExtrapolated = 2 };

// The lookup's value and where it came from (the compiler prints the ranges).
struct CtrlValue {
  bool found;        // some point of this (protocol, P)
  double ms;
  int source;        // CtrlSource
  bool exactM, clampedM;
  long long mLo, mHi;  // the measured M used: mLo == mHi when exact or clamped
  bool allExactN, anyClampedN;
  long long nLo, nHi;  // the first measured M's N range used when not exact (nLo == nHi: clamped)
};

namespace detail {
constexpr int kMaxCtrlRows = 64;   // distinct measured M per (protocol, P)
constexpr int kMaxCtrlCols = 64;   // distinct measured N per M

struct Interp {
  double value;
  bool exact, clamped;
  double lo, hi;
};

// Piecewise-linear interpolation of (xs[i], ys[i]), xs sorted ascending and
// distinct, in log2(x) (logX) or x. Outside the range: the nearest point.
inline Interp interpolate(const double* xs, const double* ys, int n, double x, bool logX) {
  for (int i = 0; i < n; ++i)
    if (xs[i] == x) return Interp{ys[i], true, false, x, x};
  if (x < xs[0]) return Interp{ys[0], false, true, xs[0], xs[0]};
  if (x > xs[n - 1]) return Interp{ys[n - 1], false, true, xs[n - 1], xs[n - 1]};
  for (int i = 0; i + 1 < n; ++i) {
    if (xs[i] < x && x < xs[i + 1]) {
      const double ua = logX ? log2(xs[i]) : xs[i];
      const double ub = logX ? log2(xs[i + 1]) : xs[i + 1];
      const double ux = logX ? log2(x) : x;
      const double w = (ux - ua) / (ub - ua);
      return Interp{ys[i] + w * (ys[i + 1] - ys[i]), false, false, xs[i], xs[i + 1]};
    }
  }
  return Interp{ys[n - 1], false, true, xs[n - 1], xs[n - 1]};  // unreachable for sorted xs
}

// Inserts x into the sorted distinct array xs[0..n) (no-op if present).
inline int insertSorted(double* xs, int n, int cap, double x) {
  int i = 0;
  while (i < n && xs[i] < x) ++i;
  if (i < n && xs[i] == x) return n;
  if (n == cap) return n;  // table full: the point is ignored
  for (int j = n; j > i; --j) xs[j] = xs[j - 1];
  xs[i] = x;
  return n + 1;
}
}  // namespace detail

// T_ctrl at (M, N) for (protocol, P) from `points` (docs/cost-model.md, "T_ctrl
// from the profile's table"): within each measured M, piecewise linear in
// log2 N between measured widths and clamped outside them; across measured M,
// linear in M, and proportional to M from the nearest measured M outside that
// range. A repeated (M, N) point: the last one wins.
inline CtrlValue lookupCtrl(const CtrlPoint* points, int numPoints, int protocol, int P, long long M,
                            long long N) {
  CtrlValue out{false, 0.0, kCtrlMeasured, false, false, 0, 0, true, false, 0, 0};
  double ms[detail::kMaxCtrlRows];
  int numM = 0;
  for (int i = 0; i < numPoints; ++i)
    if (points[i].protocol == protocol && points[i].P == P)
      numM = detail::insertSorted(ms, numM, detail::kMaxCtrlRows, static_cast<double>(points[i].M));
  if (numM == 0) return out;
  out.found = true;
  double tByM[detail::kMaxCtrlRows];
  bool nRangeSet = false;
  for (int r = 0; r < numM; ++r) {
    double ns[detail::kMaxCtrlCols], ts[detail::kMaxCtrlCols];
    int numN = 0;
    for (int i = 0; i < numPoints; ++i) {
      const CtrlPoint& p = points[i];
      if (p.protocol != protocol || p.P != P || static_cast<double>(p.M) != ms[r]) continue;
      numN = detail::insertSorted(ns, numN, detail::kMaxCtrlCols, static_cast<double>(p.N));
    }
    for (int c = 0; c < numN; ++c)
      for (int i = 0; i < numPoints; ++i) {  // the last matching point wins
        const CtrlPoint& p = points[i];
        if (p.protocol == protocol && p.P == P && static_cast<double>(p.M) == ms[r] &&
            static_cast<double>(p.N) == ns[c])
          ts[c] = p.ms;
      }
    const detail::Interp in = detail::interpolate(ns, ts, numN, static_cast<double>(N), true);
    out.anyClampedN = out.anyClampedN || in.clamped;
    out.allExactN = out.allExactN && in.exact;
    if (!in.exact && !nRangeSet) {
      nRangeSet = true;
      out.nLo = static_cast<long long>(in.lo);
      out.nHi = static_cast<long long>(in.hi);
    }
    tByM[r] = in.value;
  }
  const detail::Interp byM = detail::interpolate(ms, tByM, numM, static_cast<double>(M), false);
  double t = byM.value;
  out.exactM = byM.exact;
  out.clampedM = byM.clamped;
  out.mLo = static_cast<long long>(byM.lo);
  out.mHi = static_cast<long long>(byM.hi);
  if (byM.clamped) t *= static_cast<double>(M) / byM.lo;  // waves grow linearly with rows
  out.ms = t;
  out.source = (byM.clamped || out.anyClampedN) ? kCtrlExtrapolated
               : (byM.exact && out.allExactN)   ? kCtrlMeasured
                                                : kCtrlInterpolated;
  return out;
}

// ---------------------------------------------------------------------------
// Eqs. 5-9.
// ---------------------------------------------------------------------------

// Device rates (profile): S, f, B_SMEM^r, B_SMEM^w (bytes/cycle per SM).
struct Rates {
  int sms;
  double smClockMHz;
  double smemReadBpc;
  double smemWriteBpc;
};

// The kernel's traffic per element of the row (docs/report.md) and sum q_l.
struct Traffic {
  long long baseline, reread, keep;
  long long fixedPerElement, fixedPerRow;
  int qSum;
};

// Eqs. 5 and 7 and the two times valued at the baseline's achieved rate.
struct BaselineTerms {
  double dBaseBytes;      // Eq. 5, whole grid: the bytes the timed baseline moves
  double rateBytesPerMs;  // Eq. 7, R_B
  double tRereadSaved;    // M N b_reread / R_B (0 against the staged kernel)
  double tInput;          // M N b_keep / R_B
};

// `stagedBaseline`: T_B is the staged kernel's. It retains the row in one CTA
// and reads every input from HBM once, so it moves b_B - b_reread bytes per
// element, and the clustered kernel eliminates no HBM reread against it: the
// saving is counted against the baseline that was timed (docs/cost-model.md,
// "Where the model departs from the paper").
inline BaselineTerms baselineTerms(const Traffic& t, long long M, long long N, double tBMs,
                                   bool stagedBaseline) {
  const double m = static_cast<double>(M), n = static_cast<double>(N);
  const long long moved = stagedBaseline ? t.baseline - t.reread : t.baseline;
  const long long eliminated = stagedBaseline ? 0 : t.reread;
  BaselineTerms b{};
  b.dBaseBytes = m * (n * static_cast<double>(moved + t.fixedPerElement) +
                      static_cast<double>(t.fixedPerRow));
  b.rateBytesPerMs = b.dBaseBytes / tBMs;
  b.tRereadSaved = m * n * static_cast<double>(eliminated) / b.rateBytesPerMs;
  b.tInput = m * n * static_cast<double>(t.keep) / b.rateBytesPerMs;
  return b;
}

// T_slice(P): one timing of the staged kernel's SMEM form ("staged_smem") at
// the shape of one cluster CTA's work -- M*P rows of sliceElems(N, P)
// elements: the footprint, CTA size and CTAs per SM of the cluster kernel of
// P, without its exchange. Where the staged kernel's row fills an SM (one CTA
// per SM, credit::stagedForm's twins), nothing overlaps its rows' load, reduce
// and store, and T_B underrates the rate at which a cluster's smaller slices
// stream; T_occ(P) = T_B - T_slice(P) measures that occupancy saving and takes
// part in Eq. 9 next to T_saved (docs/cost-model.md, "T_occ"). Only against a
// staged T_B; 0 when not measured.
inline long long sliceRows(long long M, int P) { return M * P; }
inline double occupancySaving(bool stagedBaseline, double tBMs, double tSliceMs) {
  return stagedBaseline && tSliceMs > 0.0 ? tBMs - tSliceMs : 0.0;
}

// One (protocol, P) candidate's terms (ms), given its T_ctrl and remote-store rate.
struct CandidateTerms {
  long long clustersPerWave;  // floor(S / P)
  long long W;                // ceil(M / floor(S / P))
  double replayBytesPerCta, dsmBytesPerCta, depositBytesPerCta;
  double tReplay, tDSM, tSmemW, tDeposit;
  double tOcc;                // T_occ(P) (occupancySaving), 0 when not measured
  double deltaT;              // Eq. 9
};

// Eq. 8 with one CTA per SM (W waves of floor(S / P) clusters), the
// deposit-overlap rule and Eq. 9 (plus T_occ, `tOccMs`). Requires floor(S / P) >= 1.
inline CandidateTerms candidateTerms(const Rates& r, const Traffic& t, const BaselineTerms& b, int P,
                                     long long M, long long slice, double dsmStoreBpc,
                                     double tCtrlMs, double tOccMs = 0.0) {
  CandidateTerms c{};
  c.tOcc = tOccMs;
  c.clustersPerWave = r.sms / P;
  c.W = (M + c.clustersPerWave - 1) / c.clustersPerWave;
  const double W = static_cast<double>(c.W), s = static_cast<double>(slice);
  const double cyclesPerMs = r.smClockMHz * 1e3;
  // Per CTA and wave: the replayed SMEM reads (b_reread per element of the
  // slice), the remote pushes ((P-1) peers x sum q_l scalars x 4 B; not
  // multiplied by P: the P sources store concurrently on their own SMs), the
  // deposit (b_keep per element).
  c.replayBytesPerCta = s * static_cast<double>(t.reread);
  c.dsmBytesPerCta = static_cast<double>(P - 1) * t.qSum * 4.0;
  c.depositBytesPerCta = s * static_cast<double>(t.keep);
  c.tReplay = W * c.replayBytesPerCta / r.smemReadBpc / cyclesPerMs;
  c.tDSM = W * c.dsmBytesPerCta / dsmStoreBpc / cyclesPerMs;
  c.tSmemW = W * c.depositBytesPerCta / r.smemWriteBpc / cyclesPerMs;
  const double residual = c.tSmemW - b.tInput;
  c.tDeposit = residual > 0.0 ? residual : 0.0;
  c.deltaT = b.tRereadSaved + c.tOcc - tCtrlMs - c.tReplay - c.tDSM - c.tDeposit;  // Eq. 9
  return c;
}

}  // namespace model
}  // namespace credit

#endif  // !defined(__CUDACC_RTC__)
#endif  // CREDIT_MODEL_H
