//===- CostModel.h - The paper's profitability model (Eqs. 3, 5-9) -*- C++ -*-===//
//
// Predicts, before any clustered kernel is generated or timed, whether the
// clustered reduction-reuse schedule beats the matched non-clustered kernel at
// a shape (M, N), and with which cluster size P and exchange protocol. Inputs:
//   * a device profile (JSON, written by runtime/tools/credit-calibrate): the
//     SM count S, the SM clock f, the local-SMEM read/store rates, the
//     remote-store rates per P, and the work-free control kernel's excess
//     time T_ctrl(M, N, P) per kernel and protocol;
//   * the kernel's static facts (Traffic, Barriers, geometry, Eq. 3 legality);
//   * one timing T_B of the selected non-clustered kernel at (M, N).
// Every term is documented in docs/cost-model.md. No coefficient is fitted to
// clustered-kernel timings.
//
// The profile, the facts and the prediction are plain data, so the model is
// testable with synthetic inputs; kernelFacts() is the only MLIR-facing call.
//
//===----------------------------------------------------------------------===//
#ifndef CREDIT_MODEL_COSTMODEL_H
#define CREDIT_MODEL_COSTMODEL_H

#include "credit/runtime/Layout.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mlir::credit {
class KernelOp;
} // namespace mlir::credit

namespace credit::model {

const char *protocolName(::credit::Protocol p); // "sync" / "mbarrier"

//===----------------------------------------------------------------------===//
// Device profile.
//===----------------------------------------------------------------------===//

/// One measured point of T_ctrl (profile key control.entries[i]).
struct ControlEntry {
  std::string kernel;
  /// The footprint the control ran with; absent in hand-written profiles.
  std::optional<::credit::WorkloadGeometry> geometry;
  ::credit::Protocol protocol = ::credit::Protocol::Sync;
  int P = 2;
  long long M = 0, N = 0;
  double tCtrlMs = 0; // control(M, N, P) - one-CTA control(M, N), ms
};

struct DeviceProfile {
  std::string path;        // where it was loaded from (messages only)
  std::string deviceName;  // device.name
  std::string arch;        // device.arch ("" if absent)
  int sms = 0;             // device.sms: S
  double smClockMHz = 0;   // device.sm_clock_MHz: f
  long long smemPerSmBytes = 0;    // device.smem_per_sm_bytes (optional; 0: absent)
  long long smemOptinBytes = 0;    // device.smem_per_block_optin_bytes (optional; 0: absent)
  double smemReadBpc = 0;  // rates_Bpc.smem_read: B_SMEM^r, bytes/cycle per SM
  double smemWriteBpc = 0; // rates_Bpc.smem_write: B_SMEM^w, bytes/cycle per SM
  std::map<int, double> dsmemStoreBpc;      // rates_Bpc.dsmem_store: B_DSM^w(P), sync push
  std::map<int, double> dsmemStoreAsyncBpc; // rates_Bpc.dsmem_store_async: mbarrier push
  std::vector<ControlEntry> control;        // control.entries
};

/// Parses and validates a profile. Errors name the offending key
/// ("<name>: key 'rates_Bpc.smem_read': missing") or, for malformed JSON,
/// its position ("<name>:3:17: invalid JSON: ...").
llvm::Expected<DeviceProfile> parseProfile(llvm::StringRef text, llvm::StringRef name);
llvm::Expected<DeviceProfile> loadProfile(llvm::StringRef path);

//===----------------------------------------------------------------------===//
// Kernel facts.
//===----------------------------------------------------------------------===//

/// Eq. 3 at one N for one cluster size, both protocols.
struct LegalityAtN {
  int P = 1;
  bool legalSync = false, legalMbarrier = false;
  long long smemSync = 0, smemMbarrier = 0; // Eq. 3 left-hand side, bytes
};

struct KernelFacts {
  std::string name;
  bool accepted = true;
  std::string category = "accepted", reason;
  int L = 0;
  std::vector<int> q;
  // Bytes per element of the row (Traffic, docs/report.md).
  long long baseline = 0, cluster = 0, reread = 0, keep = 0, outputBytes = 0;
  long long fixedBroadcastPerElement = 0; // D_fixed, B/element
  long long fixedPerRow = 0;              // D_fixed, B/row
  int Ksync = 0, Kmbarrier = 0;
  ::credit::WorkloadGeometry geometry{};
  ::credit::TargetInfo target{};
  long long legalityN = 0;            // the N `legality` was computed for
  std::vector<LegalityAtN> legality;  // P = 1 (staged), 2, 4, 8[, 16]
  // The partial-retention form of the cluster kernels (docs/codegen.md), from
  // the schedule: predict notes where the cluster launcher runs it. No term
  // prices it.
  bool hasPartialForm = false;
  std::string partialDropped;                 // the input it re-reads from L2
  bool partialDroppedReadLate = false;        // first read after the first pass
  ::credit::WorkloadGeometry partialGeometry{};
  // The persistent form (docs/codegen.md), from the schedule: predict notes
  // where the cluster launcher runs it. No term prices it either.
  bool hasPersistentForm = false;
  int persistentHoisted = 0;                  // broadcast inputs only h reads (numHoistedInputs)
  bool persistentKeptReadLate = false;        // a kept input first read late: whole slices only
  ::credit::WorkloadGeometry persistentGeometry{};  // the wide-CTA twin's geometry

