//===- CostModel.h - The profitability model (Eqs. 3, 5-9) -----*- C++ -*-===//
//
// Predicts, before any clustered kernel is generated or timed, whether the
// clustered reduction-reuse schedule beats the matched non-clustered kernel at
// a shape (M, N), and with which cluster size P, exchange protocol and form.
// Inputs:
//   * a device profile (JSON, written by credit-calibrate): the device's
//     latencies, SMEM and DSMEM rates, occupancy and the cost of a work-free
//     control grid -- nothing per kernel;
//   * the kernel's schedule (traffic, stages and statistics, geometry, forms);
//   * one timing T_B of the selected non-clustered kernel at (M, N), or, without
//     one, T_B predicted from the device's copy rate.
// The arithmetic is credit/runtime/Model.h, the same the generated dispatch
// evaluates; docs/cost-model.md documents every term.
//
//===----------------------------------------------------------------------===//
#ifndef CREDIT_MODEL_COSTMODEL_H
#define CREDIT_MODEL_COSTMODEL_H

#include "credit/runtime/Layout.h"
#include "credit/runtime/Model.h"

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
const char *formName(ClusterForm f);            // "full", "wide", "partial", "persistent"

//===----------------------------------------------------------------------===//
// Device profile (schema credit-device-profile, version 2).
//===----------------------------------------------------------------------===//

/// The deepest nesting of arrays and objects a profile may have (a profile is
/// four levels deep); deeper input is refused before it is parsed.
inline constexpr int kMaxProfileDepth = 64;

struct DeviceProfile {
  std::string path;       // where it was loaded from (messages only)
  std::string deviceName; // device.name
  std::string arch;       // device.arch ("" if absent)
  std::string derived;    // derived.from, if the profile was converted rather than measured
  Device device{};        // every figure the model reads (Model.h)
  /// Optional figures the profile lacks (the model then leaves their term out):
  /// "latency_cycles.global_load", "memory.copy_GBps", "occupancy".
  std::vector<std::string> missing;
  /// How the control grid was obtained where the profile holds control-kernel
  /// timings instead of control_grid (fitControlGrid), one line per figure set.
  std::vector<std::string> fitted;
};

/// Parses and validates a profile. Errors name the offending key
/// ("<name>: key 'rates_Bpc.smem_read': missing") or, for malformed JSON,
/// its position ("<name>:3:17: invalid JSON: ...").
llvm::Expected<DeviceProfile> parseProfile(llvm::StringRef text, llvm::StringRef name);
llvm::Expected<DeviceProfile> loadProfile(llvm::StringRef path);

/// Fits the control grid's figures (Device::grid) to a profile's
/// control.entries: control-kernel timings with their footprints. Entries with
/// a T_ctrl only (no footprint or raw times) are not used; a (protocol, P)
/// with fewer than five usable timings stays unmeasured. One note per fit.
llvm::Error fitControlGrid(const llvm::json::Array &entries, llvm::StringRef name, Device &d,
                           std::vector<std::string> &notes);

/// The nesting depth of the JSON text (arrays and objects, strings skipped).
int jsonDepth(llvm::StringRef text);

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
  // The forms the cluster launcher chooses among (docs/codegen.md), from the schedule.
  ::credit::WorkloadGeometry wideGeometry{};  // threads 0: no twin
  bool hasPartialForm = false;
  std::string partialDropped;                 // the input it re-reads from L2
  bool partialDroppedReadLate = false;        // first read after the first pass
  ::credit::WorkloadGeometry partialGeometry{};
  bool hasPersistentForm = false;
  int persistentHoisted = 0;                  // broadcast inputs only h reads (numHoistedInputs)
  bool persistentKeptReadLate = false;        // a kept input first read late: whole slices only
  int vectorWidth = 4;                        // elements per access run of the vector kernels (_v<width>)
  int keptInputs = 0;                         // row inputs kept on chip (the schedule's `kept`)
  // The reread kernel's bytes per element where it runs its own stages (an online
  // statistic, useRereadStages); -1: baseline and reread above.
  long long rereadKernelBaseline = -1, rereadKernelReread = -1;

  int qSum() const;
  /// Eq. 3 allows the one-CTA staged kernel (P = 1, sync scratch) at legalityN.
  bool stagedLegal() const;
  /// The schedule as Model.h sees it.
  Kernel modelKernel() const;
};

