// credit/runtime/Dispatch.h -- the model-driven dispatch of a generated file
// (creditc --profile; docs/cost-model.md, "Dispatch").
//
// The file supplies the device profile's figures and its kernel's traffic (Profile)
// and a decision cache of its own. plan() evaluates the model (Model.h) for every
// generated, legal (protocol, P), each priced as the form the launcher runs there.
// launchAuto() decides once per (device, M, N) in one of three modes (Mode): from the
// model alone, from the model with T_B and the closest candidates timed on first use
// (the default), or by timing every variant; under stream capture it never times.
// Host only.
#ifndef CREDIT_RUNTIME_DISPATCH_H
#define CREDIT_RUNTIME_DISPATCH_H

#include <cuda_runtime.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
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
  int source;         /* 0 the model, 1 autotune, 2 fallback, 4 the model's closest candidates timed */
  int evaluated;      /* the model evaluated at least one cluster size */
  double tB_ms;       /* T_B, the baseline's time at (M, N) (predicted in model mode) */
  double deltaT_ms;   /* model: Eq. 9 of the best cluster size (> 0: profitable); autotune: T_B - best */
  double measured_ms; /* the chosen kernel's median time where it was timed; otherwise 0 */
} credit_plan;
#endif

namespace credit {
namespace CREDIT_HOST_LOCAL host {

// A device profile's figures and the kernel's traffic (generated data).
struct Profile {
  model::Device device;
  model::Traffic traffic;
};

// How launchAuto decides a shape it has not seen (CREDIT_DISPATCH=predict|measure|autotune,
// or the file's credit_<K>_dispatch_mode):
//   predict  nothing is timed: T_B is predicted from the device's copy rate ("model" too);
//   measure  T_B (and T_slice where the staged kernel runs one CTA per SM) and the model's
//            closest candidates (model::inShortlist) are timed once; the fastest runs;
//   autotune every variant the device accepts is timed once; the fastest runs.
enum Mode : int { kModeModel = 0, kModeMeasure = 1, kModeAutotune = 2, kModeFromEnvironment = -1 };

// The mode a CREDIT_DISPATCH value names; measure for none or an unrecognised one.
inline int parseMode(const char* v) {
  if (v == nullptr) return kModeMeasure;
  if (std::strcmp(v, "predict") == 0 || std::strcmp(v, "model") == 0) return kModeModel;
  if (std::strcmp(v, "autotune") == 0) return kModeAutotune;
  return kModeMeasure;
}
inline int modeFromEnvironment() { return parseMode(std::getenv("CREDIT_DISPATCH")); }

// What launchAuto does with a shape it has no decision for, in `mode`, on a stream being
// captured or not: a captured stream is never timed (the prediction runs, unrecorded, so
// the shape is decided properly at its first uncaptured launch).
enum class FirstUse { Predict, Measure, Autotune };
inline FirstUse firstUse(int mode, bool capturing) {
  if (capturing || mode == kModeModel) return FirstUse::Predict;
  return mode == kModeAutotune ? FirstUse::Autotune : FirstUse::Measure;
}
inline bool recordsDecision(bool capturing) { return !capturing; }

// The most launches a first use makes before the real one (each timing: one untimed
// launch and five timed): the baseline, T_slice for each cluster size, the shortlist;
// autotune: every variant.
inline int firstUseLaunchBound(FirstUse f) {
  constexpr int perTiming = 6, clusterSizes = model::kNumClusterSizes - 1;
  switch (f) {
    case FirstUse::Predict: return 0;
    case FirstUse::Measure: return perTiming * (1 + clusterSizes + model::kShortlistMax);
    case FirstUse::Autotune: return perTiming * (2 + clusterSizes + 2 * clusterSizes);
  }
  return 0;
}

// Decisions per (device, M, N): a small table, replaced round-robin, and the file's mode.
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
  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    for (Entry& e : table_) e.used = 0;
  }
  // The mode in force (the environment's until set).
  int mode() {
    int m = mode_.load();
    if (m == kModeFromEnvironment) {
      m = modeFromEnvironment();
      int expected = kModeFromEnvironment;
      mode_.compare_exchange_strong(expected, m);
    }
    return m;
  }
  int setMode(int m) { return mode_.exchange(m); }

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
  std::atomic<int> mode_{kModeFromEnvironment};
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
  const bool reread = hasForm(*d.workload, Form::Reread);
  const bool staged = hasForm(*d.workload, Form::Staged) && isLegal(d.workload->geometry, N, 1, Protocol::Sync, optin);
  if (model::stagedIsBaseline(d.profile->traffic, d.workload->geometry, N, staged, reread)) return 1;
  return reread ? 0 : -1;
}

