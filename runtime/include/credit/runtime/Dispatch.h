// credit/runtime/Dispatch.h -- the model-driven dispatch of a generated file
// (creditc --profile; docs/cost-model.md, "Dispatch").
//
// The file supplies the device profile's figures and its kernel's traffic (Profile)
// and a decision cache of its own; plan() evaluates the model (Model.h) for every
// generated, legal (protocol, P) and picks the largest positive dT, launchAuto()
// times the baseline once per shape and launches the decision, autotune() times
// every variant the device accepts and records the fastest. Host only.
#ifndef CREDIT_RUNTIME_DISPATCH_H
#define CREDIT_RUNTIME_DISPATCH_H

#include <cuda_runtime.h>

#include <mutex>

#include "credit/runtime/Launch.h"
#include "credit/runtime/Model.h"

#ifndef CREDIT_PLAN_DEFINED
#define CREDIT_PLAN_DEFINED
/* A dispatch decision for one shape (M, N) (docs/cost-model.md, "Dispatch"). */
typedef struct credit_plan {
  int variant;        /* what runs: 0 reread, 1 staged, 2 cluster */
  int P;              /* cluster size (1 for reread and staged) */
  int protocol;       /* 0 sync, 1 mbarrier (cluster only) */
  int baseline;       /* the kernel T_B timed: 0 reread, 1 staged */
  int source;         /* 0 the model, 1 autotune (measured), 2 fallback (see credit_..._launch_auto) */
  int evaluated;      /* the model evaluated at least one cluster size */
  double tB_ms;       /* T_B, the baseline's time at (M, N) */
  double deltaT_ms;   /* model: Eq. 9 of the best cluster size (> 0: profitable); autotune: T_B - best */
  double measured_ms; /* autotune: the chosen kernel's median time; otherwise 0 */
} credit_plan;
#endif

namespace credit {
namespace CREDIT_HOST_LOCAL host {

// A device profile's figures and the kernel's traffic (generated data).
struct Profile {
  model::Rates rates;                 // S, f (MHz), B_SMEM^r, B_SMEM^w (B/clk/SM)
  double dsmStore[2][5];              // B_DSM^w(P), B/clk per CTA: [protocol][log2 P]; 0: not measured
  const model::CtrlPoint* ctrl;       // T_ctrl points
  int numCtrl;
  model::Traffic traffic;
};

// Decisions per (device, M, N): a small table, replaced round-robin.
class PlanCache {
 public:
  bool lookup(int device, long long M, long long N, credit_plan* out) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const Entry& e : table_)
      if (e.used && e.device == device && e.M == M && e.N == N) {
        *out = e.plan;
        return true;
      }
    return false;
  }
  void store(int device, long long M, long long N, const credit_plan& plan) {
    std::lock_guard<std::mutex> lock(mutex_);
    int slot = -1;
    for (int i = 0; i < kSize && slot < 0; ++i)
      if (table_[i].used && table_[i].device == device && table_[i].M == M && table_[i].N == N) slot = i;
    if (slot < 0) {
      slot = next_;
      next_ = (next_ + 1) % kSize;
    }
    table_[slot] = Entry{1, device, M, N, plan};
  }

 private:
  static constexpr int kSize = 64;
  struct Entry {
    int used, device;
    long long M, N;
    credit_plan plan;
  };
  std::mutex mutex_;
  Entry table_[kSize] = {};
  int next_ = 0;
};

struct Dispatch {
  const Workload* workload;
  const Profile* profile;
  PlanCache* cache;
};

inline const char* variantName(int v) { return v == 3 ? "staged_smem" : v == 2 ? "cluster" : v == 1 ? "staged" : "reread"; }
inline bool hasCluster(const Dispatch& d) { return hasForm(*d.workload, Form::ClusterSync); }

// The kernel T_B times: staged where generated and Eq. 3 allows P = 1 on this device,
// else reread (the paper's "selected non-DSMEM path"); -1: neither.
inline int baselineFor(const Dispatch& d, long long N, long long optin) {
  if (hasForm(*d.workload, Form::Staged) && isLegal(d.workload->geometry, N, 1, Protocol::Sync, optin)) return 1;
  return hasForm(*d.workload, Form::Reread) ? 0 : -1;
}

