//===- Evaluate.cpp - The prediction: every candidate and the choice ------===//
//
// The arithmetic is credit/runtime/Model.h (the generated dispatch evaluates
// the same functions); this file validates the query, applies it to every
// (protocol, P) of the kernel's Eq. 3 table and explains what it did.
//
//===----------------------------------------------------------------------===//
#include "credit/Model/CostModel.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <set>

using namespace llvm;
using namespace credit::model;
using ::credit::Protocol;

const char *credit::model::protocolName(Protocol p) { return p == Protocol::Sync ? "sync" : "mbarrier"; }

const char *credit::model::formName(ClusterForm f) {
  switch (f) {
  case ClusterForm::Full:
    return "full";
  case ClusterForm::Wide:
    return "wide";
  case ClusterForm::Partial:
    return "partial";
  case ClusterForm::Persistent:
    return "persistent";
  }
  return "full";
}

int KernelFacts::qSum() const {
  int s = 0;
  for (int x : q)
    s += x;
  return s;
}

bool KernelFacts::stagedLegal() const {
  for (const LegalityAtN &l : legality)
    if (l.P == 1)
      return l.legalSync;
  return false;
}

Kernel KernelFacts::modelKernel() const {
  Kernel k{};
  k.traffic = {baseline, reread, keep, fixedBroadcastPerElement, fixedPerRow, qSum()};
  if (rereadKernelBaseline >= 0) {
    k.traffic.baseline = rereadKernelBaseline;
    k.traffic.baselineReread = rereadKernelReread;
  }
  k.geometry = geometry;
  k.wideGeometry = wideGeometry;
  k.partialGeometry = hasPartialForm ? partialGeometry : geometry;
  k.hasPartial = hasPartialForm;
  k.partialDropReadLate = partialDroppedReadLate;
  k.hasPersistent = hasPersistentForm;
  k.keptReadLate = persistentKeptReadLate;
  k.hoisted = persistentHoisted;
  return k;
}

void credit::model::useRereadStages(KernelFacts &facts, const KernelFacts &reread) {
  facts.rereadKernelBaseline = reread.baseline;
  facts.rereadKernelReread = reread.reread;
}

std::vector<LegalityAtN> credit::model::legalityAt(const ::credit::WorkloadGeometry &g,
                                                   const ::credit::TargetInfo &target, long long N) {
  std::vector<LegalityAtN> rows;
  for (int P : {1, 2, 4, 8, 16}) {
    if (P > target.maxNonPortableCluster)
      break;
    LegalityAtN l;
    l.P = P;
    l.smemSync = ::credit::smemBytes(g, N, P, Protocol::Sync);
    l.smemMbarrier = ::credit::smemBytes(g, N, P, Protocol::Mbarrier);
    l.legalSync = l.smemSync <= target.smemOptinBytes;
    l.legalMbarrier = l.smemMbarrier <= target.smemOptinBytes;
    rows.push_back(l);
  }
  return rows;
}

namespace {

const LegalityAtN *legalityOf(const KernelFacts &facts, int P) {
  for (const LegalityAtN &l : facts.legality)
    if (l.P == P)
      return &l;
  return nullptr;
}

bool isLegalAt(const KernelFacts &facts, int protocol, int P) {
  const LegalityAtN *l = legalityOf(facts, P);
  return l && (protocol ? l->legalMbarrier : l->legalSync);
}

/// Why (protocol, P) cannot be evaluated with this profile ("" if it can).
std::string whyNot(const DeviceProfile &profile, int protocol, int P) {
  const Device &d = profile.device;
  const int l = log2P(P);
  const char *proto = protocol ? "mbarrier" : "sync";
  if (d.sms / P < 1)
    return formatv("a cluster of {0} needs more than the device's {1} SMs", P, d.sms).str();
  if (!(d.dsmStoreBpc[protocol][l] > 0))
    return formatv("no rates_Bpc.{0}.\"{1}\" in the profile", protocol ? "dsmem_store_async" : "dsmem_store", P)
        .str();
  for (int at : {l, 0})
    if (!d.gridMeasured[protocol][at])
      return formatv("no control_grid.{0}.\"{1}\" in the profile (nor control timings to fit it to)", proto,
                     1 << at)
          .str();
  return "";
}

} // namespace