// The schedule as the model sees it.
inline model::Kernel modelKernel(const Dispatch& d) {
  const Workload& w = *d.workload;
  model::Kernel k{};
  k.traffic = d.profile->traffic;
  k.geometry = w.geometry;
  k.wideGeometry = w.wideGeometry;
  k.partialGeometry = w.hasPartial ? w.partialGeometry : w.geometry;
  k.hasPartial = w.hasPartial && hasForm(w, Form::ClusterPartialSync);
  k.partialDropReadLate = w.partialDropReadLate;
  k.hasPersistent = hasForm(w, Form::Persistent);
  k.keptReadLate = w.keptReadLate;
  k.hoisted = w.hoisted;
  return k;
}

// The profile's figures with this device's SMEM sizes (the launchers' form rules use
// them), where known.
inline model::Device deviceFigures(const Dispatch& d, long long perSm, long long optin) {
  model::Device dev = d.profile->device;
  if (perSm > 0) dev.smemPerSm = perSm;
  if (optin > 0) dev.smemOptin = optin;
  return dev;
}

// The candidates, ranked by dT: every generated (protocol, P) Eq. 3 allows under
// `optin`, within the target's cluster limit.
inline model::Ranked rankFor(const Dispatch& d, const model::Device& dev, long long M, long long N, double tB,
                             int baseline, long long optin, const double* tSlice) {
  const Workload& w = *d.workload;
  if (!hasCluster(d) || baseline < 0 || !(tB > 0.0)) return model::Ranked{};
  return model::rankCandidates(modelKernel(d), dev, M, N, tB, baseline == 1, tSlice, [&](int protocol, int P) {
    return P <= w.target.maxNonPortableCluster &&
           isLegal(w.geometry, N, P, protocol ? Protocol::Mbarrier : Protocol::Sync, optin);
  });
}