  int qSum() const;
  /// Eq. 3 allows the one-CTA staged kernel (P = 1, sync scratch) at legalityN.
  bool stagedLegal() const;
};

/// Eq. 3 rows straight from Layout.h (for synthetic facts; kernelFacts reads
/// credit-legality's table, which agrees with this by construction --
/// unit-tested).
std::vector<LegalityAtN> legalityAt(const ::credit::WorkloadGeometry &g,
                                    const ::credit::TargetInfo &target, long long N);

/// Success unless control entry `e` records a footprint other than `g`, the
/// footprint of kernel `kernel` as generated now (its T_ctrl would then belong
/// to another kernel); the error names both and how to recalibrate.
llvm::Error checkControlFootprint(const DeviceProfile &profile, const ControlEntry &e,
                                  llvm::StringRef kernel, const ::credit::WorkloadGeometry &g);

/// The facts of an analysed kernel, read from the attributes the analysis
/// passes and credit-schedule wrote (KernelFacts.cpp): the classification,
/// credit.traffic, credit.barriers, credit.legality (at the N, target and CTA
/// size it ran with) plus the mbarrier protocol's Eq. 3 through Layout.h, and
/// the schedule's geometry and forms. A rejected kernel's facts hold its name
/// and classification only. Fails where an attribute is missing (the errors
/// are on the kernel).
llvm::Expected<KernelFacts> kernelFacts(mlir::credit::KernelOp kernel);

//===----------------------------------------------------------------------===//
// The prediction.
//===----------------------------------------------------------------------===//

enum class BaselineKind { Auto, Reread, Staged };

struct Query {
  long long M = 0, N = 0;
  double tBMs = 0;                          // T_B, ms
  BaselineKind baseline = BaselineKind::Auto; // which kernel T_B timed
  /// T_slice(P), ms: the staged kernel's SMEM form at M*P rows of
  /// sliceElems(N, P) (credit::model::occupancySaving). Used against a staged
  /// T_B only; a P without an entry has T_occ = 0.
  std::map<int, double> tSliceMs;
};

/// T_ctrl at (M, N) from the profile's table (docs/cost-model.md: log-linear
/// in N, linear in M, proportional to M outside the measured M range, clamped
/// to the nearest N outside the measured N range).
struct CtrlLookup {
  double ms = 0;
  std::string source; // "measured", "interpolated", "extrapolated"
  std::string detail; // which table points it came from
};
llvm::Expected<CtrlLookup> lookupControl(const DeviceProfile &profile, const KernelFacts &facts,
                                         ::credit::Protocol protocol, int P, long long M,
                                         long long N);

/// One (protocol, P) candidate with every term (times in ms).
struct Candidate {
  ::credit::Protocol protocol = ::credit::Protocol::Sync;
  int P = 2;
  bool legal = false;       // Eq. 3
  bool evaluated = false;   // legal and every profile figure it needs was there
  std::string note;         // why not evaluated
  long long smemBytes = 0;  // Eq. 3 left-hand side
  long long slice = 0;      // sliceElems(N, P)
  long long clustersPerWave = 0; // floor(S / P)
  long long W = 0;          // ceil(M / floor(S / P))
  double replayBytesPerCta = 0, dsmBytesPerCta = 0, depositBytesPerCta = 0;
  double tCtrl = 0;
  std::string ctrlSource, ctrlDetail;
  double tReplay = 0, tDSM = 0, tSmemW = 0, tDeposit = 0;
  double tSlice = 0;        // T_slice(P), 0: not measured
  double tOcc = 0;          // T_occ(P) = T_B - T_slice(P) against a staged T_B, else 0
  double deltaT = 0;        // Eq. 9 (+ T_occ)
};

struct Prediction {
  std::string kernel;
  Query query;
  std::string baselineKernel; // "reread" or "staged" (T_B's kernel)
  bool baselineAuto = true;
  std::string deviceName, profilePath, profileArch, targetArch;
  int sms = 0;
  double smClockMHz = 0, smemReadBpc = 0, smemWriteBpc = 0;
  long long bBase = 0, bReread = 0, bKeep = 0, dFixedPerElement = 0, dFixedPerRow = 0;
  double dBaseBytes = 0;   // Eq. 5, whole grid
  double rateBytesPerMs = 0; // Eq. 7, R_B
  double tRereadSaved = 0; // M N b_reread / R_B
  double tInput = 0;       // M N b_keep / R_B
  /// credit::stagedForm runs a one-CTA-per-SM twin at this N (known when the
  /// profile has the device's SMEM sizes): where T_occ matters.
  bool stagedOneCtaPerSm = false;
  bool anySlice = false;   // some candidate has T_slice
  std::vector<Candidate> candidates;
  std::optional<size_t> chosen;                         // best over every candidate
  std::optional<size_t> chosenSync, chosenMbarrier;     // best per protocol
  bool profitable = false;
  std::string verdict; // "profitable", "not profitable", "no legal cluster size", ...
  std::vector<std::string> notes;
};

/// Evaluates every (protocol, P) of facts.legality. Errors: a query out of
/// range, facts for another N, a rejected kernel, a profile lacking what every
/// legal candidate needs.
llvm::Expected<Prediction> predict(const KernelFacts &facts, const DeviceProfile &profile,
                                   const Query &query);

void printPrediction(const Prediction &p, llvm::raw_ostream &os);
llvm::json::Value predictionToJSON(const Prediction &p);

} // namespace credit::model

#endif // CREDIT_MODEL_COSTMODEL_H
