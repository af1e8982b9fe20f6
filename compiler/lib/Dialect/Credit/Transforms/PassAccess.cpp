//===- PassAccess.cpp - credit-pass-access --------------------------------===//
//
// Which inputs each pass over the row reads. A stage is one pass (all its
// reductions are computed in one sweep); the final elementwise h is the last.
// The answer follows the dataflow: an input is read by a pass only if a value
// derived from it reaches a result of the pass that something uses, so a stage
// whose statistics are dead, or an operand the region ignores, reads nothing.
//
//===----------------------------------------------------------------------===//
#include "credit/Dialect/Credit/Transforms/Analyses.h"
#include "credit/Dialect/Credit/Transforms/Passes.h"
#include "credit/Dialect/Credit/Transforms/StageStructure.h"

#include "llvm/ADT/SetVector.h"

namespace mlir::credit {
#define GEN_PASS_DEF_CREDITPASSACCESS
#include "credit/Dialect/Credit/Transforms/Passes.h.inc"
} // namespace mlir::credit

using namespace mlir;
using namespace mlir::credit;

unsigned mlir::credit::elementBytes(Type t) {
  if (auto row = llvm::dyn_cast<RowType>(t))
    t = row.getElementType();
  return std::max(1u, t.getIntOrFloatBitWidth() / 8);
}

/// Values inside `block` from which `roots` are computed (backward slice,
/// stopping at the block's arguments and at values defined outside it).
/// Element-region ops (reductions) are leaves: what they read is decided by
/// their own regions (addRegionReads).
static llvm::SetVector<Value> backwardSlice(Block &block, ValueRange roots) {
  llvm::SetVector<Value> seen;
  llvm::SmallVector<Value> work(roots.begin(), roots.end());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v))
      continue;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != &block || llvm::isa<ElementRegionOpInterface>(def))
      continue;
    for (Value operand : def->getOperands())
      work.push_back(operand);
  }
  return seen;
}

/// Inputs an element region op (reduce/select/apply) really reads. A sum that
/// one column decides (matchIndexedPick) reads its row and broadcast inputs at
/// that column only, once per row, not in the pass's sweep: only its per-row
/// scalars count.
static void addRegionReads(ElementRegionOpInterface op, llvm::SetVector<Operation *> &inputs,
                           llvm::SmallVectorImpl<InputOp> *pickedInputs = nullptr) {
  Block &body = op.getBodyBlock();
  llvm::SetVector<Value> live = backwardSlice(body, op.getYieldedValues());
  auto reduce = llvm::dyn_cast<ReduceOp>(op.getOperation());
  const bool picked = reduce && matchIndexedPick(reduce);
  for (BlockArgument arg : body.getArguments()) {
    if (!live.contains(arg))
      continue;
    if (auto in = op.getInputForArg(arg).getDefiningOp<InputOp>()) {
      if (!picked || in.isScalar())
        inputs.insert(in);
      else if (pickedInputs)
        pickedInputs->push_back(in);
    }
  }
}

/// Inputs the element expression of apply result `result` reads.
static void addOutputReads(ApplyOp apply, unsigned result, llvm::SetVector<Operation *> &inputs) {
  Block &body = apply.getBodyBlock();
  llvm::SetVector<Value> live = backwardSlice(body, apply.getYieldOp().getOperand(result));
  for (BlockArgument arg : body.getArguments())
    if (live.contains(arg))
      if (auto in = apply.getOperand(arg.getArgNumber()).getDefiningOp<InputOp>())
        inputs.insert(in);
}

static void fill(PassAccess &pass, const llvm::SetVector<Operation *> &inputs) {
  for (Operation *op : inputs) {
    auto in = llvm::cast<InputOp>(op);
    switch (in.getKind()) {
    case InputKind::row: pass.rowInputs.push_back(in); break;
    case InputKind::broadcast: pass.broadcastInputs.push_back(in); break;
    case InputKind::scalar: pass.scalarInputs.push_back(in); break;
    }
  }
  // Stable order: declaration order in the kernel.
  auto byPosition = [](InputOp a, InputOp b) { return a->isBeforeInBlock(b); };
  llvm::sort(pass.rowInputs, byPosition);
  llvm::sort(pass.broadcastInputs, byPosition);
  llvm::sort(pass.scalarInputs, byPosition);
}