/// `facts` with the reread kernel running the stages of `reread` (the same
/// kernel with online statistics): its baseline and re-read bytes.
void useRereadStages(KernelFacts &facts, const KernelFacts &reread);

/// Eq. 3 rows straight from Layout.h (for synthetic facts; kernelFacts reads
/// credit-legality's table, which agrees with this by construction --
/// unit-tested).
std::vector<LegalityAtN> legalityAt(const ::credit::WorkloadGeometry &g,
                                    const ::credit::TargetInfo &target, long long N);

/// The facts of an analysed kernel, read from the attributes the analysis
/// passes and credit-schedule wrote (KernelFacts.cpp). A rejected kernel's
/// facts hold its name and classification only. Fails where an attribute is
/// missing (the errors are on the kernel).
llvm::Expected<KernelFacts> kernelFacts(mlir::credit::KernelOp kernel);

//===----------------------------------------------------------------------===//
// The prediction.
//===----------------------------------------------------------------------===//

enum class BaselineKind { Auto, Reread, Staged };

/// The largest M the model takes: a grid holds M * P <= 2^31 - 1 CTAs.
inline constexpr long long kMaxRows = 2147483647LL;

struct Query {
  long long M = 0, N = 0;
  /// T_B, ms; 0: not measured, predicted from the device's copy rate.
  double tBMs = 0;
  BaselineKind baseline = BaselineKind::Auto; // which kernel T_B timed
  /// T_slice(P), ms: the staged kernel's SMEM form at M*P rows of
  /// sliceElems(N, P). Used against a staged T_B only; a P without an entry
  /// has T_occ = 0.
  std::map<int, double> tSliceMs;
};

/// One (protocol, P) candidate with every term (times in ms).
struct Candidate {
  ::credit::Protocol protocol = ::credit::Protocol::Sync;
  int P = 2;
  bool legal = false;       // Eq. 3
  bool evaluated = false;   // legal and every profile figure it needs was there
  std::string note;         // why not evaluated
  long long smemBytes = 0;  // Eq. 3 left-hand side (the full form)
  long long slice = 0;      // sliceElems(N, P)
  double tSlice = 0;        // T_slice(P), 0: not measured
  CandidateTerms terms{};   // Model.h: the form, every term and dT
};

struct Prediction {
  std::string kernel;
  Query query;
  bool tBPredicted = false;   // T_B from the copy rate (no timing given)
  std::string baselineKernel; // "reread" or "staged" (T_B's kernel)
  bool baselineAuto = true;
  std::string baselineReason; // why, where chosen automatically (printed after "selected: ")
  std::string deviceName, profilePath, profileArch, targetArch;
  int sms = 0;
  double smClockMHz = 0, smemReadBpc = 0, smemWriteBpc = 0;
  long long bBase = 0, bReread = 0, bKeep = 0, dFixedPerElement = 0, dFixedPerRow = 0;
  BaselineTerms base{};
  /// credit::stagedForm runs a one-CTA-per-SM twin at this N: where T_occ matters.
  bool stagedOneCtaPerSm = false;
  bool anySlice = false;   // some candidate has T_slice
  std::vector<Candidate> candidates;
  std::optional<size_t> chosen;                     // best over every candidate
  std::optional<size_t> chosenSync, chosenMbarrier; // best per protocol
  std::vector<size_t> shortlist; // the candidates the dispatch times on first use (best first)
  bool profitable = false;
  std::string verdict; // "profitable", "not profitable", "no legal cluster size", ...
  std::vector<std::string> notes;
};

/// Evaluates every (protocol, P) of facts.legality. Errors: a query out of
/// range, facts for another N, a rejected kernel, no T_B and no copy rate.
llvm::Expected<Prediction> predict(const KernelFacts &facts, const DeviceProfile &profile,
                                   const Query &query);

void printPrediction(const Prediction &p, llvm::raw_ostream &os);
/// The prediction as JSON. Non-finite numbers (which JSON cannot hold) are
/// written as null.
llvm::json::Value predictionToJSON(const Prediction &p);
/// A number for JSON: the value if finite, else null.
llvm::json::Value jsonNumber(double v);

} // namespace credit::model

#endif // CREDIT_MODEL_COSTMODEL_H