// Eqs. 3 and 5-9 for every generated, legal (protocol, P) with its profile figures,
// sync first, P ascending; the largest dT wins, and the cluster kernel runs only if
// dT > 0. `tSlice` (optional, [log2 P], 0: not measured): T_slice(P), which prices
// T_occ against a staged T_B.
inline credit_plan planFor(const Dispatch& d, long long M, long long N, double tB, long long optin,
                           const double* tSlice = nullptr) {
  const Profile& prof = *d.profile;
  credit_plan p = {};
  p.baseline = baselineFor(d, N, optin);
  p.variant = p.baseline;
  p.P = 1;
  p.tB_ms = tB;
  if (!hasCluster(d) || p.baseline < 0) return p;
  const model::BaselineTerms base = model::baselineTerms(prof.traffic, M, N, tB, p.baseline == 1);
  double best = 0.0;
  int bestP = 0, bestProtocol = 0;
  for (int protocol = 0; protocol < 2; ++protocol) {
    const Protocol proto = protocol ? Protocol::Mbarrier : Protocol::Sync;
    for (int P = 2, l = 1; P <= d.workload->target.maxNonPortableCluster && l < 5; P *= 2, ++l) {
      if (!isLegal(d.workload->geometry, N, P, proto, optin) || prof.rates.sms / P < 1) continue;
      const double rate = prof.dsmStore[protocol][l];
      if (!(rate > 0.0)) continue;
      const model::CtrlValue ctrl = model::lookupCtrl(prof.ctrl, prof.numCtrl, protocol, P, M, N);
      if (!ctrl.found) continue;
      const model::CandidateTerms t = model::candidateTerms(
          prof.rates, prof.traffic, base, P, M, sliceElems(N, P), rate, ctrl.ms,
          model::occupancySaving(p.baseline == 1, tB, tSlice != nullptr ? tSlice[l] : 0.0));
      if (!p.evaluated || t.deltaT > best) {
        p.evaluated = 1;
        best = t.deltaT;
        bestP = P;
        bestProtocol = protocol;
      }
    }
  }
  if (p.evaluated) {
    p.deltaT_ms = best;
    if (best > 0.0) {
      p.variant = 2;
      p.P = bestP;
      p.protocol = bestProtocol;
    }
  }
  return p;
}

// The median time (ms) of 5 launches of one variant on `stream` (CUDA events), after
// one untimed launch; the launches write the caller's outputs, which the real launch
// then overwrites.
inline int timeVariant(const Dispatch& d, int variant, const void* const* args, long long M, long long N, int P,
                       int protocol, cudaStream_t stream, double* medianMs) {
  constexpr int reps = 5;
  int status = launchGeneric(*d.workload, variantName(variant), args, M, N, P, protocol, stream);
  if (status != kStatusOk) return status;
  cudaEvent_t start = nullptr, stop = nullptr;
  cudaError_t err = cudaEventCreate(&start);
  if (err == cudaSuccess) err = cudaEventCreate(&stop);
  double times[reps];
  for (int i = 0; i < reps && err == cudaSuccess && status == kStatusOk; ++i) {
    err = cudaEventRecord(start, stream);
    if (err != cudaSuccess) break;
    status = launchGeneric(*d.workload, variantName(variant), args, M, N, P, protocol, stream);
    if (status != kStatusOk) break;
    err = cudaEventRecord(stop, stream);
    if (err == cudaSuccess) err = cudaEventSynchronize(stop);
    float ms = 0.0f;
    if (err == cudaSuccess) err = cudaEventElapsedTime(&ms, start, stop);
    times[i] = ms;
  }
  if (start != nullptr) (void)cudaEventDestroy(start);
  if (stop != nullptr) (void)cudaEventDestroy(stop);
  if (status != kStatusOk) return status;
  if (err != cudaSuccess) return cudaStatus(err);
  for (int i = 1; i < reps; ++i)  // insertion sort, then the median
    for (int j = i; j > 0 && times[j] < times[j - 1]; --j) {
      const double t = times[j];
      times[j] = times[j - 1];
      times[j - 1] = t;
    }
  *medianMs = times[reps / 2];
  return kStatusOk;
}

inline int deviceAndOptin(int* device, int* optin) {
  cudaError_t err = cudaGetDevice(device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, *device);
  return cudaStatus(err);
}