llvm::SmallVector<PassAccess, 4> mlir::credit::computePassAccess(KernelOp kernel) {
  llvm::SmallVector<PassAccess, 4> passes;
  unsigned stageNo = 0;
  for (Operation &op : kernel.getBodyBlock()) {
    if (auto stage = llvm::dyn_cast<StageOp>(op)) {
      ++stageNo;
      // Statistics the rest of the kernel uses, and the reductions they need.
      llvm::SmallVector<Value> usedStats;
      for (auto [i, result] : llvm::enumerate(stage.getResults()))
        if (!result.use_empty())
          usedStats.push_back(stage.getYieldOp().getOperand(i));
      llvm::SetVector<Value> live = backwardSlice(stage.getBodyBlock(), usedStats);
      llvm::SetVector<Operation *> inputs;
      PassAccess pass;
      for (ElementRegionOpInterface red : stage.getReductions())
        if (llvm::any_of(red->getResults(), [&](Value r) { return live.contains(r); }))
          addRegionReads(red, inputs, &pass.pickedInputs);
      // Per-row scalars the stage's row-level math uses directly.
      for (Value v : live)
        if (auto in = v.getDefiningOp<InputOp>())
          inputs.insert(in);
      pass.name = "stage " + std::to_string(stageNo);
      pass.op = stage;
      fill(pass, inputs);
      passes.push_back(std::move(pass));
    }
  }
  ApplyOp apply = kernel.getApplyOp();
  if (!apply)
    return passes;
  llvm::SetVector<Operation *> inputs;
  addRegionReads(llvm::cast<ElementRegionOpInterface>(apply.getOperation()), inputs);
  PassAccess h;
  h.name = "h";
  h.op = apply;
  fill(h, inputs);
  if (passes.empty()) {
    passes.push_back(std::move(h));
    return passes;
  }

  // Outputs that need no statistic, written in the first pass.
  llvm::SmallVector<OutputOp> free;
  llvm::SetVector<Operation *> firstExtra, hInputs;
  for (const OutputDependence &d : computeStatisticDependences(kernel).outputs) {
    auto res = llvm::dyn_cast<OpResult>(d.output.getValue());
    if (!res || res.getOwner() != apply.getOperation())
      continue;
    if (d.dependsOn.empty()) {
      free.push_back(d.output);
      addOutputReads(apply, res.getResultNumber(), firstExtra);
    } else {
      addOutputReads(apply, res.getResultNumber(), hInputs);
    }
  }
  if (!free.empty()) {
    llvm::SmallVector<PassAccess, 4> alt(passes.begin(), passes.end());
    PassAccess &first = alt.front();
    llvm::SetVector<Operation *> firstInputs;
    for (auto list : {llvm::ArrayRef<InputOp>(first.rowInputs), llvm::ArrayRef<InputOp>(first.broadcastInputs),
                      llvm::ArrayRef<InputOp>(first.scalarInputs)})
      for (InputOp in : list)
        firstInputs.insert(in);
    firstInputs.insert(firstExtra.begin(), firstExtra.end());
    first.rowInputs.clear();
    first.broadcastInputs.clear();
    first.scalarInputs.clear();
    fill(first, firstInputs);
    first.firstPassOutputs.assign(free.begin(), free.end());
    if (free.size() < apply.getNumResults()) {
      PassAccess rest;
      rest.name = "h";
      rest.op = apply;
      fill(rest, hInputs);
      alt.push_back(std::move(rest));
    }
    llvm::DenseMap<Operation *, int> readers;
    bool reread = false;
    for (const PassAccess &p : alt)
      for (InputOp in : p.rowInputs)
        reread |= ++readers[in] > 1;
    if (!reread)
      return alt;
  }
  passes.push_back(std::move(h));
  return passes;
}

namespace {
struct CreditPassAccessPass
    : public mlir::credit::impl::CreditPassAccessBase<CreditPassAccessPass> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    Builder b(kernel.getContext());
    auto names = [&](llvm::ArrayRef<InputOp> ins) {
      llvm::SmallVector<Attribute> attrs;
      for (InputOp in : ins)
        attrs.push_back(b.getStringAttr(in.getName()));
      return b.getArrayAttr(attrs);
    };
    llvm::SmallVector<Attribute> summary;
    for (const PassAccess &pass : computePassAccess(kernel)) {
      pass.op->setAttr("credit.reads", names(pass.rowInputs));
      pass.op->setAttr("credit.reads_broadcast", names(pass.broadcastInputs));
      llvm::SmallVector<NamedAttribute> entry{
          b.getNamedAttr("pass", b.getStringAttr(pass.name)),
          b.getNamedAttr("reads", names(pass.rowInputs)),
          b.getNamedAttr("reads_broadcast", names(pass.broadcastInputs)),
          b.getNamedAttr("reads_scalar", names(pass.scalarInputs)),
      };
      if (!pass.firstPassOutputs.empty()) {
        llvm::SmallVector<Attribute> outs;
        for (OutputOp out : pass.firstPassOutputs)
          outs.push_back(b.getStringAttr(out.getName()));
        entry.push_back(b.getNamedAttr("writes", b.getArrayAttr(outs)));
      }
      summary.push_back(b.getDictionaryAttr(entry));
    }
    kernel->setAttr("credit.passes", b.getArrayAttr(summary));
    // The sums that one column decides, for the printers (readIndexedPick).
    kernel.walk([&](ReduceOp r) {
      if (matchIndexedPick(r))
        r->setAttr("credit.pick", b.getUnitAttr());
      else
        r->removeAttr("credit.pick");
    });
    markAllAnalysesPreserved();
  }
};
} // namespace

std::optional<IndexedPick> mlir::credit::readIndexedPick(ReduceOp reduce) {
  return reduce->hasAttr("credit.pick") ? matchIndexedPick(reduce) : std::nullopt;
}
