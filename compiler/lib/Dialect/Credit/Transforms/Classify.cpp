//===- Classify.cpp - credit-classify -------------------------------------===//
//
// Structural rejection (the paper's three rejection classes, plus the two
// degenerate cases). The structural constructs (scan, stencil, selection) come
// first, and among them the one earliest in the source decides; then:
//   scan       a prefix scan carries an ordered dependency along the row: split
//              over P CTAs it needs an ordered hand-off per slice boundary, so
//              K grows with P instead of staying at 2L;
//   stencil    neighbour access needs halo elements of the row itself from the
//              peer that owns them: remote state grows with N, not with Σq_ℓ;
//   selection  median / quantile / top-k / sort are not associative reductions
//              of a compact partial: merging slices needs state that grows
//              with N;
//   elementwise no stage: the row is read once, there is no statistic;
//   one-pass   no row input is read by two passes: b_reread = 0, nothing to
//              amortize (outputs that need no statistic count as written in
//              the first pass, computePassAccess).
// The first structural construct in source order decides the category; the
// location names it. Runs after canonicalization, so dead code does not count.
//
//===----------------------------------------------------------------------===//
#include "credit/Dialect/Credit/IR/StageOptRecord.h"
#include "credit/Dialect/Credit/Transforms/Analyses.h"
#include "credit/Dialect/Credit/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"

namespace mlir::credit {
#define GEN_PASS_DEF_CREDITCLASSIFY
#include "credit/Dialect/Credit/Transforms/Passes.h.inc"
} // namespace mlir::credit

using namespace mlir;
using namespace mlir::credit;

namespace {
std::pair<unsigned, unsigned> lineCol(Location loc) {
  if (auto flc = loc->findInstanceOf<FileLineColLoc>())
    return {flc.getLine(), flc.getColumn()};
  return {~0u, ~0u};
}

/// Name of the input whose element argument `v` is, or "?".
std::string inputNameOf(Value v) {
  auto arg = llvm::dyn_cast<BlockArgument>(v);
  if (!arg)
    return "?";
  auto region = llvm::dyn_cast<ElementRegionOpInterface>(arg.getOwner()->getParentOp());
  if (!region)
    return "?";
  if (auto in = region.getInputForArg(arg).getDefiningOp<InputOp>())
    return in.getName().str();
  return "?";
}

struct Finding {
  std::string category;
  std::string reason;
  Location loc;
};

std::optional<Finding> structuralFinding(Operation *op) {
  if (auto scan = llvm::dyn_cast<ScanOp>(op)) {
    std::string fn = "scan_" + stringifyScanKind(scan.getKind()).str();
    return Finding{"scan",
                   "'" + fn + "' is a prefix scan: every element depends on all elements before it, "
                   "so a row split over P CTAs needs an ordered hand-off across each slice "
                   "boundary and K grows with P instead of staying at 2L (rule: scans are "
                   "rejected; ordered dependencies grow K)",
                   scan.getLoc()};
  }
  if (auto nb = llvm::dyn_cast<NeighborOp>(op)) {
    if (nb.getOffset() == 0)
      return std::nullopt;
    int64_t off = nb.getOffset();
    std::string access = inputNameOf(nb.getInput()) + "[i" + (off > 0 ? "+" : "-") +
                         std::to_string(off > 0 ? off : -off) + "]";
    return Finding{"stencil",
                   "'" + access + "' reads a neighbouring element: CTAs would have to exchange "
                   "halo elements of the row itself, so remote state grows with N and the access "
                   "pattern instead of with the q_l statistics (rule: only compact per-stage "
                   "partials may cross DSMEM)",
                   nb.getLoc()};
  }
  if (auto sel = llvm::dyn_cast<SelectOp>(op)) {
    std::string fn = stringifySelectKind(sel.getKind()).str();
    return Finding{"selection",
                   "'" + fn + "' is a selection, not an associative reduction: merging the "
                   "slices of P CTAs needs their values, not a fixed number of partials, so "
                   "remote state grows with N instead of with the q_l statistics (rule: "
                   "selections are rejected)",
                   sel.getLoc()};
  }
  if (auto sort = llvm::dyn_cast<SortOp>(op)) {
    return Finding{"selection",
                   "'sort' orders the whole row: every CTA needs every other slice's values, so "
                   "remote state grows with N instead of with the q_l statistics (rule: "
                   "selections are rejected)",
                   sort.getLoc()};
  }
  return std::nullopt;
}

/// Where a fusion of credit-merge-stages (credit.stage_opt) is what left a kernel
/// with one pass: as written it re-reads a row, and only the fused statistic put its
/// stages into one. The user chose that option; the reason says what it did.
std::string fusedIntoOnePass(KernelOp kernel) {
  std::optional<StageOptRecord> record = readStageOpt(kernel);
  if (!record || record->asWritten.reread == 0)
    return "";
  std::vector<std::string> what;
  for (const StageOptRecord::Fusion &f : record->fused) {
    if (f.anchor.empty())
      continue;
    if (f.kind == StageOptRecord::Fusion::Kind::Moments) {
      if (!f.sums.empty() && !f.sums.front().empty())
        what.push_back("the moments fusion of " + f.anchor + " with " + f.sums.front());
    } else {
      what.push_back("the online fusion of " + f.anchor + " with its sums of exponentials");
    }
  }
  if (what.empty())
    return "";
  return "; as written it re-reads " + std::to_string(record->asWritten.reread) +
         " B/element, and " + llvm::join(what, " and ") +
         " made it one pass: without that fusion it is compiled as written";
}

std::string describeReads(llvm::ArrayRef<PassAccess> passes) {
  std::vector<std::string> parts;
  for (const PassAccess &p : passes) {
    std::vector<std::string> names;
    for (InputOp in : p.rowInputs)
      names.push_back(in.getName().str());
    std::string part = p.name + " reads " + (names.empty() ? "no row input" : llvm::join(names, ", "));
    if (!p.firstPassOutputs.empty()) {
      std::vector<std::string> outs;
      for (OutputOp out : p.firstPassOutputs)
        outs.push_back(out.getName().str());
      part += " and writes " + llvm::join(outs, ", ") + ", which " +
              (outs.size() == 1 ? "depends" : "depend") + " on no statistic";
    }
    parts.push_back(part);
  }
  return llvm::join(parts, "; ");
}
} // namespace

