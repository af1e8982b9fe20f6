//===- Report.cpp - The prediction as text and as JSON --------------------===//
#include "credit/Model/CostModel.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <set>

using namespace llvm;
using namespace credit::model;

json::Value credit::model::jsonNumber(double v) {
  if (std::isfinite(v))
    return v;
  return nullptr;
}

namespace {
/// "+0.0612" / "-0.0040": the sign of dT is the verdict, so it is always shown.
std::string signedMs(double v) {
  if (!std::isfinite(v))
    return "n/a";
  return (v >= 0 ? "+" : "") + formatv("{0:F4}", v).str();
}
} // namespace

void credit::model::printPrediction(const Prediction &p, raw_ostream &os) {
  const Query &q = p.query;
  os << formatv("prediction for '{0}' at M = {1}, N = {2} (target {3})\n", p.kernel, q.M, q.N, p.targetArch);
  os << formatv("profile: {0} ({1}): S = {2} SMs, f = {3:F1} MHz, B_SMEM^r = {4:F2} B/clk, "
                "B_SMEM^w = {5:F2} B/clk\n",
                p.deviceName, p.profilePath, p.sms, p.smClockMHz, p.smemReadBpc, p.smemWriteBpc);
  os << formatv("baseline: {0} kernel{1}, T_B = {2:F4} ms{3}\n", p.baselineKernel,
                p.baselineAuto ? " (selected: " + p.baselineReason + ")" : "",
                q.tBMs, p.tBPredicted ? " (predicted)" : "");
  const bool staged = p.baselineKernel == "staged";
  if (staged) // each input read once: b_B - b_reread
    os << formatv("  D_base    = M (N (b_B - b_reread {0} + D_fixed {1}) + {2}) = {3:F0} B        (Eq. 5)\n",
                  p.bBase - p.bReread, p.dFixedPerElement, p.dFixedPerRow, p.base.dBaseBytes);
  else
    os << formatv("  D_base    = M (N (b_B {0} + D_fixed {1}) + {2}) = {3:F0} B        (Eq. 5)\n", p.bBase,
                  p.dFixedPerElement, p.dFixedPerRow, p.base.dBaseBytes);
  os << formatv("  R_B       = D_base / T_B = {0:F1} GB/s                            (Eq. 7)\n",
                p.base.rateBytesPerMs / 1e6);
  if (staged)
    os << "  T_saved   = 0 ms (the staged kernel rereads nothing from HBM)\n";
  else
    os << formatv("  T_saved   = M N b_reread {0} / R_B = {1:F4} ms\n", p.bReread, p.base.tRereadSaved);
  os << formatv("  T_input   = M N b_keep {0} / R_B = {1:F4} ms\n", p.bKeep, p.base.tInput);
  if (p.anySlice)
    os << "  T_occ(P)  = T_B - T_slice(P), T_slice: the staged kernel (SMEM form) at M*P rows of slice(N, P)\n";
  os << "\n";
  os << formatv("  {0,-9} {1,3} {2,-5} {3,8} {4,-10} {5,3} {6,5} {7,9} {8,9} {9,10} {10,9} {11,9} {12,9} {13,10}\n",
                "protocol", "P", "Eq.3", "smem B", "form", "k", "W", "T_ctrl", "T_replay", "T_DSM", "T_deposit",
                "T_lat", "T_refetch", "dT (ms)");
  for (size_t i = 0; i < p.candidates.size(); ++i) {
    const Candidate &c = p.candidates[i];
    os << formatv("  {0,-9} {1,3} {2,-5} {3,8} ", protocolName(c.protocol), c.P, c.legal ? "yes" : "no",
                  c.smemBytes);
    if (!c.evaluated) {
      os << "  not evaluated: " << c.note << "\n";
      continue;
    }
    const CandidateTerms &t = c.terms;
    os << formatv("{0,-10} {1,3} {2,5} {3,9:F4} {4,9:F4} {5,10:F6} {6,9:F4} {7,9:F4} {8,9:F4} {9,10}{10}\n",
                  formName(t.form), t.ctasPerSm, t.W, t.tCtrl, t.tReplay, t.tDSM, t.tDeposit, t.tLatency,
                  t.tRefetch, signedMs(t.deltaT), p.chosen && *p.chosen == i ? "  <-" : "");
  }
  if (p.anySlice) {
    os << "\n  T_occ per P (added to dT above):";
    std::set<int> shown; // T_occ depends on P only
    for (const Candidate &c : p.candidates)
      if (c.evaluated && shown.insert(c.P).second)
        os << formatv(c.tSlice > 0 ? "  P = {0}: {1:F4} - {2:F4} = {3}" : "  P = {0}: not measured", c.P, q.tBMs,
                      c.tSlice, signedMs(c.terms.tOcc));
    os << "\n";
  }
  os << "\n";
  for (const std::string &n : p.notes)
    os << "note: " << n << "\n";
  if (!p.chosen) {
    os << formatv("verdict: {0}: Eq. 3 allows no cluster size at N = {1}\n", p.verdict, q.N);
    return;
  }
  const Candidate &c = p.candidates[*p.chosen];
  const CandidateTerms &t = c.terms;
  os << formatv("chosen: P = {0}, {1} protocol, {2} form: dT = T_saved + T_occ - T_ctrl - T_replay - T_DSM - "
                "T_deposit - T_lat - T_refetch = {3:F4} + {4:F4} - {5:F4} - {6:F4} - {7:F6} - {8:F4} - {9:F4} - "
                "{10:F4} = {11} ms\n",
                c.P, protocolName(c.protocol), formName(t.form), p.base.tRereadSaved, t.tOcc, t.tCtrl, t.tReplay,
                t.tDSM, t.tDeposit, t.tLatency, t.tRefetch, signedMs(t.deltaT));
  if (!p.shortlist.empty()) {
    os << "first use (measure mode): times the baseline and";
    for (size_t i : p.shortlist)
      os << formatv(" {0} P = {1}", protocolName(p.candidates[i].protocol), p.candidates[i].P)
         << (i == p.shortlist.back() ? "" : ",");
    os << ", then runs the fastest\n";
  }
  os << formatv("verdict: {0} (predicted clustered time T_B - dT = {1:F4} ms, {2:F3}x)\n", p.verdict,
                q.tBMs - t.deltaT, q.tBMs / (q.tBMs - t.deltaT));
}

