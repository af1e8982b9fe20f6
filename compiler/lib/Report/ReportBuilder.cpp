//===- ReportBuilder.cpp - Report from the analysis attributes ------------===//
#include "credit/Dialect/Credit/IR/CreditDialect.h"
#include "credit/Dialect/Credit/IR/StageOptRecord.h"
#include "credit/Report/Report.h"

#include "llvm/ADT/StringExtras.h"

using namespace credit;
using namespace mlir;

namespace {
int64_t getInt(DictionaryAttr d, StringRef key, int64_t dflt = 0) {
  if (!d)
    return dflt;
  if (auto a = d.getAs<IntegerAttr>(key))
    return a.getInt();
  return dflt;
}

std::vector<std::string> strings(Attribute a) {
  std::vector<std::string> out;
  if (auto arr = llvm::dyn_cast_or_null<ArrayAttr>(a))
    for (Attribute e : arr)
      if (auto s = llvm::dyn_cast<StringAttr>(e))
        out.push_back(s.str());
  return out;
}

std::string formatLoc(Location loc) {
  if (auto flc = loc->findInstanceOf<FileLineColLoc>())
    return (flc.getFilename().str() + ":" + llvm::Twine(flc.getLine()) + ":" +
            llvm::Twine(flc.getColumn()))
        .str();
  return "";
}
} // namespace

