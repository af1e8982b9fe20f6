//===- Traffic.cpp - credit-traffic ---------------------------------------===//
//
// Per-element HBM bytes of the matched global-reread schedule (every pass
// streams the row inputs it reads; outputs written once) and of the clustered
// schedule (every row input crosses HBM once), their difference b_reread, and
// b_keep: the row inputs some later pass reads again, which the clustered
// kernel retains in shared memory. Broadcast vectors and per-row values are
// D_fixed, the same in both schedules, reported apart. docs/report.md.
//
//===----------------------------------------------------------------------===//
#include "credit/Dialect/Credit/Transforms/Analyses.h"
#include "credit/Dialect/Credit/Transforms/Passes.h"

#include "llvm/ADT/MapVector.h"

namespace mlir::credit {
#define GEN_PASS_DEF_CREDITTRAFFIC
#include "credit/Dialect/Credit/Transforms/Passes.h.inc"
} // namespace mlir::credit

using namespace mlir;
using namespace mlir::credit;

Traffic mlir::credit::computeTraffic(KernelOp kernel) {
  Traffic t;
  llvm::SmallVector<PassAccess, 4> passes = computePassAccess(kernel);
  // How many passes read each row input, in declaration order.
  llvm::MapVector<Operation *, int> readers;
  llvm::SmallPtrSet<Operation *, 8> scalarsRead;
  for (const PassAccess &p : passes) {
    for (InputOp in : p.rowInputs) {
      readers[in] += 1;
      t.baseline += elementBytes(in.getType());
    }
    for (InputOp in : p.broadcastInputs)
      t.fixedBroadcastPerElement += elementBytes(in.getType());
    for (InputOp in : p.scalarInputs)
      scalarsRead.insert(in);
    // An element read at one column: per-row traffic, like a per-row value.
    for (InputOp in : p.pickedInputs)
      t.fixedPerRow += elementBytes(in.getType());
    if (auto stage = llvm::dyn_cast<StageOp>(p.op)) {
      ++t.L;
      t.q.push_back(static_cast<int>(stage.getNumStatistics()));
    }
  }
  for (auto &[op, count] : readers) {
    auto in = llvm::cast<InputOp>(op);
    t.cluster += elementBytes(in.getType());
    if (count > 1) {
      t.keep += elementBytes(in.getType());
      t.kept.push_back(in);
    }
  }
  // Outputs: per-element ones are written once in both schedules; per-row
  // ones, like per-row scalar inputs, are fixed per-row traffic.
  for (OutputOp out : kernel.getOutputOps()) {
    if (isRowType(out.getValue().getType()))
      t.outputBytes += elementBytes(out.getValue().getType());
    else
      t.fixedPerRow += 4;
  }
  // A per-row scalar is read once per row wherever it is used: directly by a
  // pass, through row-level math (a let), or copied to a per-row output.
  for (InputOp in : kernel.getInputOps())
    if (in.getKind() == InputKind::scalar && (!in->use_empty() || scalarsRead.contains(in)))
      t.fixedPerRow += elementBytes(in.getStorageType());
  t.baseline += t.outputBytes;
  t.cluster += t.outputBytes;
  t.reread = t.baseline - t.cluster;
  t.ceiling = t.cluster > 0 ? static_cast<double>(t.baseline) / static_cast<double>(t.cluster) : 1.0;
  return t;
}

FailureOr<Traffic> mlir::credit::readTraffic(KernelOp kernel) {
  auto d = kernel->getAttrOfType<DictionaryAttr>("credit.traffic");
  auto fail = [&](llvm::StringRef what) {
    return kernel.emitError("credit.traffic: ") << what << " (run credit-traffic first)";
  };
  if (!d)
    return fail("missing");
  Traffic t;
  auto integer = [&](llvm::StringRef key, int64_t &out) {
    auto a = d.getAs<IntegerAttr>(key);
    if (a)
      out = a.getInt();
    return static_cast<bool>(a);
  };
  int64_t L = 0;
  auto q = d.getAs<DenseI64ArrayAttr>("q");
  auto kept = d.getAs<ArrayAttr>("kept");
  auto ceiling = d.getAs<FloatAttr>("ceiling");
  if (!integer("L", L) || !integer("baseline", t.baseline) || !integer("cluster", t.cluster) ||
      !integer("reread", t.reread) || !integer("keep", t.keep) || !integer("outputs", t.outputBytes) ||
      !integer("fixed_broadcast_per_element", t.fixedBroadcastPerElement) ||
      !integer("fixed_per_row", t.fixedPerRow) || !q || !kept || !ceiling)
    return fail("a field is missing or has the wrong type");
  if (L < 0 || static_cast<int64_t>(q.size()) != L)
    return fail("q must have L entries");
  t.L = static_cast<unsigned>(L);
  for (int64_t v : q.asArrayRef())
    t.q.push_back(static_cast<int>(v));
  for (Attribute a : kept) {
    auto name = llvm::dyn_cast<StringAttr>(a);
    InputOp in = name ? kernel.lookupInput(name.getValue()) : InputOp();
    if (!in)
      return fail("kept must list input names");
    t.kept.push_back(in);
  }
  t.ceiling = ceiling.getValueAsDouble();
  return t;
}

namespace {
struct CreditTrafficPass : public mlir::credit::impl::CreditTrafficBase<CreditTrafficPass> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    Traffic t = computeTraffic(kernel);
    Builder b(kernel.getContext());
    llvm::SmallVector<Attribute> kept;
    for (InputOp in : t.kept)
      kept.push_back(b.getStringAttr(in.getName()));
    llvm::SmallVector<int64_t> q(t.q.begin(), t.q.end());
    kernel->setAttr(
        "credit.traffic",
        b.getDictionaryAttr({
            b.getNamedAttr("L", b.getI64IntegerAttr(t.L)),
            b.getNamedAttr("q", b.getDenseI64ArrayAttr(q)),
            b.getNamedAttr("baseline", b.getI64IntegerAttr(t.baseline)),
            b.getNamedAttr("cluster", b.getI64IntegerAttr(t.cluster)),
            b.getNamedAttr("reread", b.getI64IntegerAttr(t.reread)),
            b.getNamedAttr("keep", b.getI64IntegerAttr(t.keep)),
            b.getNamedAttr("kept", b.getArrayAttr(kept)),
            b.getNamedAttr("outputs", b.getI64IntegerAttr(t.outputBytes)),
            b.getNamedAttr("fixed_broadcast_per_element",
                           b.getI64IntegerAttr(t.fixedBroadcastPerElement)),
            b.getNamedAttr("fixed_per_row", b.getI64IntegerAttr(t.fixedPerRow)),
            b.getNamedAttr("ceiling", b.getF64FloatAttr(t.ceiling)),
        }));
    markAllAnalysesPreserved();
  }
};
} // namespace
