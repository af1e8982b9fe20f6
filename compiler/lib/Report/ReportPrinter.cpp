//===- ReportPrinter.cpp - Text and JSON forms of the report --------------===//
#include "credit/Report/Report.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace credit;

namespace {
std::string joinOr(const std::vector<std::string> &v, llvm::StringRef none) {
  return v.empty() ? none.str() : llvm::join(v, ", ");
}

std::string kib(long long bytes) {
  if (bytes % 1024 == 0)
    return llvm::formatv("{0} KiB", bytes / 1024).str();
  return llvm::formatv("{0:f1} KiB", bytes / 1024.0).str();
}
std::string list(const std::vector<int> &v) {
  std::vector<std::string> s;
  for (int x : v)
    s.push_back(std::to_string(x));
  return "[" + llvm::join(s, ", ") + "]";
}

void printFusions(const std::vector<StageOptSummary::Fusion> &fused, llvm::raw_ostream &os);

void printStageOptText(const StageOptSummary &s, llvm::raw_ostream &os) {
  os << "  as written     L = " << s.L << ", q = " << list(s.q) << "; baseline " << s.baseline
     << ", cluster " << s.cluster << ", reread " << s.reread << ", keep " << s.keep
     << llvm::formatv("; ceiling {0:f2}x; K sync {1}", s.ceiling, s.Ksync).str()
     << " (--no-stage-opt runs this)\n";
  printFusions(s.fused, os);
  for (const StageOptSummary::Move &m : s.moved)
    os << "    moved        " << m.statistic << " from stage " << m.from << " to stage " << m.to << " ("
       << m.location << ")\n";
}

void printFusions(const std::vector<StageOptSummary::Fusion> &fused, llvm::raw_ostream &os) {
  for (const StageOptSummary::Fusion &f : fused) {
    std::vector<std::string> sums;
    for (size_t i = 0; i < f.sums.size(); ++i)
      sums.push_back(f.sums[i] + (i < f.sumLocations.size() ? " (" + f.sumLocations[i] + ")" : ""));
    os << "    fused        " << f.max << " (" << f.location << ") with " << llvm::join(sums, ", ")
       << (f.kind == "moments" ? ": one count / sum / centred-sum-of-squares statistic in stage "
                               : ": one online max / sum-of-exp statistic in stage ")
       << f.stage << "\n";
  }
}

llvm::json::Array fusionsToJSON(const std::vector<StageOptSummary::Fusion> &fused) {
  llvm::json::Array out;
  for (const StageOptSummary::Fusion &f : fused) {
    llvm::json::Array sums, locs;
    for (const std::string &x : f.sums)
      sums.push_back(x);
    for (const std::string &x : f.sumLocations)
      locs.push_back(x);
    if (f.kind == "moments")
      out.push_back(llvm::json::Object{{"kind", f.kind},
                                       {"sum", f.max},
                                       {"squares", f.sums.empty() ? std::string() : f.sums[0]},
                                       {"stage", f.stage},
                                       {"location", f.location},
                                       {"squares_location",
                                        f.sumLocations.empty() ? std::string() : f.sumLocations[0]}});
    else
      out.push_back(llvm::json::Object{{"kind", f.kind},
                                       {"max", f.max},
                                       {"sums", std::move(sums)},
                                       {"stage", f.stage},
                                       {"location", f.location},
                                       {"sum_locations", std::move(locs)}});
  }
  return out;
}

void printRereadKernelText(const RereadKernelSummary &s, llvm::raw_ostream &os) {
  os << "  reread kernel  L = " << s.L << ", q = " << list(s.q) << "; baseline " << s.baseline << ", reread "
     << s.reread << llvm::formatv("; ceiling {0:f2}x", s.ceiling).str()
     << " (its own stages; the kernels that keep the row run those above: --fuse-online=none|all)\n";
  printFusions(s.fused, os);
}

void printScheduleText(const ScheduleSummary &s, llvm::raw_ostream &os) {
  os << "  schedule       " << s.threads << " threads per CTA";
  if (s.wideThreads)
    os << ", wide-CTA twins " << s.wideThreads;
  os << "; " << s.forms.size() << " kernel forms; runs of " << s.vectorWidth << " elements\n";
  os << "    forms        " << joinOr(s.forms, "none") << "\n";
  os << "    kept         " << joinOr(s.kept, "none") << " (first-read order)";
  if (!s.kept.empty())
    os << "; SMEM arrays " << llvm::join(s.smemOrder, ", ");
  if (s.keptReadLate)
    os << "; some first read after the first pass";
  os << "\n";
  for (const ScheduleSummary::Materialized &m : s.materialized)
    os << "    materialized " << m.input << " held as T(" << m.input << ") from " << m.pass << " on\n";
  if (!s.partialDropped.empty())
    os << "    partial form re-reads " << s.partialDropped << " from global memory"
       << (s.partialDroppedReadLate ? " (first read after the first pass)" : "") << "\n";
  os << "    only h reads " << joinOr(s.onlyH, "none");
  if (!s.onlyH.empty())
    os << " (hoisted: " << joinOr(s.hoisted, "none") << "; prefetched into L2: "
       << joinOr(s.prefetchL2, "none") << ")";
  os << "\n";
}
} // namespace

