// credit/runtime/Model.h -- the profitability model's arithmetic (docs/cost-model.md).
//
// One implementation of the model, shared by the compiler (`creditc predict`,
// compiler/lib/Model, which adds the profile parsing, the messages and the report)
// and by a generated file's dispatch (Dispatch.h, with the device's figures compiled
// in as constants). Everything here is the device's figures (Device) combined with
// the kernel's schedule (Kernel): nothing is per kernel name. Plain data in, plain
// data out: host C++17, no allocation, no std:: containers, no CUDA calls; never
// compiled by NVRTC.
#ifndef CREDIT_MODEL_H
#define CREDIT_MODEL_H

#if !defined(__CUDACC_RTC__)
#include <math.h>

#include "credit/runtime/FormPolicy.h"
#include "credit/runtime/Ring.h"
#include "credit/runtime/SmemLayout.h"

namespace credit {
namespace model {

// ---------------------------------------------------------------------------
// The device (a profile of credit-calibrate; docs/cost-model.md, "The device profile").
// ---------------------------------------------------------------------------
inline constexpr int kNumClusterSizes = 5;  // index log2 P: P = 1, 2, 4, 8, 16
inline constexpr int kMaxResidentCtas = 32; // CTAs per SM the occupancy table covers

// The cost of a work-free grid of M rows at P CTAs a row (the library's control
// kernel; P = 1: one CTA a row, no cluster), for one protocol and P:
//   t = launch + W * (cta + L * stage + sum_q * statistic + (k - 1) * issue) / f,
//   W = ceil(M / residentClusters(P, k)), k = CTAs per SM of the footprint.
// cta: a CTA's launch, set-up and exit; stage: one stage's block reduction and exchange
// (the protocol's K / L barriers); statistic: each further scalar pushed and combined;
// issue: each further co-resident CTA launched on the SM.
struct GridCost {
  double launchUs, ctaCycles, stageCycles, statisticCycles, issueCycles;
};

struct Device {
  int sms;                    // S
  double smClockMHz;          // f
  long long smemPerSm;        // bytes of SMEM per SM
  long long smemOptin;        // max dynamic SMEM per block (opt-in)
  int maxThreadsPerSm, maxCtasPerSm;
  double smemReadBpc, smemWriteBpc;        // B_SMEM^r, B_SMEM^w: bytes/cycle per SM
  double dsmStoreBpc[2][kNumClusterSizes]; // B_DSM^w(P) per CTA: [protocol][log2 P]; 0: not measured
  // Clusters of P resident at once with k CTAs per SM: [log2 P][k - 1] (cluster
  // placement within GPCs); 0: unknown. P = 1 is S * k.
  int residentClusters[kNumClusterSizes][kMaxResidentCtas];
  GridCost grid[2][kNumClusterSizes];      // [protocol][log2 P]
  bool gridMeasured[2][kNumClusterSizes];  // the entry is calibrated
  double globalLoadCycles;    // dependent global load past L2; 0: not measured
  double copyBytesPerMs;      // device-to-device copy, bytes read + written per ms; 0: not measured
};

inline int log2P(int P) { return P == 1 ? 0 : P == 2 ? 1 : P == 4 ? 2 : P == 8 ? 3 : P == 16 ? 4 : -1; }

inline long long ceilDivPos(long long a, long long b) { return b > 0 ? (a + b - 1) / b : 0; }

// CTAs of `smemBytes` dynamic SMEM and `threads` threads resident on one SM.
inline int ctasPerSm(const Device& d, long long smemBytes, int threads) {
  long long k = ctasPerSmBySmem(smemBytes, d.smemPerSm);
  if (threads > 0 && d.maxThreadsPerSm > 0 && d.maxThreadsPerSm / threads < k) k = d.maxThreadsPerSm / threads;
  if (d.maxCtasPerSm > 0 && d.maxCtasPerSm < k) k = d.maxCtasPerSm;
  return k < 1 ? 1 : static_cast<int>(k);
}

// Clusters of P resident at once at k CTAs per SM (P = 1: S * k). Past the table,
// proportional to k from its last entry; without a table, floor(S * k / P).
inline long long residentClusters(const Device& d, int P, int k) {
  const int l = log2P(P);
  if (k < 1) k = 1;
  if (l <= 0) return static_cast<long long>(d.sms) * k;
  int last = 0;
  for (int i = 0; i < kMaxResidentCtas && d.residentClusters[l][i] > 0; ++i) last = i + 1;
  if (last == 0) return static_cast<long long>(d.sms) * k / P;
  if (k <= last) return d.residentClusters[l][k - 1];
  return static_cast<long long>(d.residentClusters[l][last - 1]) * k / last;
}

// The control grid's time (ms) for M rows, L stages, sum_q statistics at k CTAs per SM.
inline double gridMs(const Device& d, int protocol, int P, int k, long long M, int L, int qSum) {
  const GridCost& c = d.grid[protocol][log2P(P)];
  const long long R = residentClusters(d, P, k);
  const double W = static_cast<double>(ceilDivPos(M, R < 1 ? 1 : R));
  const double perWave = c.ctaCycles + L * c.stageCycles + qSum * c.statisticCycles + (k - 1) * c.issueCycles;
  return c.launchUs * 1e-3 + W * perWave / (d.smClockMHz * 1e3);
}

// ---------------------------------------------------------------------------
// The kernel (its schedule: traffic, geometry, the forms it has).
// ---------------------------------------------------------------------------
// Bytes per element of the row (docs/report.md) and sum q_l. `baseline` is the
// reread kernel's; `reread` what the kernels that keep the row replay from SMEM.
// Where the reread kernel runs fewer stages (an online statistic), its own re-reads
// are `baselineReread` (-1: the same as `reread`).
struct Traffic {
  long long baseline, reread, keep;
  long long fixedPerElement, fixedPerRow;
  int qSum;
  long long baselineReread = -1;
};
// The re-reads of the reread kernel: what a kept row saves against it.
inline constexpr long long baselineRereadBytes(const Traffic& t) {
  return t.baselineReread >= 0 ? t.baselineReread : t.reread;
}
// Bytes per element every schedule moves once (the staged kernel's).
inline constexpr long long compulsoryBytes(const Traffic& t) { return t.baseline - baselineRereadBytes(t); }
// Whether the reread kernel reads each input once (its own stages are one pass: a
// one-pass kernel's online statistic): it then moves the staged kernel's bytes.
inline constexpr bool rereadReadsOnce(const Traffic& t) { return baselineRereadBytes(t) == 0; }
// Whether T_B is the staged kernel's (`g`: the narrow forms' geometry): where Eq. 3
// allows P = 1, unless the reread kernel reads each input once, without the staged
// kernel's SMEM round trip; but not where the staged kernel is the narrow register
// form (no SMEM round trip either, and at rows that short the reread kernel's per-row
// cost shows: 1.35x its time at N = 4096 on an H200).
inline constexpr bool stagedIsBaseline(const Traffic& t, WorkloadGeometry g, long long N, bool stagedLegal,
                                       bool hasReread) {
  // The narrow register form does not depend on the device's SMEM sizes.
  const bool inRegisters = stagedForm(g, N, true, 0, 0) == StagedForm::Registers;
  return stagedLegal && (inRegisters || !(hasReread && rereadReadsOnce(t)));
}

struct Kernel {
  Traffic traffic;
  WorkloadGeometry geometry;         // the narrow forms'
  WorkloadGeometry wideGeometry;     // the twins' (threads 0: none)
  WorkloadGeometry partialGeometry;  // the partial-retention form's
  bool hasPartial;                   // a partial-retention form
  bool partialDropReadLate;          // its dropped input is first read after the first pass
  bool hasPersistent;                // the persistent form
  bool keptReadLate;                 // a kept input is first read after the first pass
  int hoisted;                       // broadcast inputs only h reads
};

// The form the cluster launcher runs at (N, P, protocol) on this device (Launch.h,
// launchCluster: the persistent form first for the mbarrier protocol on float4 rows,
// then the partial-retention form, then the twin where the full form fits one CTA
// per SM, else the full form), with its footprint and CTAs per SM.
enum class ClusterForm : int { Full = 0, Wide = 1, Partial = 2, Persistent = 3 };
struct FormAt {
  ClusterForm form;
  WorkloadGeometry geometry;
  long long smemBytes;
  int ctasPerSm;
  PersistentRing ring;  // the persistent form's
};
inline FormAt clusterFormAt(const Kernel& k, const Device& d, long long N, int P, Protocol proto) {
  FormAt f{ClusterForm::Full, k.geometry, smemBytes(k.geometry, N, P, proto), 1, PersistentRing{0, 1}};
  const bool vec4 = N % 4 == 0;  // 16-byte-aligned pointers assumed
  if (proto == Protocol::Mbarrier && vec4 && k.hasPersistent) {
    const bool halves = !k.keptReadLate;
    if (usePersistent(k.wideGeometry, k.hoisted, k.geometry.threads, N, P, d.smemPerSm, d.smemOptin, halves)) {
      f.form = ClusterForm::Persistent;
      f.geometry = k.wideGeometry;
      f.ring = persistentRing(k.wideGeometry, N, P, d.smemOptin, halves);
      f.smemBytes = persistentSmemBytes(k.wideGeometry, N, P, f.ring.units, f.ring.pieces);
      f.ctasPerSm = 1;
      return f;
    }
  }
  const long long full = f.smemBytes;
  if (k.hasPartial) {
    const long long partial = smemBytes(k.partialGeometry, N, P, proto);
    if (usePartialRetention(full, partial, P, k.partialDropReadLate, d.smemPerSm, d.smemOptin)) {
      f.form = ClusterForm::Partial;
      f.geometry = k.partialGeometry;
      f.smemBytes = partial;
    }
  }
  if (f.form == ClusterForm::Full &&
      useWideCta(k.wideGeometry.threads, full, smemBytes(k.wideGeometry, N, P, proto), d.smemPerSm, d.smemOptin)) {
    f.form = ClusterForm::Wide;
    f.geometry = k.wideGeometry;
    f.smemBytes = smemBytes(k.wideGeometry, N, P, proto);
  }
  f.ctasPerSm = ctasPerSm(d, f.smemBytes, f.geometry.threads);
  return f;
}

// ---------------------------------------------------------------------------
// Eqs. 5 and 7: the baseline.
// ---------------------------------------------------------------------------
struct BaselineTerms {
  double dBaseBytes;      // Eq. 5, whole grid: the bytes the timed baseline moves
  double rateBytesPerMs;  // Eq. 7, R_B
  double tRereadSaved;    // M N b_reread / R_B (0 against the staged kernel)
  double tInput;          // M N b_keep / R_B
};

// `stagedBaseline`: T_B is the staged kernel's, which reads every input once: the
// clustered kernel eliminates no HBM reread against it (docs/cost-model.md).
inline double baselineBytes(const Traffic& t, long long M, long long N, bool stagedBaseline) {
  const long long moved = stagedBaseline ? compulsoryBytes(t) : t.baseline;
  return static_cast<double>(M) *
         (static_cast<double>(N) * static_cast<double>(moved + t.fixedPerElement) + static_cast<double>(t.fixedPerRow));
}
inline BaselineTerms baselineTerms(const Traffic& t, long long M, long long N, double tBMs, bool stagedBaseline) {
  const double m = static_cast<double>(M), n = static_cast<double>(N);
  BaselineTerms b{};
  b.dBaseBytes = baselineBytes(t, M, N, stagedBaseline);
  b.rateBytesPerMs = b.dBaseBytes / tBMs;
  b.tRereadSaved = stagedBaseline ? 0.0 : m * n * static_cast<double>(baselineRereadBytes(t)) / b.rateBytesPerMs;
  b.tInput = m * n * static_cast<double>(t.keep) / b.rateBytesPerMs;
  return b;
}

// The baseline's footprint and CTAs per SM, as the one-CTA control prices it:
// staged where Eq. 3 allows P = 1 (the whole row retained), else the reread scratch.
inline int baselineCtasPerSm(const Kernel& k, const Device& d, long long N, bool stagedBaseline, Protocol proto) {
  const long long s = stagedBaseline ? smemBytes(k.geometry, N, 1, proto) : scratchBytes(k.geometry, 1, proto);
  return ctasPerSm(d, s, k.geometry.threads);
}

// T_B predicted without a timing (no measurement, or under stream capture): the
// baseline's bytes at the device's copy rate, plus one exposed global-load latency
// per wave where its form runs one CTA per SM. 0 without a copy rate.
inline double predictedBaselineMs(const Kernel& k, const Device& d, long long M, long long N, bool stagedBaseline) {
  if (!(d.copyBytesPerMs > 0.0)) return 0.0;
  double t = baselineBytes(k.traffic, M, N, stagedBaseline) / d.copyBytesPerMs;
  if (stagedBaseline && d.globalLoadCycles > 0.0 &&
      isOneCtaPerSmForm(stagedForm(k.geometry, N, true, d.smemPerSm, d.smemOptin)))
    t += static_cast<double>(ceilDivPos(M, d.sms)) * d.globalLoadCycles / (d.smClockMHz * 1e3);
  return t;
}

// T_slice(P) (measured by the dispatch where the staged kernel runs one CTA per SM):
// the staged kernel's SMEM form at M*P rows of sliceElems(N, P). T_occ(P) = T_B - T_slice(P).
inline long long sliceRows(long long M, int P) { return M * P; }
inline double occupancySaving(bool stagedBaseline, double tBMs, double tSliceMs) {
  return stagedBaseline && tSliceMs > 0.0 ? tBMs - tSliceMs : 0.0;
}

// ---------------------------------------------------------------------------
// One candidate: (protocol, P) and the form that runs.
// ---------------------------------------------------------------------------
struct CandidateTerms {
  ClusterForm form;
  int ctasPerSm;              // of the form's footprint
  long long clustersPerWave;  // floor(S / P)
  long long W;                // ceil(M / floor(S / P))
  double replayBytesPerCta, dsmBytesPerCta, depositBytesPerCta;
  double tCtrl;               // the control grid's excess over the one-CTA grid, for this form
  double tReplay, tDSM, tSmemW, tDeposit;
  double tLatency;            // exposed global-load latency (one CTA per SM, one row each)
  double tRefetch;            // the partial form's second read of its dropped input
  double tOcc;                // T_occ(P), 0 when not measured
  double deltaT;              // Eq. 9 with the terms above
};

// T_ctrl of the form that runs: the control grid at the form's residency minus the
// one-CTA grid at the baseline's. The persistent form keeps R(P, 1) clusters that take
// rows in turn (no relaunch per row); a row's exchange is exposed only where it
// outlasts the copies the ring holds in flight for the next rows.
inline double controlMs(const Kernel& k, const Device& d, const FormAt& f, int protocol, int P, long long M,
                        long long N, bool stagedBaseline, double rateBytesPerMs) {
  const int L = k.geometry.numStages, q = k.traffic.qSum;
  const Protocol proto = protocol ? Protocol::Mbarrier : Protocol::Sync;
  const double one = gridMs(d, protocol, 1, baselineCtasPerSm(k, d, N, stagedBaseline, proto), M, L, q);
  double t = 0.0;
  if (f.form == ClusterForm::Persistent) {
    const GridCost& c = d.grid[protocol][log2P(P)];
    const double cyclesPerUs = d.smClockMHz;
    const double exchangeUs = (L * c.stageCycles + q * c.statisticCycles) / cyclesPerUs;
    const double fillUs = c.launchUs + c.ctaCycles / cyclesPerUs + exchangeUs;
    const long long rows = ceilDivPos(M, residentClusters(d, P, 1));
    const long long copies = numKeptArrays(f.geometry) * f.ring.pieces;
    const double rowsInFlight = copies > 0 ? static_cast<double>(f.ring.units) / copies : 0.0;
    // A CTA's bytes per row at the baseline's rate per SM.
    const double rowUs = static_cast<double>(sliceElems(N, P)) *
                         static_cast<double>(compulsoryBytes(k.traffic)) /
                         (rateBytesPerMs / d.sms) * 1e3;
    double exposedUs = exchangeUs - (rowsInFlight - 1.0) * rowUs;
    if (exposedUs < 0.0) exposedUs = 0.0;
    t = (fillUs + static_cast<double>(rows) * exposedUs) * 1e-3;
  } else {
    t = gridMs(d, protocol, P, f.ctasPerSm, M, L, q);
  }
  return t > one ? t - one : 0.0;
}

// Every term of one candidate (Eqs. 8 and 9 and the form's terms). `dsmStoreBpc`:
// B_DSM^w(P) of the protocol. Requires canEvaluate(d, protocol, P).
inline CandidateTerms candidateTerms(const Kernel& k, const Device& d, const BaselineTerms& b, int protocol, int P,
                                     long long M, long long N, bool stagedBaseline, double tOccMs = 0.0) {
  const Protocol proto = protocol ? Protocol::Mbarrier : Protocol::Sync;
  const FormAt f = clusterFormAt(k, d, N, P, proto);
  CandidateTerms c{};
  c.form = f.form;
  c.ctasPerSm = f.ctasPerSm;
  c.tOcc = tOccMs;
  c.clustersPerWave = d.sms / P;
  c.W = ceilDivPos(M, c.clustersPerWave);
  const double W = static_cast<double>(c.W), s = static_cast<double>(sliceElems(N, P));
  const double cyclesPerMs = d.smClockMHz * 1e3;
  // Per CTA and wave (Eq. 8): the replayed SMEM reads, the remote pushes ((P-1) peers
  // x sum q x 4 B; not multiplied by P: the sources store concurrently), the deposit.
  c.replayBytesPerCta = s * static_cast<double>(k.traffic.reread);
  c.dsmBytesPerCta = static_cast<double>(P - 1) * k.traffic.qSum * 4.0;
  c.depositBytesPerCta = s * static_cast<double>(k.traffic.keep);
  c.tReplay = W * c.replayBytesPerCta / d.smemReadBpc / cyclesPerMs;
  c.tDSM = W * c.dsmBytesPerCta / d.dsmStoreBpc[protocol][log2P(P)] / cyclesPerMs;
  c.tSmemW = W * c.depositBytesPerCta / d.smemWriteBpc / cyclesPerMs;
  const double residual = c.tSmemW - b.tInput;
  c.tDeposit = residual > 0.0 ? residual : 0.0;
  c.tCtrl = controlMs(k, d, f, protocol, P, M, N, stagedBaseline, b.rateBytesPerMs);
  // One CTA per SM and one row each: nothing overlaps a CTA's first loads.
  if (f.form != ClusterForm::Persistent && f.ctasPerSm <= 1 && d.globalLoadCycles > 0.0)
    c.tLatency = static_cast<double>(ceilDivPos(M, residentClusters(d, P, 1))) * d.globalLoadCycles / cyclesPerMs;
  // The partial form reads its dropped input (4 B/element) a second time; priced at
  // the baseline's rate, an upper bound (it comes from L2).
  if (f.form == ClusterForm::Partial)
    c.tRefetch = static_cast<double>(M) * static_cast<double>(N) * 4.0 / b.rateBytesPerMs;
  c.deltaT = b.tRereadSaved + c.tOcc - c.tCtrl - c.tReplay - c.tDSM - c.tDeposit - c.tLatency - c.tRefetch;
  return c;
}

// Whether (protocol, P) can be evaluated on this device: a cluster fits, the remote
// store rate and the control-grid figures of P and of one CTA a row are there.
inline bool canEvaluate(const Device& d, int protocol, int P) {
  const int l = log2P(P);
  return l > 0 && d.sms / P >= 1 && d.dsmStoreBpc[protocol][l] > 0.0 && d.gridMeasured[protocol][l] &&
         d.gridMeasured[protocol][0] && d.smClockMHz > 0.0 && d.smemReadBpc > 0.0 && d.smemWriteBpc > 0.0;
}

// ---------------------------------------------------------------------------
// The plan: every legal (protocol, P), ranked by dT.
// ---------------------------------------------------------------------------
inline constexpr int kMaxCandidates = 2 * (kNumClusterSizes - 1);
struct Ranked {
  int count;                     // evaluated candidates
  int protocol[kMaxCandidates];  // best first
  int P[kMaxCandidates];
  double deltaT[kMaxCandidates];
};
// `legal(protocol, P)`: Eq. 3 and whatever else the caller requires (generated, the
// target's cluster limit). tSlice[log2 P]: T_slice(P), 0 or nullptr: not measured.
template <class Legal>
inline Ranked rankCandidates(const Kernel& k, const Device& d, long long M, long long N, double tBMs,
                             bool stagedBaseline, const double* tSlice, Legal legal) {
  Ranked r{};
  const BaselineTerms b = baselineTerms(k.traffic, M, N, tBMs, stagedBaseline);
  for (int protocol = 0; protocol < 2; ++protocol)
    for (int P = 2, l = 1; l < kNumClusterSizes; P *= 2, ++l) {
      if (!legal(protocol, P) || !canEvaluate(d, protocol, P)) continue;
      const double occ = occupancySaving(stagedBaseline, tBMs, tSlice != nullptr ? tSlice[l] : 0.0);
      const double dT = candidateTerms(k, d, b, protocol, P, M, N, stagedBaseline, occ).deltaT;
      int i = r.count++;  // insertion, best first; ties keep sync and the smaller P first
      while (i > 0 && r.deltaT[i - 1] < dT) {
        r.protocol[i] = r.protocol[i - 1];
        r.P[i] = r.P[i - 1];
        r.deltaT[i] = r.deltaT[i - 1];
        --i;
      }
      r.protocol[i] = protocol;
      r.P[i] = P;
      r.deltaT[i] = dT;
    }
  return r;
}

// The first-use shortlist (measure mode), among the candidates whose dT exceeds
// -kShortlistMargin * T_B: the best kShortlist, and the best one's protocol at half and
// twice its P. The margin covers the error of the terms near a tie; the neighbours
// cover the control grid's fit, whose error across cluster sizes is larger than the
// gap between adjacent ones (a form with twice the CTAs per SM can win by a few percent).
inline constexpr int kShortlist = 2;
inline constexpr int kShortlistMax = kShortlist + 2;  // with the two neighbours
inline constexpr double kShortlistMargin = 0.05;
inline bool inShortlist(const Ranked& r, int i, double tBMs) {
  if (i >= r.count || !(r.deltaT[i] > -kShortlistMargin * tBMs)) return false;
  const bool neighbour = r.protocol[i] == r.protocol[0] && (r.P[i] == 2 * r.P[0] || 2 * r.P[i] == r.P[0]);
  return i < kShortlist || neighbour;
}

}  // namespace model
}  // namespace credit

#endif  // !defined(__CUDACC_RTC__)
#endif  // CREDIT_MODEL_H
