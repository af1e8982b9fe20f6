//===- StageOptRecord.cpp - credit.stage_opt, written and read back -------===//
//
// The reader takes what credit-merge-stages writes and tolerates what a
// hand-written attribute leaves out: a missing figure reads as 0, a missing
// name as empty, an entry of the wrong kind is skipped.
//
//===----------------------------------------------------------------------===//
#include "credit/Dialect/Credit/IR/StageOptRecord.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::credit;

static constexpr llvm::StringLiteral kStageOptAttr = "credit.stage_opt";
static constexpr llvm::StringLiteral kMomentsAvailableAttr = "credit.moments_available";

namespace {
int64_t intAt(DictionaryAttr d, StringRef key) {
  auto a = d ? d.getAs<IntegerAttr>(key) : IntegerAttr();
  return a ? a.getInt() : 0;
}
std::string stringAt(DictionaryAttr d, StringRef key) {
  auto a = d ? d.getAs<StringAttr>(key) : StringAttr();
  return a ? a.str() : std::string();
}
LocationAttr locationAt(DictionaryAttr d, StringRef key) {
  return d ? d.getAs<LocationAttr>(key) : LocationAttr();
}
std::vector<std::string> stringsAt(DictionaryAttr d, StringRef key) {
  std::vector<std::string> out;
  if (auto arr = d ? d.getAs<ArrayAttr>(key) : ArrayAttr())
    for (Attribute e : arr)
      if (auto s = llvm::dyn_cast<StringAttr>(e))
        out.push_back(s.str());
  return out;
}
Attribute orUnknown(Builder &b, LocationAttr l) { return l ? Attribute(l) : Attribute(b.getUnknownLoc()); }
} // namespace

void mlir::credit::writeStageOpt(KernelOp kernel, const StageOptRecord &r) {
  Builder b(kernel.getContext());
  const StageOptRecord::AsWritten &w = r.asWritten;
  llvm::SmallVector<Attribute> kept;
  for (const std::string &name : w.kept)
    kept.push_back(b.getStringAttr(name));
  DictionaryAttr written = b.getDictionaryAttr({
      b.getNamedAttr("L", b.getI64IntegerAttr(w.L)),
      b.getNamedAttr("q", b.getDenseI64ArrayAttr(w.q)),
      b.getNamedAttr("baseline", b.getI64IntegerAttr(w.baseline)),
      b.getNamedAttr("cluster", b.getI64IntegerAttr(w.cluster)),
      b.getNamedAttr("reread", b.getI64IntegerAttr(w.reread)),
      b.getNamedAttr("keep", b.getI64IntegerAttr(w.keep)),
      b.getNamedAttr("kept", b.getArrayAttr(kept)),
      b.getNamedAttr("ceiling", b.getF64FloatAttr(w.ceiling)),
      b.getNamedAttr("K_sync", b.getI64IntegerAttr(w.Ksync)),
      b.getNamedAttr("K_mbarrier", b.getI64IntegerAttr(w.Kmbarrier)),
  });
  llvm::SmallVector<Attribute> moved;
  for (const StageOptRecord::Move &m : r.moved)
    moved.push_back(b.getDictionaryAttr({
        b.getNamedAttr("statistic", b.getStringAttr(m.statistic)),
        b.getNamedAttr("from", b.getI64IntegerAttr(m.from)),
        b.getNamedAttr("to", b.getI64IntegerAttr(m.to)),
        b.getNamedAttr("location", orUnknown(b, m.location)),
    }));
  llvm::SmallVector<Attribute> fused;
  for (const StageOptRecord::Fusion &f : r.fused) {
    if (f.kind == StageOptRecord::Fusion::Kind::Moments) {
      fused.push_back(b.getDictionaryAttr({
          b.getNamedAttr("kind", b.getStringAttr("moments")),
          b.getNamedAttr("sum", b.getStringAttr(f.anchor)),
          b.getNamedAttr("squares", b.getStringAttr(f.sums.empty() ? std::string() : f.sums.front())),
          b.getNamedAttr("stage", b.getI64IntegerAttr(f.stage)),
          b.getNamedAttr("location", orUnknown(b, f.location)),
          b.getNamedAttr("squares_location",
                         orUnknown(b, f.sumLocations.empty() ? LocationAttr() : f.sumLocations.front())),
      }));
      continue;
    }
    llvm::SmallVector<Attribute> sums, locs;
    for (const std::string &s : f.sums)
      sums.push_back(b.getStringAttr(s));
    for (LocationAttr l : f.sumLocations)
      locs.push_back(orUnknown(b, l));
    fused.push_back(b.getDictionaryAttr({
        b.getNamedAttr("kind", b.getStringAttr("online")),
        b.getNamedAttr("max", b.getStringAttr(f.anchor)),
        b.getNamedAttr("sums", b.getArrayAttr(sums)),
        b.getNamedAttr("stage", b.getI64IntegerAttr(f.stage)),
        b.getNamedAttr("location", orUnknown(b, f.location)),
        b.getNamedAttr("sum_locations", b.getArrayAttr(locs)),
    }));
  }
  kernel->setAttr(kStageOptAttr, b.getDictionaryAttr({
                                     b.getNamedAttr("as_written", written),
                                     b.getNamedAttr("moved", b.getArrayAttr(moved)),
                                     b.getNamedAttr("fused", b.getArrayAttr(fused)),
                                 }));
}

