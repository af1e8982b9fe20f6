// credit/runtime/Launch.h -- the launchers of a generated file's kernels (host only,
// CUDA runtime API).
//
// A generated file lists its kernels and describes its workload (LaunchSpec.h); its
// extern "C" API forwards here. Each launcher picks the form for the shape and the
// device (FormPolicy.h) and launches it. Returns 0, a LaunchStatus (1..99, not
// launched), kStatusBadProtocol, kStatusBadVariant, or kStatusCudaErrorBase + cudaError_t.
#ifndef CREDIT_RUNTIME_LAUNCH_H
#define CREDIT_RUNTIME_LAUNCH_H

#include "credit/runtime/LaunchSpec.h"
#include "credit/runtime/Ring.h"

namespace credit {
namespace CREDIT_HOST_LOCAL host {

// The persistent form's ring at (N, P) on this device: no units where it does not run
// (usePersistent; `whereFits`: wherever it can run, persistentFits), else
// persistentRing; half slices only where every kept input is first read by the first pass.
inline PersistentRing persistentRingFor(const Workload& w, long long N, int P, bool whereFits) {
  int perSm = 0, optin = 0;
  deviceSmem(w, perSm, optin);
  const bool halves = !w.keptReadLate;
  const int narrow = w.geometry.threads;
  const bool run = whereFits ? persistentFits(w.wideGeometry, narrow, N, P, optin, halves)
                             : usePersistent(w.wideGeometry, w.hoisted, narrow, N, P, perSm, optin, halves);
  return run ? persistentRing(w.wideGeometry, N, P, optin, halves) : PersistentRing{0, 1};
}

// A persistent launch with `ring`: with a row-claim counter (`rowClaims`, and the lease
// got one) the claims' kernel, else the static rows' kernel.
inline int launchPersistent(const Workload& w, PersistentRing ring, bool rowClaims, const void* const* args,
                            long long M, long long N, int P, cudaStream_t stream) {
  RowClaimLease lease(w.rowClaims, rowClaims, M, stream);
  const bool claims = lease.counter() != nullptr;
  LaunchSpec s = specOf(w,
                        ring.pieces == 2 ? (claims ? Form::PersistentHalvesClaims : Form::PersistentHalves)
                                         : (claims ? Form::PersistentClaims : Form::Persistent),
                        true, N, P);
  s.smemBytes = persistentSmemBytes(w.wideGeometry, N, P, ring.units, ring.pieces);
  s.ring = ring.units;
  s.rowClaims = lease.counter();
  const int status = launchSpec(w, s, args, M, N, P, stream);
  if (status == kStatusOk) lease.launched();
  return status;
}

// The cluster launcher. regsOk: the slice in registers where it fits ("cluster_regs");
// partialOk: the partial form where usePartialRetention holds (false: "cluster_full");
// persistentMode: 0 never, 1 where usePersistent holds (the launch API), 2 wherever
// it can run ("cluster_persistent"), both with rows claimed where useRowClaims holds;
// 3 as 2 with the static rows ("cluster_persistent_static").
inline int launchClusterWith(const Workload& w, const void* const* args, long long M, long long N, int P, int protocol,
                             cudaStream_t stream, bool regsOk, bool partialOk, int persistentMode) {
  if (protocol != 0 && protocol != 1) return kStatusBadProtocol;
  if (M == 0) return kStatusOk;
  const bool vector = vectorOk(w, args, N);
  const Protocol proto = protocol == 0 ? Protocol::Sync : Protocol::Mbarrier;
  const int Pc = P < 1 ? 1 : P;
  if (persistentMode != 0 && protocol == 1 && vector && hasForm(w, Form::Persistent)) {
    const PersistentRing ring = persistentRingFor(w, N, P, persistentMode >= 2);
    if (ring.units > 0)
      return launchPersistent(w, ring, persistentMode != 3 && useRowClaims(P), args, M, N, P, stream);
  }
  Form f = byProtocol(protocol, Form::ClusterSync, Form::ClusterMbarrier);
  if (regsOk && hasForm(w, Form::ClusterRegsSync) && N >= 1 && sliceElems(N, Pc) <= regsWideMaxN(w.geometry.threads)) {
    f = byProtocol(protocol, Form::ClusterRegsSync, Form::ClusterRegsMbarrier);
  } else {
    const long long full = smemBytes(w.geometry, N, Pc, proto);
    int perSm = 0, optin = 0;
    deviceSmem(w, perSm, optin);
    if (partialOk && w.hasPartial &&
        usePartialRetention(full, smemBytes(w.partialGeometry, N, Pc, proto), Pc, w.partialDropReadLate, perSm, optin))
      f = byProtocol(protocol, Form::ClusterPartialSync, Form::ClusterPartialMbarrier);
    else if (useWideCta(w.wideGeometry.threads, full, smemBytes(w.wideGeometry, N, Pc, proto), perSm, optin))
      f = byProtocol(protocol, Form::ClusterWideSync, Form::ClusterWideMbarrier);
  }
  return launchSpec(w, specOf(w, f, vector, N, P), args, M, N, P, stream);
}
inline int launchCluster(const Workload& w, const void* const* args, long long M, long long N, int P, int protocol,
                         cudaStream_t stream) {
  return launchClusterWith(w, args, M, N, P, protocol, stream, false, true, 1);
}
// The partial form at any shape where the full form is legal ("cluster_partial").
inline int launchClusterPartial(const Workload& w, const void* const* args, long long M, long long N, int P,
                                int protocol, cudaStream_t stream) {
  if (protocol != 0 && protocol != 1) return kStatusBadProtocol;
  if (M == 0) return kStatusOk;
  const Form f = byProtocol(protocol, Form::ClusterPartialSync, Form::ClusterPartialMbarrier);
  return launchSpec(w, specOf(w, f, vectorOk(w, args, N), N, P), args, M, N, P, stream);
}

// The staged launcher: the form of stagedForm (registersOk false: "staged_smem").
inline int launchStagedWith(const Workload& w, const void* const* args, long long M, long long N, cudaStream_t stream,
                            bool regsOk) {
  if (M == 0) return kStatusOk;
  StagedForm form = stagedForm(w.geometry, N, regsOk, 0, 0);
  if (form == StagedForm::Smem && w.wideGeometry.threads > 0) {  // the twins' rules need the device's SMEM sizes
    int perSm = 0, optin = 0;
    deviceSmem(w, perSm, optin);
    form = stagedForm(w.geometry, N, regsOk, perSm, optin);
  }
  Form f = form == StagedForm::Registers                                                    ? Form::StagedRegs
                 : form == StagedForm::WideRegisters                                              ? Form::StagedRegsWide
                 : form == StagedForm::WideCtaRegisters || form == StagedForm::LightWideCtaRegisters ? Form::StagedRegsWideWide
                 : form == StagedForm::WideCtaDeepRegisters                                       ? Form::StagedRegsDeepWide
                 : form == StagedForm::WideCtaSmem                                                ? Form::StagedWide
                                                                                                  : Form::Staged;
  const bool vector = vectorOk(w, args, N);
  // No scalar deep kernel where the kept inputs would not fit its registers unpacked
  // (hasScalarDeepRegisterForm): the SMEM twin instead.
  if (f == Form::StagedRegsDeepWide && !vector && findKernel(w, f, false) == nullptr) f = Form::StagedWide;
  return launchSpec(w, specOf(w, f, vector, N, 1), args, M, N, 1, stream);
}
inline int launchStaged(const Workload& w, const void* const* args, long long M, long long N, cudaStream_t stream) {
  return launchStagedWith(w, args, M, N, stream, true);
}
inline int launchReread(const Workload& w, const void* const* args, long long M, long long N, cudaStream_t stream) {
  if (M == 0) return kStatusOk;
  return launchSpec(w, specOf(w, Form::Reread, vectorOk(w, args, N), N, 1), args, M, N, 1, stream);
}
inline int launchControl(const Workload& w, long long M, long long N, int P, int protocol, cudaStream_t stream) {
  if (protocol != 0 && protocol != 1) return kStatusBadProtocol;
  if (M == 0) return kStatusOk;
  const Form f = byProtocol(protocol, Form::ControlSync, Form::ControlMbarrier);
  return launchSpec(w, specOf(w, f, false, N, P), nullptr, M, N, P, stream);
}

// Launches form f itself (tests, benchmarks), wherever it computes the row correctly:
// the register forms where the slice (row) fits their registers, the persistent forms
// where their ring fits this device (`rowClaims`: a zeroed two-word counter for the
// claims' forms, or nullptr: the static rows). NotLegal elsewhere.
inline int launchForm(const Workload& w, Form f, const void* const* args, long long M, long long N, int P,
                      cudaStream_t stream, unsigned* rowClaims = nullptr) {
  if (M == 0) return kStatusOk;
  const int narrow = w.geometry.threads, wide = w.wideGeometry.threads;
  const long long slice = sliceElems(N, P < 1 ? 1 : P);
  const long long capacity = f == Form::ClusterRegsSync || f == Form::ClusterRegsMbarrier ? regsWideMaxN(narrow)
                             : f == Form::StagedRegs                                       ? regsMaxN(narrow)
                             : f == Form::StagedRegsWide                                   ? regsWideMaxN(narrow)
                             : f == Form::StagedRegsWideWide                               ? regsWideMaxN(wide)
                             : f == Form::StagedRegsDeepWide                               ? regsDeepMaxN(wide)
                                                                                           : kMaxRowElems;
  if (slice > capacity) return static_cast<int>(LaunchStatus::NotLegal);
  const bool vector = vectorOk(w, args, N);
  LaunchSpec s = specOf(w, f, vector, N, P);
  if (s.persistent) {
    if (!vector) return kStatusBadVariant;  // float4 only
    int perSm = 0, optin = 0;
    deviceSmem(w, perSm, optin);
    const int pieces = f == Form::PersistentHalves || f == Form::PersistentHalvesClaims ? 2 : 1;
    const int units = persistentUnitsOfPieces(w.wideGeometry, N, P, pieces, optin);
    if (P < 2 || units == 0 || slice > regsWideMaxN(wide)) return static_cast<int>(LaunchStatus::NotLegal);
    s.smemBytes = persistentSmemBytes(w.wideGeometry, N, P, units, pieces);
    s.ring = units;
    s.rowClaims = f == Form::PersistentClaims || f == Form::PersistentHalvesClaims ? rowClaims : nullptr;
  }
  return launchSpec(w, s, args, M, N, P, stream);
}

// C-string equality (no <cstring>).
inline bool same(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) ++a, ++b;
  return *a == *b;
}

// The dispatch of a target without clusters: the one-CTA staged kernel where Eq. 3
// allows N at P = 1, else the global-reread kernel.
inline int launchBaseline(const Workload& w, const void* const* args, long long M, long long N,
                          cudaStream_t stream) {
  if (hasForm(w, Form::Staged) && N <= credit::maxLegalN(w.geometry, 1, Protocol::Sync, w.target.smemOptinBytes))
    return launchStaged(w, args, M, N, stream);
  return launchReread(w, args, M, N, stream);
}

// The name of a launch API variant enumerator (credit_<K>_variant, the numbering of
// credit_plan::variant): 0 reread, 1 staged, 2 cluster; null for any other value.
inline const char* apiVariantName(int variant) {
  return variant == 0 ? "reread" : variant == 1 ? "staged" : variant == 2 ? "cluster" : nullptr;
}

// Whether the file was generated with the named variant: what launchGeneric launches
// and maxLegalN bounds (a target without clusters has none of the cluster variants).
inline bool hasVariant(const Workload& w, const char* variant) {
  if (variant == nullptr) return false;
  const bool cluster = hasForm(w, Form::ClusterSync);
  if (same(variant, "cluster") || same(variant, "cluster_full")) return cluster;
  if (same(variant, "cluster_regs")) return cluster && hasForm(w, Form::ClusterRegsSync);
  if (same(variant, "cluster_partial")) return cluster && hasForm(w, Form::ClusterPartialSync);
  if (same(variant, "cluster_rowwise") || same(variant, "cluster_persistent") ||
      same(variant, "cluster_persistent_static"))
    return cluster && hasForm(w, Form::Persistent);
  if (same(variant, "control")) return hasForm(w, Form::ControlSync);
  if (same(variant, "staged") || same(variant, "staged_smem")) return hasForm(w, Form::Staged);
  if (same(variant, "reread")) return hasForm(w, Form::Reread);
  return false;
}

// The largest legal N (Eq. 3) of a variant for the file's target (reread: no bound,
// kMaxRowElems); 0 for a variant the file was not generated with (hasVariant) or P < 1.
inline long long maxLegalN(const Workload& w, const char* variant, int P, int protocol) {
  if (!hasVariant(w, variant) || P < 1) return 0;
  if (same(variant, "reread")) return kMaxRowElems;
  const long long limit = w.target.smemOptinBytes;
  if (same(variant, "staged") || same(variant, "staged_smem"))
    return credit::maxLegalN(w.geometry, 1, Protocol::Sync, limit);
  return credit::maxLegalN(w.geometry, P, protocol == 1 ? Protocol::Mbarrier : Protocol::Sync, limit);
}

// Any generated variant by name: "cluster", "staged", "reread", "control" (the launch
// API's forms) and, for tests and benchmarks, "cluster_regs" (the slice in registers
// where it fits), "cluster_full" (every kept input in SMEM), "cluster_partial" (the
// partial form at every legal shape), "cluster_rowwise" (never the persistent form),
// "cluster_persistent" (the persistent form wherever it can run, else as "cluster"),
// "cluster_persistent_static" (the same with the static rows), "staged_smem" (the row
// in SMEM at every N). args[i]: the i-th data argument. staged and reread need P == 1.
inline int launchGeneric(const Workload& w, const char* variant, const void* const* args, long long M, long long N,
                         int P, int protocol, cudaStream_t stream) {
  if (variant == nullptr) return kStatusBadVariant;
  if ((hasForm(w, Form::ClusterSync) || hasForm(w, Form::Staged) || hasForm(w, Form::Reread)) && w.numArgs > 0 &&
      args == nullptr)
    return static_cast<int>(LaunchStatus::NullPointer);
  if (!hasVariant(w, variant)) return kStatusBadVariant;
  if (same(variant, "cluster")) return launchCluster(w, args, M, N, P, protocol, stream);
  if (same(variant, "staged") || same(variant, "staged_smem") || same(variant, "reread")) {
    if (P != 1) return static_cast<int>(LaunchStatus::BadClusterSize);
    if (same(variant, "reread")) return launchReread(w, args, M, N, stream);
    return launchStagedWith(w, args, M, N, stream, same(variant, "staged"));
  }
  if (same(variant, "cluster_regs")) return launchClusterWith(w, args, M, N, P, protocol, stream, true, true, 1);
  if (same(variant, "cluster_full")) return launchClusterWith(w, args, M, N, P, protocol, stream, false, false, 1);
  if (same(variant, "cluster_rowwise")) return launchClusterWith(w, args, M, N, P, protocol, stream, false, true, 0);
  if (same(variant, "cluster_persistent"))
    return launchClusterWith(w, args, M, N, P, protocol, stream, false, true, 2);
  if (same(variant, "cluster_persistent_static"))
    return launchClusterWith(w, args, M, N, P, protocol, stream, false, true, 3);
  if (same(variant, "cluster_partial")) return launchClusterPartial(w, args, M, N, P, protocol, stream);
  return launchControl(w, M, N, P, protocol, stream);  // "control", the last variant hasVariant knows
}

// Text for a launcher's status.
inline const char* statusString(int status) {
  if (status == kStatusOk) return "ok";
  if (status > 0 && status < kStatusBadProtocol) return launchStatusString(static_cast<LaunchStatus>(status));
  if (status == kStatusBadProtocol) return "bad protocol (0: sync, 1: mbarrier)";
  if (status == kStatusBadVariant) return "unknown or not generated variant";
  if (status == kStatusNoPlan) return "no dispatch decision for this shape yet";
  if (status == kStatusBadTiming) return "T_B must be a positive, finite time in ms";
  if (status >= kStatusCudaErrorBase) return cudaGetErrorString(static_cast<cudaError_t>(status - kStatusCudaErrorBase));
  return "unknown status";
}

}  // namespace host
}  // namespace credit

#endif  // CREDIT_RUNTIME_LAUNCH_H