Classification mlir::credit::classify(KernelOp kernel) {
  // 1. Structural constructs, first in source order.
  std::optional<Finding> first;
  kernel.walk([&](Operation *op) {
    std::optional<Finding> f = structuralFinding(op);
    if (f && (!first || lineCol(f->loc) < lineCol(first->loc)))
      first = f;
  });
  if (first)
    return {first->category, first->category + ": " + first->reason, first->loc};

  llvm::SmallVector<PassAccess, 4> passes = computePassAccess(kernel);
  Traffic t = computeTraffic(kernel);
  // 2. No statistic at all.
  if (t.L == 0) {
    Location loc = kernel.getLoc();
    for (OutputOp out : kernel.getOutputOps()) {
      loc = out.getLoc();
      break;
    }
    return {"elementwise",
            "elementwise: no stage computes a per-row statistic, so every element is read once "
            "and nothing is re-read (b_reread = 0); clustering cannot reduce traffic",
            loc};
  }
  // 3. Statistics, but no row input read by two passes. Located at the first
  // output written in the first pass where there is one (what made h's
  // re-read unnecessary), else at the first reduction of the first stage.
  if (t.reread == 0) {
    Location loc = kernel.getLoc();
    for (const PassAccess &p : passes)
      if (auto stage = llvm::dyn_cast<StageOp>(p.op)) {
        auto reds = stage.getReductions();
        loc = !p.firstPassOutputs.empty() ? p.firstPassOutputs.front()->getLoc()
              : reds.empty()              ? stage.getLoc()
                                          : reds.front()->getLoc();
        break;
      }
    return {"one-pass",
            "one-pass: no row input is read by more than one pass (" + describeReads(passes) +
                "), so b_reread = 0: the row already crosses HBM once and there is nothing to "
                "amortize" + fusedIntoOnePass(kernel),
            loc};
  }
  // Accepted: name what is re-read.
  std::vector<std::string> kept;
  for (InputOp in : t.kept) {
    int count = 0;
    for (const PassAccess &p : passes)
      count += llvm::count(p.rowInputs, in);
    kept.push_back(in.getName().str() + " (" + std::to_string(count) + " passes)");
  }
  Location loc = kernel.getLoc();
  return {"accepted",
          "accepted: " + std::to_string(t.reread) + " B/element of re-reads (" +
              llvm::join(kept, ", ") +
              ") become shared-memory reads when the row is kept on chip; only " +
              std::to_string(t.L) + " stage(s) of compact partials cross DSMEM",
          loc};
}

FailureOr<Classification> mlir::credit::readClassification(KernelOp kernel) {
  auto d = kernel->getAttrOfType<DictionaryAttr>("credit.classification");
  auto category = d ? d.getAs<StringAttr>("category") : StringAttr();
  auto reason = d ? d.getAs<StringAttr>("reason") : StringAttr();
  if (!category || !reason)
    return kernel.emitError(
        "credit.classification is missing or malformed (run credit-classify first)");
  auto loc = d.getAs<LocationAttr>("location");
  return Classification{category.str(), reason.str(), loc ? Location(loc) : kernel.getLoc()};
}

namespace {
struct CreditClassifyPass : public mlir::credit::impl::CreditClassifyBase<CreditClassifyPass> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    Classification c = classify(kernel);
    Builder b(kernel.getContext());
    kernel->setAttr("credit.classification",
                    b.getDictionaryAttr({
                        b.getNamedAttr("category", b.getStringAttr(c.category)),
                        b.getNamedAttr("reason", b.getStringAttr(c.reason)),
                        b.getNamedAttr("location", LocationAttr(c.location)),
                    }));
    markAllAnalysesPreserved();
  }
};
} // namespace