/// The kernel that can run at --N: "cluster" (some P > 1 fits), "staged"
/// (only the one-CTA staged kernel keeps the row on chip) or "reread" (none
/// does: the global-reread baseline).
static llvm::StringRef whatRuns(const Report &r) {
  bool cluster = false, staged = false;
  for (const LegalityRow &row : r.legality)
    if (row.legalAtN && *row.legalAtN)
      (row.P == 1 ? staged : cluster) = true;
  return cluster ? "cluster" : staged ? "staged" : "reread";
}

static llvm::StringRef whatRunsText(const Report &r) {
  llvm::StringRef w = whatRuns(r);
  const bool clusters = llvm::any_of(r.legality, [](const LegalityRow &row) { return row.P > 1; });
  if (!clusters)
    return w == "staged" ? "the one-CTA staged kernel (the target has no clusters)"
                         : "the row does not fit one CTA and the target has no clusters: only the "
                           "global-reread kernel runs (no on-chip reuse, no speedup); launch_staged "
                           "returns NotLegal (7)";
  if (w == "cluster")
    return "the clustered kernels, at the legal P above";
  if (w == "staged")
    return "no cluster size fits: only the one-CTA staged kernel keeps the row on chip; "
           "launch_cluster returns NotLegal (7)";
  return "no cluster size fits and the row does not fit one CTA: only the global-reread "
         "kernel runs (no on-chip reuse, no speedup); launch_cluster and launch_staged return "
         "NotLegal (7)";
}