std::optional<StageOptRecord> mlir::credit::readStageOpt(KernelOp kernel) {
  auto d = kernel->getAttrOfType<DictionaryAttr>(kStageOptAttr);
  auto written = d ? d.getAs<DictionaryAttr>("as_written") : DictionaryAttr();
  if (!written)
    return std::nullopt;
  StageOptRecord r;
  StageOptRecord::AsWritten &w = r.asWritten;
  w.L = intAt(written, "L");
  if (auto q = written.getAs<DenseI64ArrayAttr>("q"))
    w.q.assign(q.asArrayRef().begin(), q.asArrayRef().end());
  w.baseline = intAt(written, "baseline");
  w.cluster = intAt(written, "cluster");
  w.reread = intAt(written, "reread");
  w.keep = intAt(written, "keep");
  w.kept = stringsAt(written, "kept");
  if (auto c = written.getAs<FloatAttr>("ceiling"))
    w.ceiling = c.getValueAsDouble();
  w.Ksync = intAt(written, "K_sync");
  w.Kmbarrier = intAt(written, "K_mbarrier");
  if (auto moved = d.getAs<ArrayAttr>("moved"))
    for (Attribute a : moved)
      if (auto m = llvm::dyn_cast<DictionaryAttr>(a))
        r.moved.push_back({stringAt(m, "statistic"), intAt(m, "from"), intAt(m, "to"), locationAt(m, "location")});
  if (auto fused = d.getAs<ArrayAttr>("fused"))
    for (Attribute a : fused) {
      auto e = llvm::dyn_cast<DictionaryAttr>(a);
      const std::string kind = stringAt(e, "kind");
      if (kind != "online" && kind != "moments")
        continue;
      StageOptRecord::Fusion f;
      f.stage = intAt(e, "stage");
      f.location = locationAt(e, "location");
      if (kind == "moments") {
        f.kind = StageOptRecord::Fusion::Kind::Moments;
        f.anchor = stringAt(e, "sum");
        f.sums = {stringAt(e, "squares")};
        f.sumLocations = {locationAt(e, "squares_location")};
      } else {
        f.anchor = stringAt(e, "max");
        f.sums = stringsAt(e, "sums");
        if (auto locs = e.getAs<ArrayAttr>("sum_locations"))
          for (Attribute l : locs)
            f.sumLocations.push_back(llvm::dyn_cast<LocationAttr>(l));
      }
      r.fused.push_back(std::move(f));
    }
  return r;
}

void mlir::credit::writeMomentsAvailable(KernelOp kernel, const MomentsAvailable &available) {
  Builder b(kernel.getContext());
  llvm::SmallVector<Attribute> pairs;
  for (const auto &[sum, squares] : available.pairs)
    pairs.push_back(b.getDictionaryAttr({
        b.getNamedAttr("sum", b.getStringAttr(sum)),
        b.getNamedAttr("squares", b.getStringAttr(squares)),
    }));
  kernel->setAttr(kMomentsAvailableAttr, b.getDictionaryAttr({
                                             b.getNamedAttr("L", b.getI64IntegerAttr(available.L)),
                                             b.getNamedAttr("pairs", b.getArrayAttr(pairs)),
                                         }));
}

std::optional<MomentsAvailable> mlir::credit::readMomentsAvailable(KernelOp kernel) {
  auto d = kernel->getAttrOfType<DictionaryAttr>(kMomentsAvailableAttr);
  if (!d)
    return std::nullopt;
  MomentsAvailable m;
  m.L = intAt(d, "L");
  if (auto pairs = d.getAs<ArrayAttr>("pairs"))
    for (Attribute a : pairs) {
      auto p = llvm::dyn_cast<DictionaryAttr>(a);
      std::string sum = stringAt(p, "sum"), squares = stringAt(p, "squares");
      if (!sum.empty() && !squares.empty())
        m.pairs.emplace_back(std::move(sum), std::move(squares));
    }
  return m;
}