// The model's decision from a T_B (ms): the largest dT, a cluster only if dT > 0.
// `tSlice` (optional, [log2 P], 0: not measured): T_slice(P), which prices T_occ
// against a staged T_B. `perSm`: this device's SMEM per SM (0: the profile's).
inline credit_plan planFor(const Dispatch& d, long long M, long long N, double tB, long long optin,
                           const double* tSlice = nullptr, long long perSm = 0) {
  credit_plan p = {};
  p.baseline = baselineFor(d, N, optin);
  p.variant = p.baseline;
  p.P = 1;
  p.tB_ms = tB;
  const model::Ranked r = rankFor(d, deviceFigures(d, perSm, optin), M, N, tB, p.baseline, optin, tSlice);
  if (r.count > 0) {
    p.evaluated = 1;
    p.deltaT_ms = r.deltaT[0];
    if (r.deltaT[0] > 0.0) {
      p.variant = 2;
      p.P = r.P[0];
      p.protocol = r.protocol[0];
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
  *medianMs = times[reps / 2] > 0.0 ? times[reps / 2] : 1e-6;  // below the event resolution
  return kStatusOk;
}

inline int deviceAndOptin(int* device, int* optin) {
  cudaError_t err = cudaGetDevice(device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, *device);
  return cudaStatus(err);
}

inline int deviceAndSmem(int* device, int* optin, int* perSm) {
  cudaError_t err = cudaGetDevice(device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, *device);
  if (err == cudaSuccess)
    err = cudaDeviceGetAttribute(perSm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, *device);
  return cudaStatus(err);
}

// T_slice(P) where it can change the decision: the baseline is the staged kernel and
// its row fills an SM. The staged kernel's SMEM form is timed at M * P rows of
// sliceElems(N, P) for every legal P, on zeroed scratch buffers of that shape; a P
// whose buffers cannot be allocated is left unmeasured (0).
inline int timeSlices(const Dispatch& d, int baseline, long long M, long long N, long long perSm, long long optin,
                      cudaStream_t stream, double* tSlice) {
  const Workload& w = *d.workload;
  for (int l = 0; l < model::kNumClusterSizes; ++l) tSlice[l] = 0.0;
  if (baseline != 1 || !hasCluster(d)) return kStatusOk;
  cudaError_t err = cudaSuccess;
  for (int P = 2, l = 1; P <= w.target.maxNonPortableCluster && l < model::kNumClusterSizes; P *= 2, ++l) {
    if (!measuresSlice(w.geometry, N, P, perSm, optin)) continue;
    const long long rows = model::sliceRows(M, P), width = sliceElems(N, P);
    void* bufs[kMaxArgs] = {};
    float one = 1.0f;  // every runtime param: the time does not depend on its value
    for (int j = 0; j < w.numParams; ++j) bufs[w.numArgs + j] = &one;
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
    tSlice[l] = ms;
  }
  return kStatusOk;
}

inline int checkShape(long long M, long long N) {
  if (M < 1 || N < 1 || N > kMaxRowElems || M > 2147483647LL) return static_cast<int>(LaunchStatus::BadShape);
  return kStatusOk;
}

// The model's decision for (M, N) given a measured T_B (ms) of the baseline kernel
// (out->baseline says which), under this device's SMEM sizes. Times and launches nothing.
inline int plan(const Dispatch& d, long long M, long long N, double tB_ms, credit_plan* out) {
  if (out == nullptr) return static_cast<int>(LaunchStatus::NullPointer);
  if (int status = checkShape(M, N)) return status;
  if (!(tB_ms > 0.0) || tB_ms > 1e300) return kStatusBadTiming;
  int device = 0, optin = 0, perSm = 0;
  if (int status = deviceAndSmem(&device, &optin, &perSm)) return status;
  if (baselineFor(d, N, optin) < 0) return kStatusBadVariant;
  *out = planFor(d, M, N, tB_ms, optin, nullptr, perSm);
  return kStatusOk;
}

// The decision without any timing: T_B predicted (model mode, stream capture).
// Without a copy rate in the profile the baseline runs (source 2).
inline credit_plan predictedPlan(const Dispatch& d, long long M, long long N, long long perSm, long long optin) {
  const int baseline = baselineFor(d, N, optin);
  const model::Device dev = deviceFigures(d, perSm, optin);
  const double tB = model::predictedBaselineMs(modelKernel(d), dev, M, N, baseline == 1);
  if (!(tB > 0.0)) {
    credit_plan p = {};
    p.variant = p.baseline = baseline;
    p.P = 1;
    p.source = 2;
    return p;
  }
  return planFor(d, M, N, tB, optin, nullptr, perSm);
}

inline int autotune(const Dispatch& d, const void* const* args, long long M, long long N, cudaStream_t stream,
                    credit_plan* model, credit_plan* tuned);

// Measure mode's first use of a shape: T_B (and T_slice where it applies) timed, the
// model's shortlist timed, the fastest of the baseline and the shortlist recorded.
inline int measuredPlan(const Dispatch& d, const void* const* args, long long M, long long N, int baseline,
                        long long perSm, long long optin, cudaStream_t stream, credit_plan* out) {
  double tB = 0.0, tSlice[model::kNumClusterSizes];
  if (int status = timeVariant(d, baseline, args, M, N, 1, 0, stream, &tB)) return status;
  if (int status = timeSlices(d, baseline, M, N, perSm, optin, stream, tSlice)) return status;
  credit_plan p = planFor(d, M, N, tB, optin, tSlice, perSm);
  const model::Ranked r = rankFor(d, deviceFigures(d, perSm, optin), M, N, tB, baseline, optin, tSlice);
  double best = tB;
  int bestP = 0, bestProtocol = 0, timed = 0;
  for (int i = 0; i < r.count; ++i) {
    if (!model::inShortlist(r, i, tB)) continue;
    double t = 0.0;
    const int status = timeVariant(d, 2, args, M, N, r.P[i], r.protocol[i], stream, &t);
    if (status >= kStatusCudaErrorBase) return status;  // a CUDA failure: stop
    if (status != kStatusOk) continue;                  // refused here (cluster too large): not a candidate
    ++timed;
    if (t < best) {
      best = t;
      bestP = r.P[i];
      bestProtocol = r.protocol[i];
    }
  }
  if (timed > 0) {
    p.source = 4;
    p.variant = bestP > 0 ? 2 : baseline;
    p.P = bestP > 0 ? bestP : 1;
    p.protocol = bestP > 0 ? bestProtocol : 0;
  }
  p.measured_ms = p.variant == baseline ? tB : best;
  *out = p;
  return kStatusOk;
}

// Launches the decision for (M, N): the recorded one, else one made now in the mode in
// force (Mode), recorded per (device, M, N). While `stream` is being captured nothing is
// timed: without a recorded decision the model's prediction runs (not recorded). A
// cluster launch the device refuses (cluster too large) falls back to the baseline
// (source 2, recorded).
inline int launchAuto(const Dispatch& d, const void* const* args, long long M, long long N, cudaStream_t stream) {
  if (args == nullptr) return static_cast<int>(LaunchStatus::NullPointer);
  if (M == 0) return kStatusOk;
  if (int status = checkShape(M, N)) return status;
  int device = 0, optin = 0, perSm = 0;
  if (int status = deviceAndSmem(&device, &optin, &perSm)) return status;
  const int baseline = baselineFor(d, N, optin);
  if (baseline < 0) return kStatusBadVariant;
  credit_plan p;
  if (!d.cache->lookup(device, M, N, &p)) {
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    cudaError_t err = cudaStreamIsCapturing(stream, &capture);
    if (err != cudaSuccess) return cudaStatus(err);
    const bool capturing = capture != cudaStreamCaptureStatusNone;
    switch (firstUse(d.cache->mode(), capturing)) {
      case FirstUse::Predict:
        p = predictedPlan(d, M, N, perSm, optin);
        break;
      case FirstUse::Autotune:  // autotune records its decision
        if (int status = autotune(d, args, M, N, stream, nullptr, &p)) return status;
        break;
      case FirstUse::Measure:
        if (int status = measuredPlan(d, args, M, N, baseline, perSm, optin, stream, &p)) return status;
        break;
    }
    if (recordsDecision(capturing)) d.cache->store(device, M, N, p);
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
  int device = 0, optin = 0, perSm = 0;
  if (int status = deviceAndSmem(&device, &optin, &perSm)) return status;
  const int baseline = baselineFor(d, N, optin);
  if (baseline < 0) return kStatusBadVariant;
  double tB = 0.0, tSlice[model::kNumClusterSizes];
  if (int status = timeVariant(d, baseline, args, M, N, 1, 0, stream, &tB)) return status;
  if (int status = timeSlices(d, baseline, M, N, perSm, optin, stream, tSlice)) return status;
  const credit_plan m = planFor(d, M, N, tB, optin, tSlice, perSm);
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

// Sets how launchAuto decides shapes it has not decided yet (Mode; kModeFromEnvironment:
// CREDIT_DISPATCH again) and returns the mode in force before; -2 (nothing changes) for
// another value. Decisions already recorded stay.
inline int setMode(const Dispatch& d, int mode) {
  if (mode != kModeModel && mode != kModeMeasure && mode != kModeAutotune && mode != kModeFromEnvironment)
    return -2;
  const int previous = d.cache->mode();
  d.cache->setMode(mode);
  return previous;
}

}  // namespace host
}  // namespace credit

#endif  // CREDIT_RUNTIME_DISPATCH_H
