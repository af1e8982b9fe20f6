// credit/runtime/LaunchSpec.h -- one launch of a generated file's kernel (host only,
// CUDA runtime API): the kernel table, what the launchers know of a workload, how each
// form launches at (N, P), and the launch itself.
//
// A launch queries the device, validates (LaunchCheck.h) before any kernel attribute is
// set, and launches with cudaLaunchKernelExC and the argument array, so nothing here
// is a template over a kernel's parameter list.
#ifndef CREDIT_RUNTIME_LAUNCH_SPEC_H
#define CREDIT_RUNTIME_LAUNCH_SPEC_H

#include <cuda_runtime.h>

#include "credit/device/workload.cuh"
#include "credit/runtime/FormPolicy.h"
#include "credit/runtime/LaunchCheck.h"
#include "credit/runtime/RowClaimLease.h"
#include "credit/runtime/SmemLayout.h"
#include "credit/runtime/Target.h"

// The host namespace has hidden visibility (RowClaimLease.h): every shared library
// built from a generated file has its own copy of these functions and of their state.
namespace credit {
namespace CREDIT_HOST_LOCAL host {

// One kernel of a generated file: its form and vector width (control kernels: 1).
struct Kernel {
  Form form;
  int vec;
  const void* fn;
};
template <class... A>
inline const void* kernel(void (*fn)(A...)) {
  return reinterpret_cast<const void*>(fn);
}

inline constexpr int kMaxArgs = 32;
enum ArgKind : int { kArgRow = 0, kArgBroadcast = 1, kArgPerRow = 2, kArgParam = 3 };

// What the launchers know of a generated workload.
struct Workload {
  WorkloadGeometry geometry;         // the narrow forms'
  WorkloadGeometry wideGeometry;     // the twins' (threads 0: none)
  WorkloadGeometry partialGeometry;  // the partial-retention form's
  WorkloadGeometry rereadGeometry;   // the reread kernel's (its stages may be fused online)
  bool hasPartial;                   // two or more kept inputs: a partial form
  bool partialDropReadLate;          // another kept input is first read before the dropped one
  bool keptReadLate;                 // a kept input is first read after the first pass
  int hoisted;                       // broadcast inputs only h reads (the persistent form)
  int numArgs;                       // inputs, then outputs
  int numParams;                     // runtime params: args[numArgs + j] points to param j's value
  int argKind[kMaxArgs];             // ArgKind
  int argBytes[kMaxArgs];            // bytes per element
  TargetInfo target;                 // the file's --arch (max_legal_n's default limit)
  const Kernel* kernels;
  int numKernels;
  const void* rowClaims;  // the file's __device__ unsigned[2] row-claim counter
};

// W: the workload of every kernel but the reread ones, which run WR (the same
// operands; its stages may differ: an online statistic where W has two stages).
template <class W, class WR = W, int NK>
inline Workload describe(const Kernel (&kernels)[NK], const void* rowClaims, TargetInfo target) {
  using C = device::Contract<W>;
  static_assert(C::kNumInputs + C::kNumOutputs + C::kNumParams <= kMaxArgs, "too many arguments");
  static_assert(C::kNumInputs == device::Contract<WR>::kNumInputs &&
                    C::kNumOutputs == device::Contract<WR>::kNumOutputs,
                "the reread kernels' workload has the same operands");
  Workload w{};
  w.geometry = C::narrowGeometry();
  w.wideGeometry = C::wideGeometry();
  w.partialGeometry = C::partialGeometry();
  w.rereadGeometry = device::Contract<WR>::narrowGeometry();
  w.hasPartial = W::kPartialDrop >= 0;
  w.partialDropReadLate = W::kPartialDropReadLate;
  w.keptReadLate = C::anyKeptReadLate();
  w.hoisted = device::popcount(W::kHoisted);
  w.numArgs = C::kNumInputs + C::kNumOutputs;
  w.numParams = C::kNumParams;
  for (int i = 0; i < C::kNumInputs; ++i) {
    const device::Operand o = W::kInputs[i];
    w.argKind[i] = o.kind == device::Kind::Row ? kArgRow : o.kind == device::Kind::Broadcast ? kArgBroadcast : kArgPerRow;
    w.argBytes[i] = device::elemBytes(o.elem);
  }
  for (int j = 0; j < C::kNumOutputs; ++j) {
    const device::Operand o = W::kOutputs[j];
    w.argKind[C::kNumInputs + j] = o.kind == device::Kind::Row ? kArgRow : kArgPerRow;
    w.argBytes[C::kNumInputs + j] = device::elemBytes(o.elem);
  }
  for (int j = 0; j < C::kNumParams; ++j) {  // checked like the pointers: not null, 4-byte aligned
    w.argKind[w.numArgs + j] = kArgParam;
    w.argBytes[w.numArgs + j] = 4;
  }
  w.target = target;
  w.kernels = kernels;
  w.numKernels = NK;
  w.rowClaims = rowClaims;
  return w;
}

// The kernel of a form (vector: the one of runs of vectorWidth(w) elements, else the
// scalar one; control kernels have one), or nullptr.
inline const void* findKernel(const Workload& w, Form f, bool vector) {
  const bool single = f == Form::ControlSync || f == Form::ControlMbarrier;
  for (int i = 0; i < w.numKernels; ++i)
    if (w.kernels[i].form == f && (single || (w.kernels[i].vec > 1) == vector)) return w.kernels[i].fn;
  return nullptr;
}
// The elements of a vector kernel's runs: 8 where every per-element operand is at
// most 2 bytes, else 4 (the generated file's choice; 4 where it has none).
inline int vectorWidth(const Workload& w) {
  int vec = 4;
  for (int i = 0; i < w.numKernels; ++i)
    if (w.kernels[i].vec > 1) vec = w.kernels[i].vec;
  return vec;
}
inline bool hasForm(const Workload& w, Form f) { return findKernel(w, f, true) != nullptr; }

inline int cudaStatus(cudaError_t err) {
  return err == cudaSuccess ? kStatusOk : kStatusCudaErrorBase + static_cast<int>(err);
}

// This device's SMEM per SM and per block (opt-in), for the twins' and the partial
// form's rules; both 0 where the file has neither or the query fails (the launch
// then reports the error).
inline void deviceSmem(const Workload& w, int& perSm, int& optin) {
  perSm = 0;
  optin = 0;
  if (w.wideGeometry.threads == 0 && !w.hasPartial) return;
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&perSm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess) {
    (void)cudaGetLastError();
    perSm = 0;
    optin = 0;
  }
}

// One launch: the kernel, the geometry that sets its CTA size and Eq. 3 bound, its
// grid (M * P CTAs; `persistent`: the resident clusters only) and its arguments.
struct LaunchSpec {
  const void* kernel = nullptr;
  WorkloadGeometry geometry{};
  bool cluster = false;      // a cluster launch of P CTAs per row (the kernel takes P)
  bool loadBalance = false;  // clusterLoadBalancing (FormPolicy.h)
  bool persistent = false;   // the kernel also takes the ring's units and the row-claim counter
  bool checkLegal = false;   // Eq. 3 for `geometry` (forms that keep nothing in SMEM: no bound)
  Protocol protocol = Protocol::Sync;
  long long smemBytes = 0;
  bool data = true;  // the data arguments come first (the control kernels have none)
  int ring = 0;
  unsigned* rowClaims = nullptr;
};

// Queries the device, validates (validateLaunch, first without and then with the
// kernel's cluster limit, so that the attribute calls only see sane values) and
// launches.
inline int launchSpec(const Workload& w, const LaunchSpec& s, const void* const* args, long long M, long long N,
                      int P, cudaStream_t stream) {
  if (s.kernel == nullptr) return kStatusBadVariant;
  int dev = 0, optin = 0, sms = 0;
  cudaError_t err = cudaGetDevice(&dev);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  if (err != cudaSuccess) return cudaStatus(err);
  const long long maxN = s.checkLegal ? maxLegalN(s.geometry, P < 1 ? 1 : P, s.protocol, optin) : 0;
  const LaunchRequest req{s.data ? args : nullptr, s.data ? w.argBytes : nullptr, s.data ? w.numArgs + w.numParams : 0, M, N, P,
                          s.cluster, static_cast<size_t>(s.smemBytes < 0 ? 0 : s.smemBytes), maxN};
  DeviceLimits lim{optin, s.cluster ? P : 1, sms};
  LaunchStatus status = validateLaunch(req, lim);
  if (status != LaunchStatus::Ok) return static_cast<int>(status);

  err = cudaFuncSetAttribute(s.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(s.smemBytes));
  if (err != cudaSuccess) return cudaStatus(err);
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(static_cast<unsigned>(M * P), 1, 1);
  cfg.blockDim = dim3(static_cast<unsigned>(s.geometry.threads), 1, 1);
  cfg.dynamicSmemBytes = static_cast<size_t>(s.smemBytes);
  cfg.stream = stream;
  cudaLaunchAttribute attr[2];
  if (s.cluster) {
    if (P > 8 && cudaFuncSetAttribute(s.kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess)
      (void)cudaGetLastError();  // not allowed here: the query below then reports <= 8
    int maxCluster = 0;
    err = cudaOccupancyMaxPotentialClusterSize(&maxCluster, s.kernel, &cfg);  // ignores cluster dims
    if (err != cudaSuccess) return cudaStatus(err);
    lim.maxClusterSize = maxCluster;
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = static_cast<unsigned>(P);
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    if (s.loadBalance) {
      attr[1].id = cudaLaunchAttributeClusterSchedulingPolicyPreference;
      attr[1].val.clusterSchedulingPolicyPreference = cudaClusterSchedulingPolicyLoadBalancing;
      cfg.numAttrs = 2;
    }
  }
  status = validateLaunch(req, lim);
  if (status != LaunchStatus::Ok) return static_cast<int>(status);
  if (s.persistent && s.cluster) {  // the resident clusters only; each walks its rows
    int resident = 0;
    err = cudaOccupancyMaxActiveClusters(&resident, s.kernel, &cfg);
    if (err != cudaSuccess) return cudaStatus(err);
    if (resident < 1) return static_cast<int>(LaunchStatus::ClusterTooLarge);
    cfg.gridDim = dim3(static_cast<unsigned>((M < resident ? M : resident) * P), 1, 1);
  }
  // The kernel's parameters: the data pointers, the runtime params (args holds their
  // addresses), M, N[, P[, ring, row_claims]].
  void* params[kMaxArgs + 5];
  int n = 0;
  if (s.data) {
    for (int i = 0; i < w.numArgs; ++i) params[n++] = const_cast<void*>(static_cast<const void*>(&args[i]));
    for (int j = 0; j < w.numParams; ++j) params[n++] = const_cast<void*>(args[w.numArgs + j]);
  }
  int n32 = static_cast<int>(N), p = P, ring = s.ring;
  unsigned* claims = s.rowClaims;
  params[n++] = &M;
  params[n++] = &n32;
  if (s.cluster) params[n++] = &p;
  if (s.persistent) {
    params[n++] = &ring;
    params[n++] = &claims;
  }
  return cudaStatus(cudaLaunchKernelExC(&cfg, s.kernel, params));
}

// The vector kernels where every per-element pointer (row and broadcast operands) is
// aligned to its runs and N % vectorWidth(w) == 0 (canUseVec).
inline bool vectorOk(const Workload& w, const void* const* args, long long N) {
  const void* ptrs[kMaxArgs];
  int bytes[kMaxArgs], n = 0;
  for (int i = 0; i < w.numArgs; ++i)
    if (w.argKind[i] != kArgPerRow) {
      ptrs[n] = args[i];
      bytes[n++] = w.argBytes[i];
    }
  return canUseVec(ptrs, bytes, n, N, vectorWidth(w));
}

inline Form byProtocol(int protocol, Form sync, Form mbarrier) { return protocol == 0 ? sync : mbarrier; }

// How form f launches at (N, P): its kernel, CTA size, SMEM and Eq. 3 bound. The
// persistent forms' SMEM and ring are the caller's (they depend on the ring).
inline LaunchSpec specOf(const Workload& w, Form f, bool vector, long long N, int P) {
  const int Pc = P < 1 ? 1 : P;  // for the SMEM formulas only; validateLaunch rejects a bad P
  LaunchSpec s;
  s.kernel = findKernel(w, f, vector);
  s.geometry = w.geometry;
  s.checkLegal = true;
  s.protocol = f == Form::ClusterSync || f == Form::ClusterRegsSync || f == Form::ClusterWideSync ||
                       f == Form::ClusterPartialSync || f == Form::ControlSync
                   ? Protocol::Sync
               : f == Form::ClusterMbarrier || f == Form::ClusterRegsMbarrier || f == Form::ClusterWideMbarrier ||
                       f == Form::ClusterPartialMbarrier || f == Form::ControlMbarrier || f == Form::Persistent ||
                       f == Form::PersistentHalves || f == Form::PersistentClaims || f == Form::PersistentHalvesClaims
                   ? Protocol::Mbarrier
                   : Protocol::Sync;
  const Protocol proto = s.protocol;
  switch (f) {
    case Form::ClusterSync:
    case Form::ClusterMbarrier:
      s.cluster = true;
      s.loadBalance = clusterLoadBalancing(false);
      s.smemBytes = smemBytes(w.geometry, N, Pc, proto);
      break;
    case Form::ClusterRegsSync:
    case Form::ClusterRegsMbarrier:  // the slice in registers: SMEM holds the exchange only
      s.cluster = true;
      s.loadBalance = clusterLoadBalancing(false);
      s.checkLegal = false;
      s.smemBytes = scratchBytes(w.geometry, Pc, proto);
      break;
    case Form::ClusterWideSync:
    case Form::ClusterWideMbarrier:
      s.cluster = true;
      s.loadBalance = clusterLoadBalancing(false);
      s.geometry = w.wideGeometry;
      s.smemBytes = smemBytes(w.wideGeometry, N, Pc, proto);
      break;
    case Form::ClusterPartialSync:
    case Form::ClusterPartialMbarrier:  // legal where the full form is: one bound for every cluster form
      s.cluster = true;
      s.loadBalance = clusterLoadBalancing(true);
      s.smemBytes = smemBytes(w.partialGeometry, N, Pc, proto);
      break;
    case Form::Persistent:
    case Form::PersistentHalves:
    case Form::PersistentClaims:
    case Form::PersistentHalvesClaims:
      s.cluster = true;
      s.persistent = true;
      s.geometry = w.wideGeometry;
      break;
    case Form::Staged:
      s.smemBytes = smemBytes(w.geometry, N, 1, Protocol::Sync);
      break;
    case Form::StagedRegs:
    case Form::StagedRegsWide:  // the row in registers, SMEM for the scratch only
      s.checkLegal = false;
      s.smemBytes = scratchBytes(w.geometry, 1, Protocol::Sync);
      break;
    case Form::Reread:  // nothing retained
      s.checkLegal = false;
      s.geometry = w.rereadGeometry;
      s.smemBytes = scratchBytes(w.rereadGeometry, 1, Protocol::Sync);
      break;
    case Form::StagedWide:
      s.geometry = w.wideGeometry;
      s.smemBytes = smemBytes(w.wideGeometry, N, 1, Protocol::Sync);
      break;
    case Form::StagedRegsWideWide:
    case Form::StagedRegsDeepWide:
      s.checkLegal = false;
      s.geometry = w.wideGeometry;
      s.smemBytes = scratchBytes(w.wideGeometry, 1, Protocol::Sync);
      break;
    case Form::ControlSync:
    case Form::ControlMbarrier:  // the default placement: the profiles' T_ctrl were measured with it
      s.cluster = true;
      s.data = false;
      s.smemBytes = smemBytes(w.geometry, N, Pc, proto);
      break;
  }
  return s;
}

}  // namespace host
}  // namespace credit

#endif  // CREDIT_RUNTIME_LAUNCH_SPEC_H