Report (::credit::buildReport)(Operation *op) {
  auto kernel = llvm::cast<mlir::credit::KernelOp>(op);
  Report r;
  r.kernel = kernel.getSymName().str();
  if (auto flc = kernel.getLoc()->findInstanceOf<FileLineColLoc>())
    r.file = flc.getFilename().str();

  if (auto c = kernel->getAttrOfType<DictionaryAttr>("credit.classification")) {
    r.category = c.getAs<StringAttr>("category").str();
    r.reason = c.getAs<StringAttr>("reason").str();
    if (auto l = c.getAs<LocationAttr>("location"))
      r.location = formatLoc(l);
    r.accepted = r.category == "accepted";
  }
  auto typeWord = [](Type t) -> std::string {
    if (auto row = llvm::dyn_cast<mlir::credit::RowType>(t))
      t = row.getElementType();
    if (t.isBF16() || t.isF16())
      return t.isBF16() ? "bf16" : "f16";
    if (t.isInteger(1))
      return "bool";
    if (t.isUnsignedInteger(8))
      return "u8";
    if (t.isInteger(8) || t.isInteger(32) || t.isInteger(64))
      return "i" + std::to_string(t.getIntOrFloatBitWidth());
    return "f32";
  };
  for (auto in : kernel.getInputOps())
    r.operands.push_back({in.getName().str(), false,
                          in.isRow() ? "row" : in.isBroadcast() ? "broadcast" : "scalar",
                          typeWord(in.getStorageType())});
  for (auto out : kernel.getOutputOps())
    r.operands.push_back({out.getName().str(), true,
                          mlir::credit::isRowValue(out.getValue()) ? "row" : "scalar",
                          typeWord(out.getValue().getType())});
  if (auto t = kernel->getAttrOfType<DictionaryAttr>("credit.traffic")) {
    r.L = static_cast<int>(getInt(t, "L"));
    if (auto q = t.getAs<DenseI64ArrayAttr>("q"))
      for (int64_t v : q.asArrayRef())
        r.q.push_back(static_cast<int>(v));
    r.baseline = getInt(t, "baseline");
    r.cluster = getInt(t, "cluster");
    r.keep = getInt(t, "keep");
    r.reread = getInt(t, "reread");
    r.keptInputs = strings(t.get("kept"));
    r.fixedBroadcastPerElement = getInt(t, "fixed_broadcast_per_element");
    r.fixedPerRow = getInt(t, "fixed_per_row");
    if (auto c = t.getAs<FloatAttr>("ceiling"))
      r.ceiling = c.getValueAsDouble();
  }
  for (auto stage : kernel.getStageOps()) {
    std::vector<std::string> names;
    for (unsigned i = 0; i < stage.getNumResults(); ++i)
      names.push_back(stage.getResultName(i).str());
    r.statNames.push_back(llvm::join(names, ", "));
  }
  if (auto passes = kernel->getAttrOfType<ArrayAttr>("credit.passes")) {
    for (Attribute a : passes) {
      auto d = llvm::cast<DictionaryAttr>(a);
      PassReads p;
      p.pass = d.getAs<StringAttr>("pass").str();
      p.rowInputs = strings(d.get("reads"));
      p.broadcastInputs = strings(d.get("reads_broadcast"));
      p.scalarInputs = strings(d.get("reads_scalar"));
      p.writes = strings(d.get("writes"));
      r.passes.push_back(std::move(p));
    }
  }
  if (auto k = kernel->getAttrOfType<DictionaryAttr>("credit.barriers")) {
    r.Ksync = static_cast<int>(getInt(k, "sync"));
    r.Kmbarrier = static_cast<int>(getInt(k, "mbarrier"));
  }
  if (auto leg = kernel->getAttrOfType<DictionaryAttr>("credit.legality")) {
    r.target = leg.getAs<StringAttr>("target").str();
    r.smemLimit = getInt(leg, "smem_limit");
    r.threads = static_cast<int>(getInt(leg, "threads", 256));
    if (leg.get("N"))
      r.N = getInt(leg, "N");
    if (auto table = leg.getAs<ArrayAttr>("table"))
      for (Attribute a : table) {
        auto d = llvm::cast<DictionaryAttr>(a);
        LegalityRow row;
        row.P = static_cast<int>(getInt(d, "P"));
        row.portable = d.getAs<BoolAttr>("portable").getValue();
        row.scratchBytes = getInt(d, "scratch_sync");
        row.scratchBytesMbarrier = getInt(d, "scratch_mbarrier");
        row.maxN = getInt(d, "max_N");
        if (auto legal = d.getAs<BoolAttr>("legal")) {
          row.legalAtN = legal.getValue();
          row.smemBytesAtN = getInt(d, "smem");
        }
        r.legality.push_back(row);
      }
  }
  if (std::optional<mlir::credit::StageOptRecord> so = mlir::credit::readStageOpt(kernel);
      so && (!so->moved.empty() || !so->fused.empty())) {
    using Fusion = mlir::credit::StageOptRecord::Fusion;
    const mlir::credit::StageOptRecord::AsWritten &w = so->asWritten;
    auto location = [](LocationAttr l) { return l ? formatLoc(l) : std::string(); };
    StageOptSummary sum;
    sum.L = static_cast<int>(w.L);
    for (int64_t v : w.q)
      sum.q.push_back(static_cast<int>(v));
    sum.baseline = w.baseline;
    sum.cluster = w.cluster;
    sum.keep = w.keep;
    sum.reread = w.reread;
    sum.keptInputs = w.kept;
    sum.ceiling = w.ceiling;
    sum.Ksync = static_cast<int>(w.Ksync);
    sum.Kmbarrier = static_cast<int>(w.Kmbarrier);
    for (const mlir::credit::StageOptRecord::Move &m : so->moved)
      sum.moved.push_back({m.statistic, static_cast<int>(m.from), static_cast<int>(m.to), location(m.location)});
    for (const Fusion &f : so->fused) {
      StageOptSummary::Fusion out;
      out.kind = f.kind == Fusion::Kind::Moments ? "moments" : "online";
      out.max = f.anchor;
      out.sums = f.sums;
      out.stage = static_cast<int>(f.stage);
      out.location = location(f.location);
      for (LocationAttr l : f.sumLocations)
        out.sumLocations.push_back(location(l));
      sum.fused.push_back(std::move(out));
    }
    r.stageOpt = std::move(sum);
  }
  if (std::optional<mlir::credit::MomentsAvailable> ma = mlir::credit::readMomentsAvailable(kernel)) {
    Report::MomentsAvailable m;
    m.L = static_cast<int>(ma->L);
    m.pairs = ma->pairs;
    r.momentsAvailable = std::move(m);
  }
  if (auto s = kernel->getAttrOfType<mlir::credit::ScheduleAttr>("credit.schedule")) {
    ScheduleSummary sum;
    auto names = [](llvm::ArrayRef<StringAttr> list) {
      std::vector<std::string> out;
      for (StringAttr n : list)
        out.push_back(n.str());
      return out;
    };
    sum.threads = s.getThreads();
    sum.wideThreads = s.getWideThreads();
    sum.vectorWidth = s.getVectorWidth();
    for (mlir::credit::Form f : s.getForms())
      sum.forms.push_back(mlir::credit::stringifyForm(f).str());
    sum.kept = names(s.getKept());
    sum.smemOrder = names(s.getSmem());
    for (const mlir::credit::MaterializedInput &m : s.getMaterialized()) {
      const size_t pass = static_cast<size_t>(m.pass);
      sum.materialized.push_back(
          {m.input.str(), pass < r.passes.size() ? r.passes[pass].pass : "pass " + std::to_string(pass)});
    }
    if (StringAttr drop = s.getPartialDrop())
      sum.partialDropped = drop.str();
    sum.partialDroppedReadLate = s.getPartialDropReadLate();
    sum.keptReadLate = s.getKeptReadLate();
    sum.onlyH = names(s.getOnlyH());
    sum.hoisted = names(s.getHoisted());
    sum.prefetchL2 = names(s.getPrefetchL2());
    r.schedule = std::move(sum);
  }
  return r;
}

Report (::credit::buildReport)(mlir::Operation *kernelOp, mlir::Operation *rereadKernelOp) {
  Report r = buildReport(kernelOp);
  if (!rereadKernelOp || !r.accepted)
    return r;
  Report f = buildReport(rereadKernelOp);
  RereadKernelSummary s;
  s.L = f.L;
  s.q = f.q;
  s.baseline = f.baseline;
  s.reread = f.reread;
  s.ceiling = f.ceiling;
  if (f.stageOpt)
    s.fused = f.stageOpt->fused;
  r.rereadKernel = std::move(s);
  return r;
}