void credit::printReportText(const Report &r, llvm::raw_ostream &os) {
  os << "kernel " << r.kernel;
  if (!r.file.empty())
    os << " (" << r.file << ")";
  os << "\n";
  if (r.accepted)
    os << "  verdict        accepted: clustered DSMEM staging removes re-read traffic\n";
  else
    os << "  verdict        rejected (" << r.category << ")\n";
  if (!r.reason.empty())
    os << "  reason         " << r.reason << "\n";
  if (!r.location.empty())
    os << "  location       " << r.location << "\n";

  if (!r.operands.empty()) {
    std::vector<std::string> ops;
    for (const OperandSummary &o : r.operands)
      ops.push_back((o.output ? "out " : "in ") + o.name + ": " + o.type +
                    (o.kind == "scalar" ? "" : "[N]") + (o.kind == "broadcast" ? " broadcast" : ""));
    os << "  operands       " << llvm::join(ops, ", ") << " (arithmetic in f32)\n";
  }
  os << "  stages         L = " << r.L;
  if (r.L) {
    int sum = 0;
    std::vector<std::string> qs;
    for (int v : r.q) {
      qs.push_back(std::to_string(v));
      sum += v;
    }
    os << ", q = [" << llvm::join(qs, ", ") << "] (sum " << sum << ")";
  }
  os << "\n";
  for (size_t s = 0; s < r.statNames.size(); ++s)
    os << "                 stage " << s + 1 << ": " << r.statNames[s] << "\n";

  os << "  passes         (row inputs each pass streams in the global-reread schedule)\n";
  for (const PassReads &p : r.passes) {
    os << llvm::formatv("    {0,-11}  reads {1}", p.pass, joinOr(p.rowInputs, "no row input"));
    if (!p.broadcastInputs.empty())
      os << "; broadcast " << llvm::join(p.broadcastInputs, ", ");
    if (!p.writes.empty())
      os << "; writes " << llvm::join(p.writes, ", ") << " (no statistic needed)";
    os << "\n";
  }

  os << "  bytes/element  baseline " << r.baseline << ", cluster " << r.cluster << ", reread "
     << r.reread << ", keep " << r.keep;
  if (!r.keptInputs.empty())
    os << " (" << llvm::join(r.keptInputs, ", ") << " kept in shared memory)";
  os << "\n";
  os << "  fixed traffic  " << r.fixedBroadcastPerElement
     << " B/element from broadcast vectors, " << r.fixedPerRow
     << " B/row of per-row values (D_fixed: the same in both schedules)\n";
  os << llvm::formatv("  ceiling        {0:f2}x traffic-only speedup (baseline / cluster)\n",
                      r.ceiling);
  os << "  barriers K     sync " << r.Ksync << " (2 cluster barriers per stage), mbarrier "
     << r.Kmbarrier << " (one cluster barrier at set-up)\n";
  if (r.stageOpt)
    printStageOptText(*r.stageOpt, os);
  if (r.rereadKernel)
    printRereadKernelText(*r.rereadKernel, os);
  if (r.momentsAvailable) {
    std::vector<std::string> pairs;
    for (const auto &[sum, squares] : r.momentsAvailable->pairs)
      pairs.push_back(sum + " with " + squares);
    os << "  available      --fuse-moments: " << llvm::join(pairs, ", ")
       << " as one count / sum / centred-sum-of-squares statistic, L = " << r.momentsAvailable->L
       << " (one pass and one exchange fewer per stage removed)\n";
  }

  if (!r.target.empty()) {
    os << "  legality       Eq. 3 on " << r.target << ": keep*ceil(N/P) + S_scratch <= "
       << r.smemLimit << " B (" << kib(r.smemLimit) << ") per CTA of " << r.threads
       << " threads\n";
    os << "      P  cluster        S_scratch(sync/mbar)   max N";
    if (r.N)
      os << llvm::formatv("       smem at N={0}", *r.N);
    os << "\n";
    for (const LegalityRow &row : r.legality) {
      std::string kind = row.P == 1 ? "staged (1 CTA)" : row.portable ? "portable" : "non-portable";
      os << llvm::formatv("    {0,3}  {1,-14} {2,6} / {3,-6}       {4,-11}", row.P, kind,
                          row.scratchBytes, row.scratchBytesMbarrier, row.maxN);
      if (r.N && row.legalAtN)
        os << llvm::formatv(" {0,8} B  {1}", row.smemBytesAtN, *row.legalAtN ? "legal" : "too large");
      os << "\n";
    }
    if (r.N) {
      std::vector<std::string> legal;
      for (const LegalityRow &row : r.legality)
        if (row.legalAtN && *row.legalAtN)
          legal.push_back(std::to_string(row.P));
      os << "  legal P at N=" << *r.N << ": " << (legal.empty() ? "none" : llvm::join(legal, ", "))
         << "\n";
      if (r.accepted)
        os << "  runs at N=" << *r.N << ": " << whatRunsText(r) << "\n";
    }
  }
  if (r.schedule)
    printScheduleText(*r.schedule, os);
}