// T_slice(P) where it can change the decision: the baseline is the staged kernel and
// its row fills an SM. The staged kernel's SMEM form is timed at M * P rows of
// sliceElems(N, P) for every legal P, on zeroed scratch buffers of that shape; a P
// whose buffers cannot be allocated is left unmeasured (0).
inline int timeSlices(const Dispatch& d, int baseline, long long M, long long N, int device, long long optin,
                      cudaStream_t stream, double* tSlice) {
  const Workload& w = *d.workload;
  for (int l = 0; l < 5; ++l) tSlice[l] = 0.0;
  if (baseline != 1 || !hasCluster(d)) return kStatusOk;
  int perSm = 0;
  cudaError_t err = cudaDeviceGetAttribute(&perSm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
  if (err != cudaSuccess) return cudaStatus(err);
  for (int P = 2, l = 1; P <= w.target.maxNonPortableCluster && l < 5; P *= 2, ++l) {
    if (!measuresSlice(w.geometry, N, P, perSm, optin)) continue;
    const long long rows = model::sliceRows(M, P), width = sliceElems(N, P);
    void* bufs[kMaxArgs] = {};
    for (int i = 0; i < w.numArgs && err == cudaSuccess; ++i) {
      const long long count = w.argKind[i] == kArgRow ? rows * width : w.argKind[i] == kArgBroadcast ? width : rows;
      const size_t bytes = static_cast<size_t>(count) * static_cast<size_t>(w.argBytes[i]);
      err = cudaMallocAsync(&bufs[i], bytes, stream);
      if (err == cudaSuccess) err = cudaMemsetAsync(bufs[i], 0, bytes, stream);
    }
    double ms = 0.0;
    int status = cudaStatus(err);
    if (status == kStatusOk) status = timeVariant(d, 3, bufs, rows, width, 1, 0, stream, &ms);
    for (int i = 0; i < w.numArgs; ++i)
      if (bufs[i] != nullptr) (void)cudaFreeAsync(bufs[i], stream);
    if (err == cudaErrorMemoryAllocation) {  // not measured; the error is not sticky
      (void)cudaGetLastError();
      err = cudaSuccess;
      continue;
    }
    if (status != kStatusOk) return status;
    tSlice[l] = ms > 0.0 ? ms : 1e-6;  // below the event resolution
  }
  return kStatusOk;
}

inline int checkShape(long long M, long long N) {
  if (M < 1 || N < 1 || N > kMaxRowElems) return static_cast<int>(LaunchStatus::BadShape);
  return kStatusOk;
}

// The model's decision for (M, N) given a measured T_B (ms) of the baseline kernel
// (out->baseline says which), under this device's SMEM limit. Times and launches nothing.
inline int plan(const Dispatch& d, long long M, long long N, double tB_ms, credit_plan* out) {
  if (out == nullptr) return static_cast<int>(LaunchStatus::NullPointer);
  if (int status = checkShape(M, N)) return status;
  if (!(tB_ms > 0.0) || tB_ms > 1e300) return kStatusBadTiming;
  int device = 0, optin = 0;
  if (int status = deviceAndOptin(&device, &optin)) return status;
  if (baselineFor(d, N, optin) < 0) return kStatusBadVariant;
  *out = planFor(d, M, N, tB_ms, optin);
  return kStatusOk;
}

// Launches the decision for (M, N): the autotuned one if autotune ran for this shape on
// this device, else the model's, made on the first call by timing the baseline on these
// buffers (synchronizes the stream once). While `stream` is being captured nothing can
// be timed: without a decision it launches the baseline (source 2, not recorded). A
// cluster launch the device refuses (cluster too large) falls back to the baseline
// (source 2, recorded).
inline int launchAuto(const Dispatch& d, const void* const* args, long long M, long long N, cudaStream_t stream) {
  if (args == nullptr) return static_cast<int>(LaunchStatus::NullPointer);
  if (M == 0) return kStatusOk;
  if (int status = checkShape(M, N)) return status;
  int device = 0, optin = 0;
  if (int status = deviceAndOptin(&device, &optin)) return status;
  const int baseline = baselineFor(d, N, optin);
  if (baseline < 0) return kStatusBadVariant;
  credit_plan p;
  if (!d.cache->lookup(device, M, N, &p)) {
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    cudaError_t err = cudaStreamIsCapturing(stream, &capture);
    if (err != cudaSuccess) return cudaStatus(err);
    if (capture != cudaStreamCaptureStatusNone)
      return launchGeneric(*d.workload, variantName(baseline), args, M, N, 1, 0, stream);
    double tB = 0.0, tSlice[5];
    if (int status = timeVariant(d, baseline, args, M, N, 1, 0, stream, &tB)) return status;
    if (!(tB > 0.0)) tB = 1e-6;  // below the event resolution
    if (int status = timeSlices(d, baseline, M, N, device, optin, stream, tSlice)) return status;
    p = planFor(d, M, N, tB, optin, tSlice);
    d.cache->store(device, M, N, p);
  }
  int status = launchGeneric(*d.workload, variantName(p.variant), args, M, N, p.P, p.protocol, stream);
  if (p.variant == 2 && status == static_cast<int>(LaunchStatus::ClusterTooLarge)) {
    p.variant = p.baseline;
    p.P = 1;
    p.protocol = 0;
    p.source = 2;
    d.cache->store(device, M, N, p);
    status = launchGeneric(*d.workload, variantName(p.variant), args, M, N, 1, 0, stream);
  }
  return status;
}

// Times every generated variant the device accepts at (M, N) -- reread, staged, cluster
// x protocol x P -- on these buffers (median of 5 after a warm-up each), records the
// fastest for launchAuto, and returns both decisions: *model (from the measured T_B)
// and *tuned (the measured best; deltaT_ms = T_B - its time). Either may be null.
inline int autotune(const Dispatch& d, const void* const* args, long long M, long long N, cudaStream_t stream,
                    credit_plan* model, credit_plan* tuned) {
  if (args == nullptr) return static_cast<int>(LaunchStatus::NullPointer);
  if (int status = checkShape(M, N)) return status;
  int device = 0, optin = 0;
  if (int status = deviceAndOptin(&device, &optin)) return status;
  const int baseline = baselineFor(d, N, optin);
  if (baseline < 0) return kStatusBadVariant;
  double tB = 0.0, tSlice[5];
  if (int status = timeVariant(d, baseline, args, M, N, 1, 0, stream, &tB)) return status;
  if (!(tB > 0.0)) tB = 1e-6;
  if (int status = timeSlices(d, baseline, M, N, device, optin, stream, tSlice)) return status;
  const credit_plan m = planFor(d, M, N, tB, optin, tSlice);
  credit_plan best = m;
  best.variant = baseline;
  best.P = 1;
  best.protocol = 0;
  best.source = 1;
  best.measured_ms = tB;
  auto consider = [&](int variant, int P, int protocol) -> int {
    double t = 0.0;
    const int status = timeVariant(d, variant, args, M, N, P, protocol, stream, &t);
    if (status >= kStatusCudaErrorBase) return status;  // a CUDA failure: stop
    if (status == kStatusOk && t < best.measured_ms) {
      best.variant = variant;
      best.P = P;
      best.protocol = protocol;
      best.measured_ms = t;
    }
    return kStatusOk;  // refused (not legal here, cluster too large): not a candidate
  };
  if (baseline == 1 && hasForm(*d.workload, Form::Reread))
    if (int status = consider(0, 1, 0)) return status;
  if (hasCluster(d))
    for (int protocol = 0; protocol < 2; ++protocol)
      for (int P = 2; P <= d.workload->target.maxNonPortableCluster; P *= 2)
        if (isLegal(d.workload->geometry, N, P, protocol ? Protocol::Mbarrier : Protocol::Sync, optin))
          if (int status = consider(2, P, protocol)) return status;
  best.deltaT_ms = tB - best.measured_ms;
  d.cache->store(device, M, N, best);
  if (model != nullptr) *model = m;
  if (tuned != nullptr) *tuned = best;
  return kStatusOk;
}

// The decision launchAuto uses for (M, N) on the current device, if made.
inline int lastPlan(const Dispatch& d, long long M, long long N, credit_plan* out) {
  if (out == nullptr) return static_cast<int>(LaunchStatus::NullPointer);
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return cudaStatus(err);
  return d.cache->lookup(device, M, N, out) ? kStatusOk : kStatusNoPlan;
}

}  // namespace host
}  // namespace credit

#endif  // CREDIT_RUNTIME_DISPATCH_H