json::Value credit::model::predictionToJSON(const Prediction &p) {
  json::Array cands;
  for (const Candidate &c : p.candidates) {
    json::Object o{{"protocol", protocolName(c.protocol)},
                   {"P", c.P},
                   {"legal", c.legal},
                   {"evaluated", c.evaluated},
                   {"smem_bytes", c.smemBytes},
                   {"slice", c.slice}};
    if (!c.evaluated) {
      o["note"] = c.note;
    } else {
      const CandidateTerms &t = c.terms;
      o["form"] = formName(t.form);
      o["ctas_per_sm"] = t.ctasPerSm;
      o["clusters_per_wave"] = t.clustersPerWave;
      o["W"] = t.W;
      o["T_ctrl_ms"] = jsonNumber(t.tCtrl);
      o["replay_bytes_per_cta"] = jsonNumber(t.replayBytesPerCta);
      o["dsm_bytes_per_cta"] = jsonNumber(t.dsmBytesPerCta);
      o["deposit_bytes_per_cta"] = jsonNumber(t.depositBytesPerCta);
      o["T_replay_ms"] = jsonNumber(t.tReplay);
      o["T_DSM_ms"] = jsonNumber(t.tDSM);
      o["T_SMEM_w_ms"] = jsonNumber(t.tSmemW);
      o["T_deposit_ms"] = jsonNumber(t.tDeposit);
      o["T_lat_ms"] = jsonNumber(t.tLatency);
      o["T_refetch_ms"] = jsonNumber(t.tRefetch);
      if (c.tSlice > 0) {
        o["T_slice_ms"] = jsonNumber(c.tSlice);
        o["T_occ_ms"] = jsonNumber(t.tOcc);
      }
      o["delta_T_ms"] = jsonNumber(t.deltaT);
    }
    cands.push_back(std::move(o));
  }
  auto choice = [&](std::optional<size_t> i) -> json::Value {
    if (!i)
      return nullptr;
    const Candidate &c = p.candidates[*i];
    return json::Object{{"protocol", protocolName(c.protocol)},
                        {"P", c.P},
                        {"form", formName(c.terms.form)},
                        {"delta_T_ms", jsonNumber(c.terms.deltaT)},
                        {"predicted_ms", jsonNumber(p.query.tBMs - c.terms.deltaT)}};
  };
  json::Array shortlist;
  for (size_t i : p.shortlist)
    shortlist.push_back(choice(i));
  json::Array notes;
  for (const std::string &n : p.notes)
    notes.push_back(n);
  return json::Object{
      {"kernel", p.kernel},
      {"M", p.query.M},
      {"N", p.query.N},
      {"target", p.targetArch},
      {"T_B_ms", jsonNumber(p.query.tBMs)},
      {"T_B_predicted", p.tBPredicted},
      {"baseline", p.baselineKernel},
      {"baseline_selected", p.baselineAuto},
      {"profile",
       json::Object{{"path", p.profilePath},
                    {"device", p.deviceName},
                    {"arch", p.profileArch},
                    {"sms", p.sms},
                    {"sm_clock_MHz", jsonNumber(p.smClockMHz)},
                    {"smem_read_Bpc", jsonNumber(p.smemReadBpc)},
                    {"smem_write_Bpc", jsonNumber(p.smemWriteBpc)}}},
      {"bytes_per_element",
       json::Object{{"baseline", p.bBase},
                    {"reread", p.bReread},
                    {"keep", p.bKeep},
                    {"fixed_broadcast", p.dFixedPerElement}}},
      {"fixed_bytes_per_row", p.dFixedPerRow},
      {"D_base_bytes", jsonNumber(p.base.dBaseBytes)},
      {"R_B_GBps", jsonNumber(p.base.rateBytesPerMs / 1e6)},
      {"T_reread_saved_ms", jsonNumber(p.base.tRereadSaved)},
      {"T_input_ms", jsonNumber(p.base.tInput)},
      {"staged_one_cta_per_sm", p.stagedOneCtaPerSm},
      {"candidates", std::move(cands)},
      {"chosen", choice(p.chosen)},
      {"chosen_sync", choice(p.chosenSync)},
      {"chosen_mbarrier", choice(p.chosenMbarrier)},
      {"shortlist", std::move(shortlist)},
      {"profitable", p.profitable},
      {"verdict", p.verdict},
      {"notes", std::move(notes)},
  };
}