llvm::json::Value credit::reportToJSON(const Report &r) {
  llvm::json::Array q;
  for (int v : r.q)
    q.push_back(v);
  llvm::json::Array passes;
  for (const PassReads &p : r.passes) {
    llvm::json::Array rows, bcast, scal;
    for (auto &s : p.rowInputs)
      rows.push_back(s);
    for (auto &s : p.broadcastInputs)
      bcast.push_back(s);
    llvm::json::Object pass{{"pass", p.pass},
                            {"row_inputs", std::move(rows)},
                            {"broadcast_inputs", std::move(bcast)}};
    if (!p.writes.empty()) {
      llvm::json::Array writes;
      for (auto &s : p.writes)
        writes.push_back(s);
      pass["writes"] = std::move(writes);
    }
    passes.push_back(std::move(pass));
  }
  llvm::json::Array kept;
  for (auto &s : r.keptInputs)
    kept.push_back(s);
  llvm::json::Array operands;
  for (const OperandSummary &o : r.operands)
    operands.push_back(llvm::json::Object{
        {"name", o.name}, {"role", o.output ? "out" : "in"}, {"kind", o.kind}, {"type", o.type}});
  llvm::json::Object out{
      {"kernel", r.kernel},
      {"file", r.file},
      {"accepted", r.accepted},
      {"category", r.category},
      {"reason", r.reason},
      {"location", r.location},
      {"operands", std::move(operands)},
      {"L", r.L},
      {"q", std::move(q)},
      {"K", llvm::json::Object{{"sync", r.Ksync}, {"mbarrier", r.Kmbarrier}}},
      {"bytes_per_element", llvm::json::Object{{"baseline", r.baseline},
                                               {"cluster", r.cluster},
                                               {"keep", r.keep},
                                               {"reread", r.reread}}},
      {"kept_inputs", std::move(kept)},
      {"fixed", llvm::json::Object{{"broadcast_bytes_per_element", r.fixedBroadcastPerElement},
                                   {"bytes_per_row", r.fixedPerRow}}},
      {"ceiling", r.ceiling},
      {"passes", std::move(passes)},
  };
  if (!r.target.empty()) {
    llvm::json::Array table;
    for (const LegalityRow &row : r.legality) {
      llvm::json::Object o{{"P", row.P},
                           {"portable", row.portable},
                           {"scratch_bytes", llvm::json::Object{{"sync", row.scratchBytes},
                                                                {"mbarrier", row.scratchBytesMbarrier}}},
                           {"max_N", row.maxN}};
      if (row.legalAtN) {
        o["smem_bytes"] = row.smemBytesAtN;
        o["legal"] = *row.legalAtN;
      }
      table.push_back(std::move(o));
    }
    llvm::json::Object leg{{"target", r.target},
                           {"smem_limit_bytes", r.smemLimit},
                           {"threads", r.threads},
                           {"table", std::move(table)}};
    if (r.N) {
      leg["N"] = *r.N;
      llvm::json::Array legal;
      for (const LegalityRow &row : r.legality)
        if (row.legalAtN && *row.legalAtN)
          legal.push_back(row.P);
      leg["legal_P"] = std::move(legal);
      if (r.accepted)
        leg["runs"] = whatRuns(r);
    }
    out["legality"] = std::move(leg);
  }
  if (r.stageOpt) {
    const StageOptSummary &s = *r.stageOpt;
    llvm::json::Array wq, kept, moved;
    for (int v : s.q)
      wq.push_back(v);
    for (const std::string &k : s.keptInputs)
      kept.push_back(k);
    for (const StageOptSummary::Move &m : s.moved)
      moved.push_back(llvm::json::Object{{"statistic", m.statistic},
                                         {"from_stage", m.from},
                                         {"to_stage", m.to},
                                         {"location", m.location}});
    llvm::json::Array fused = fusionsToJSON(s.fused);
    out["as_written"] = llvm::json::Object{
        {"L", s.L},
        {"q", std::move(wq)},
        {"K", llvm::json::Object{{"sync", s.Ksync}, {"mbarrier", s.Kmbarrier}}},
        {"bytes_per_element", llvm::json::Object{{"baseline", s.baseline},
                                                 {"cluster", s.cluster},
                                                 {"keep", s.keep},
                                                 {"reread", s.reread}}},
        {"kept_inputs", std::move(kept)},
        {"ceiling", s.ceiling},
    };
    out["stage_opt"] = llvm::json::Object{{"moved", std::move(moved)}, {"fused", std::move(fused)}};
  }
  if (r.momentsAvailable) {
    llvm::json::Array pairs;
    for (const auto &[sum, squares] : r.momentsAvailable->pairs)
      pairs.push_back(llvm::json::Object{{"sum", sum}, {"squares", squares}});
    out["moments_available"] = llvm::json::Object{{"L", r.momentsAvailable->L}, {"pairs", std::move(pairs)}};
  }
  if (r.rereadKernel) {
    const RereadKernelSummary &s = *r.rereadKernel;
    llvm::json::Array q;
    for (int v : s.q)
      q.push_back(v);
    out["reread_kernel"] = llvm::json::Object{
        {"L", s.L},
        {"q", std::move(q)},
        {"bytes_per_element", llvm::json::Object{{"baseline", s.baseline}, {"reread", s.reread}}},
        {"ceiling", s.ceiling},
        {"fused", fusionsToJSON(s.fused)},
    };
  }
  if (r.schedule) {
    const ScheduleSummary &s = *r.schedule;
    auto array = [](const std::vector<std::string> &v) {
      llvm::json::Array a;
      for (const std::string &x : v)
        a.push_back(x);
      return a;
    };
    llvm::json::Array materialized;
    for (const ScheduleSummary::Materialized &m : s.materialized)
      materialized.push_back(llvm::json::Object{{"input", m.input}, {"stored_by", m.pass}});
    out["schedule"] = llvm::json::Object{
        {"threads", s.threads},
        {"wide_threads", s.wideThreads},
        {"vector_width", s.vectorWidth},
        {"forms", array(s.forms)},
        {"kept", array(s.kept)},
        {"smem_order", array(s.smemOrder)},
        {"materialized", std::move(materialized)},
        {"partial_dropped", s.partialDropped.empty() ? llvm::json::Value(nullptr)
                                                     : llvm::json::Value(s.partialDropped)},
        {"partial_dropped_read_late", s.partialDroppedReadLate},
        {"kept_read_late", s.keptReadLate},
        {"only_h", array(s.onlyH)},
        {"hoisted", array(s.hoisted)},
        {"prefetch_l2", array(s.prefetchL2)},
    };
  }
  return llvm::json::Value(std::move(out));
}