Expected<Prediction> credit::model::predict(const KernelFacts &facts, const DeviceProfile &profile,
                                            const Query &query) {
  auto err = [](const Twine &msg) { return createStringError(inconvertibleErrorCode(), msg); };
  if (!facts.accepted)
    return err("kernel '" + facts.name + "' is rejected (" + facts.category + "): " + facts.reason);
  if (query.M < 1 || query.M > kMaxRows)
    return err(formatv("M must be in [1, {0}] (a grid holds at most 2^31 - 1 CTAs)", kMaxRows).str());
  if (query.N < 1 || query.N > ::credit::kMaxRowElems)
    return err(formatv("N must be in [1, {0}]", ::credit::kMaxRowElems).str());
  if (!(query.tBMs >= 0) || !std::isfinite(query.tBMs))
    return err("T_B must be a positive time in ms");
  for (const auto &[P, ms] : query.tSliceMs) {
    if (P != 2 && P != 4 && P != 8 && P != 16)
      return err(formatv("T_slice is given for P = {0}; cluster sizes are 2, 4, 8 and 16", P).str());
    if (!(ms > 0) || !std::isfinite(ms))
      return err(formatv("T_slice for P = {0} must be a positive time in ms", P).str());
  }
  if (facts.legalityN != query.N)
    return err(formatv("the kernel facts were computed for N = {0}, not {1}", facts.legalityN, query.N).str());

  const Device &d = profile.device;
  const Kernel k = facts.modelKernel();
  Prediction p;
  p.kernel = facts.name;
  p.query = query;
  p.deviceName = profile.deviceName;
  p.profilePath = profile.path;
  p.profileArch = profile.arch;
  p.targetArch = facts.target.arch ? facts.target.arch : "";
  p.sms = d.sms;
  p.smClockMHz = d.smClockMHz;
  p.smemReadBpc = d.smemReadBpc;
  p.smemWriteBpc = d.smemWriteBpc;
  if (!p.profileArch.empty() && p.profileArch != p.targetArch)
    p.notes.push_back("the profile was measured on " + p.profileArch + "; Eq. 3 uses target " + p.targetArch);
  if (!profile.fitted.empty())
    p.notes.push_back("the control grid is fitted to the profile's control-kernel timings (control.entries; "
                      "their per-kernel T_ctrl is not used): docs/cost-model.md");
  if (!profile.derived.empty())
    p.notes.push_back("the profile was derived, not measured by credit-calibrate: " + profile.derived);

  // The non-clustered kernel T_B timed: staged where Eq. 3 allows P = 1, unless the
  // reread kernel reads each input once (Model.h, stagedIsBaseline).
  const bool stagedLegal = facts.stagedLegal();
  p.baselineAuto = query.baseline == BaselineKind::Auto;
  if (query.baseline == BaselineKind::Staged && !stagedLegal)
    return err(formatv("the staged kernel is not legal at N = {0} (Eq. 3, P = 1)", query.N).str());
  const bool stagedAuto = stagedIsBaseline(k.traffic, k.geometry, query.N, stagedLegal, true);
  p.baselineKernel = query.baseline == BaselineKind::Reread   ? "reread"
                     : query.baseline == BaselineKind::Staged ? "staged"
                     : stagedAuto                             ? "staged"
                                                              : "reread";
  p.baselineReason = stagedAuto    ? "Eq. 3 allows P = 1"
                     : stagedLegal ? "it reads each input once"
                                   : "the row does not fit one CTA";
  const bool staged = p.baselineKernel == "staged";
  if (query.tBMs == 0) {
    p.query.tBMs = predictedBaselineMs(k, d, query.M, query.N, staged);
    if (!(p.query.tBMs > 0))
      return err("no --tB and the profile has no memory.copy_GBps to predict T_B from; give --tB or "
                 "--measure-tB");
    p.tBPredicted = true;
    p.notes.push_back(formatv("T_B predicted, not measured: the baseline's bytes at the device's copy rate "
                              "({0:F0} GB/s){1}",
                              d.copyBytesPerMs / 1e6,
                              d.globalLoadCycles > 0 ? ", plus one global-load latency per wave where it runs "
                                                       "one CTA per SM"
                                                     : "")
                          .str());
  }
  const double tB = p.query.tBMs;

  // The reread kernel's bytes (its own stages where it runs an online statistic).
  p.bBase = k.traffic.baseline;
  p.bReread = baselineRereadBytes(k.traffic);
  if (facts.rereadKernelBaseline >= 0)
    p.notes.push_back(formatv("the reread kernel runs its own stages (online statistics): b_B {0}, "
                              "b_reread {1}; the kernels that keep the row replay {2} B/element from SMEM",
                              p.bBase, p.bReread, facts.reread)
                          .str());
  p.bKeep = facts.keep;
  p.dFixedPerElement = facts.fixedBroadcastPerElement;
  p.dFixedPerRow = facts.fixedPerRow;
  p.base = baselineTerms(k.traffic, query.M, query.N, tB, staged);
  p.anySlice = staged && !query.tSliceMs.empty();
  p.stagedOneCtaPerSm =
      staged && isOneCtaPerSmForm(stagedForm(facts.geometry, query.N, true, d.smemPerSm, d.smemOptin));
  if (facts.reread == 0)
    p.notes.push_back("b_reread = 0: nothing to save, no P can win");
  else if (staged && !p.anySlice)
    p.notes.push_back("T_B is the staged kernel's, which rereads nothing from HBM: no HBM time to save "
                      "(T_saved = 0)");
  else if (staged)
    p.notes.push_back("T_B is the staged kernel's, which rereads nothing from HBM (T_saved = 0); a P can win "
                      "only by occupancy, T_occ = T_B - T_slice(P)");
  if (!query.tSliceMs.empty() && !staged)
    p.notes.push_back("T_slice is ignored: T_B is the reread kernel's, whose saving is T_saved");
  if (p.stagedOneCtaPerSm && !p.anySlice)
    p.notes.push_back("the staged kernel runs one CTA per SM at this N (its row fills an SM), where a "
                      "cluster's higher occupancy can win; give --t-slice (or --measure-tB, which measures "
                      "it) to price it as T_occ");

  std::vector<std::string> missing;
  for (int protocol : {0, 1}) {
    for (const LegalityAtN &l : facts.legality) {
      if (l.P < 2)
        continue;
      Candidate c;
      c.protocol = protocol ? Protocol::Mbarrier : Protocol::Sync;
      c.P = l.P;
      c.legal = protocol ? l.legalMbarrier : l.legalSync;
      c.smemBytes = protocol ? l.smemMbarrier : l.smemSync;
      c.slice = ::credit::sliceElems(query.N, l.P);
      if (!c.legal) {
        c.note = "not legal (Eq. 3)";
        p.candidates.push_back(c);
        continue;
      }
      if (std::string why = whyNot(profile, protocol, l.P); !why.empty()) {
        c.note = why;
        missing.push_back(why);
        p.candidates.push_back(c);
        continue;
      }
      auto slice = staged ? query.tSliceMs.find(l.P) : query.tSliceMs.end();
      c.tSlice = slice != query.tSliceMs.end() ? slice->second : 0.0;
      c.terms = candidateTerms(k, d, p.base, protocol, l.P, query.M, query.N, staged,
                               occupancySaving(staged, tB, c.tSlice));
      c.evaluated = true;
      p.candidates.push_back(c);
    }
  }

  // The choice and the shortlist, exactly as the dispatch ranks them (Model.h).
  double tSlice[kNumClusterSizes] = {};
  for (const auto &[P, ms] : query.tSliceMs)
    tSlice[log2P(P)] = ms;
  const Ranked ranked = rankCandidates(k, d, query.M, query.N, tB, staged, tSlice,
                                       [&](int protocol, int P) { return isLegalAt(facts, protocol, P); });
  auto indexOf = [&](int protocol, int P) -> std::optional<size_t> {
    for (size_t i = 0; i < p.candidates.size(); ++i)
      if (static_cast<int>(p.candidates[i].protocol) == protocol && p.candidates[i].P == P)
        return i;
    return std::nullopt;
  };
  if (ranked.count > 0)
    p.chosen = indexOf(ranked.protocol[0], ranked.P[0]);
  for (int i = 0; i < ranked.count; ++i) {
    std::optional<size_t> &best = ranked.protocol[i] ? p.chosenMbarrier : p.chosenSync;
    if (!best)
      best = indexOf(ranked.protocol[i], ranked.P[i]);
    if (inShortlist(ranked, i, tB))
      p.shortlist.push_back(*indexOf(ranked.protocol[i], ranked.P[i]));
  }

  // The forms the launcher runs where it does not run the full one.
  std::map<std::string, std::string> formsAt; // form -> "P = 4 (mbarrier); ..."
  for (const Candidate &c : p.candidates)
    if (c.evaluated && c.terms.form != ClusterForm::Full) {
      std::string &s = formsAt[formName(c.terms.form)];
      s += (s.empty() ? "" : ", ") + formatv("P = {0} {1}", c.P, protocolName(c.protocol)).str();
    }
  for (const auto &[form, where] : formsAt)
    p.notes.push_back(formatv("the cluster launcher runs the {0} form at {1} (priced as that form: "
                              "docs/cost-model.md)",
                              form, where)
                          .str());
  if (d.globalLoadCycles == 0)
    p.notes.push_back("the profile has no latency_cycles.global_load: forms of one CTA per SM are priced "
                      "without their exposed load latency");

  bool anyLegal = false;
  for (const Candidate &c : p.candidates)
    anyLegal |= c.legal;
  if (!anyLegal) {
    p.verdict = "no legal cluster size";
    return p;
  }
  if (!p.chosen) {
    std::string all;
    for (const std::string &m : std::set<std::string>(missing.begin(), missing.end()))
      all += "\n  " + m;
    return err("the profile cannot evaluate any legal cluster size:" + all);
  }
  p.profitable = p.candidates[*p.chosen].terms.deltaT > 0;
  p.verdict = p.profitable ? "profitable" : "not profitable";
  return p;
}
