//===- ScheduleAttr.cpp - The schedule as attributes, and read back -------===//
//
// writeSchedule records a KernelSchedule as `credit.schedule` on the kernel
// and `credit.materialized` on the ops computing T(x); readSchedule rebuilds
// the KernelSchedule from them and from the passes' `credit.reads` /
// `credit.reads_broadcast` (credit-pass-access), checking what it reads.
//
//===----------------------------------------------------------------------===//
#include "credit/Dialect/Credit/Transforms/Analyses.h"
#include "credit/Dialect/Credit/Transforms/Schedule.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::credit;

static constexpr llvm::StringLiteral kScheduleAttr = "credit.schedule";
static constexpr llvm::StringLiteral kMaterializedAttr = "credit.materialized";

void mlir::credit::writeSchedule(KernelOp kernel, const KernelSchedule &s) {
  MLIRContext *ctx = kernel.getContext();
  llvm::SmallVector<InputOp> inputs(kernel.getInputOps());
  auto names = [&](llvm::ArrayRef<unsigned> indices) {
    llvm::SmallVector<StringAttr> out;
    for (unsigned i : indices)
      out.push_back(inputs[i].getNameAttr());
    return out;
  };
  kernel.walk([](Operation *op) { op->removeAttr(kMaterializedAttr); });
  llvm::SmallVector<MaterializedInput> materialized;
  for (const Materialization &m : s.materialized) {
    materialized.push_back({inputs[m.input].getNameAttr(), m.storePass});
    for (Operation *end : m.ends)
      end->setAttr(kMaterializedAttr, inputs[m.input].getNameAttr());
  }
  const ::credit::WorkloadGeometry &g = s.geometry;
  auto geometry = GeometryAttr::get(ctx, g.keepBytesPerElem, g.numStages, g.qMax, g.qSum,
                                    g.threads, g.hOnlyArrays);
  kernel->setAttr(kScheduleAttr,
                  ScheduleAttr::get(ctx, s.threads, s.wideThreads, s.forms, names(s.kept),
                                    names(s.smemOrder()), materialized,
                                    s.partialDrop >= 0 ? inputs[s.kept[s.partialDrop]].getNameAttr()
                                                       : StringAttr(),
                                    s.partialDropReadLate, s.keptReadLate, names(s.onlyH),
                                    names(s.hoisted), names(s.prefetchL2), geometry, s.vectorWidth));
}

namespace {

/// The op of the chain x -> T(x) that `op` continues: its one operand that
/// varies per element and is not x's block argument, or null when `op` reads
/// x's block argument directly. Fails when `op` is not on a unary chain.
FailureOr<Operation *> chainPredecessor(Operation *op, BlockArgument x) {
  Operation *prev = nullptr;
  bool readsX = false;
  for (Value operand : op->getOperands()) {
    if (operand == x) {
      readsX = true;
      continue;
    }
    if (auto arg = llvm::dyn_cast<BlockArgument>(operand)) {
      auto region = llvm::dyn_cast<ElementRegionOpInterface>(arg.getOwner()->getParentOp());
      if (!region || isRowValue(region.getInputForArg(arg)))
        return failure(); // another per-element operand
      continue;           // a row-level operand
    }
    Operation *def = operand.getDefiningOp();
    if (llvm::isa<arith::ConstantOp>(def))
      continue;
    if (prev || def->getBlock() != op->getBlock())
      return failure();
    prev = def;
  }
  if (readsX == (prev != nullptr))
    return failure();
  return prev;
}

} // namespace

bool mlir::credit::hasSchedule(KernelOp kernel) { return kernel->hasAttr(kScheduleAttr); }

FailureOr<KernelSchedule> mlir::credit::readSchedule(KernelOp kernel) {
  Attribute raw = kernel->getAttr(kScheduleAttr);
  if (!raw)
    return kernel.emitError("kernel '")
           << kernel.getSymName()
           << "' has no credit.schedule: run credit-schedule (credit-opt --credit-analyze) first";
  auto attr = llvm::dyn_cast<ScheduleAttr>(raw);
  if (!attr)
    return kernel.emitError("'credit.schedule' must be a #credit.schedule attribute");
  if (failed(verifyScheduleForKernel(kernel, attr, [&]() { return kernel.emitError(); })))
    return failure();

  llvm::StringMap<unsigned> indexOf;
  llvm::SmallVector<InputOp> inputs;
  for (InputOp in : kernel.getInputOps()) {
    indexOf[in.getName()] = static_cast<unsigned>(inputs.size());
    inputs.push_back(in);
  }
  auto indices = [&](llvm::ArrayRef<StringAttr> names) {
    llvm::SmallVector<unsigned> out;
    for (StringAttr n : names)
      out.push_back(indexOf.lookup(n.getValue()));
    return out;
  };

  KernelSchedule s;
  s.threads = attr.getThreads();
  s.wideThreads = attr.getWideThreads();
  s.forms.assign(attr.getForms().begin(), attr.getForms().end());
  s.kept = indices(attr.getKept());
  s.onlyH = indices(attr.getOnlyH());
  s.hoisted = indices(attr.getHoisted());
  s.prefetchL2 = indices(attr.getPrefetchL2());
  s.keptReadLate = attr.getKeptReadLate();
  s.keptAllF32 = keptInputsAllF32(inputs, s.kept);
  s.vectorWidth = attr.getVectorWidth();
  s.partialDropReadLate = attr.getPartialDropReadLate();
  for (StringAttr k : attr.getKept())
    s.smemSlot.push_back(static_cast<unsigned>(llvm::find(attr.getSmem(), k) - attr.getSmem().begin()));
  if (StringAttr drop = attr.getPartialDrop())
    s.partialDrop = static_cast<int>(llvm::find(attr.getKept(), drop) - attr.getKept().begin());
  GeometryAttr g = attr.getGeometry();
  s.geometry = {g.getKeep(), g.getStages(), g.getQMax(), g.getQSum(), g.getThreads(), g.getHOnly()};
  s.wideGeometry = s.geometry;
  if (s.wideThreads > 0)
    s.wideGeometry.threads = s.wideThreads;
  s.partialGeometry = s.geometry;
  if (s.partialDrop >= 0)
    s.partialGeometry.keepBytesPerElem -=
        static_cast<int>(elementBytes(inputs[s.kept[s.partialDrop]].getType()));

  // Passes: the stages, then h, with what credit-pass-access recorded.
  auto passOf = [&](Operation *op, int stage) -> LogicalResult {
    SchedulePass pass;
    pass.op = op;
    pass.stage = stage;
    for (llvm::StringRef key : {"credit.reads", "credit.reads_broadcast"}) {
      auto list = op->getAttrOfType<ArrayAttr>(key);
      if (!list)
        return op->emitError("no '") << key << "': run credit-pass-access before reading the schedule";
      for (Attribute a : list) {
        auto name = llvm::dyn_cast<StringAttr>(a);
        auto it = name ? indexOf.find(name.getValue()) : indexOf.end();
        if (it == indexOf.end())
          return op->emitError("'") << key << "' must list input names, got " << a;
        pass.reads.push_back(it->second);
      }
    }
    llvm::sort(pass.reads);
    s.passes.push_back(std::move(pass));
    return success();
  };
  for (StageOp stage : kernel.getStageOps())
    if (failed(passOf(stage, static_cast<int>(s.passes.size()))))
      return failure();
  if (ApplyOp apply = kernel.getApplyOp())
    if (failed(passOf(apply, -1)))
      return failure();

  // Materializations: the marked ops, in pass order, and their chains.
  for (const MaterializedInput &mi : attr.getMaterialized()) {
    Materialization m;
    m.input = indexOf.lookup(mi.input.getValue());
    m.storePass = static_cast<int>(mi.pass);
    Value x = inputs[m.input].getResult();
    llvm::SetVector<Operation *> chainOps;
    LogicalResult ok = success();
    kernel.walk<WalkOrder::PreOrder>([&](Operation *op) {
      auto mark = op->getAttrOfType<StringAttr>(kMaterializedAttr);
      if (failed(ok) || !mark || mark != mi.input)
        return;
      auto region = op->getParentOfType<ElementRegionOpInterface>();
      auto operands = region ? region->getOperands() : OperandRange(nullptr, 0);
      auto it = llvm::find(operands, x);
      if (!region || it == operands.end()) {
        ok = op->emitError("'credit.materialized' marks an op of a region that does not read '")
             << mi.input.getValue() << "'";
        return;
      }
      BlockArgument arg = region.getBodyBlock().getArgument(static_cast<unsigned>(it - operands.begin()));
      m.ends.push_back(op);
      llvm::SmallVector<Operation *> chain;
      for (Operation *cur = op; cur;) {
        chain.push_back(cur);
        FailureOr<Operation *> prev = chainPredecessor(cur, arg);
        if (failed(prev)) {
          ok = op->emitError("'credit.materialized': the op is not on a unary chain from '")
               << mi.input.getValue() << "'";
          return;
        }
        cur = *prev;
      }
      chainOps.insert(chain.rbegin(), chain.rend());
    });
    if (failed(ok))
      return failure();
    if (m.ends.empty())
      return kernel.emitError("#credit.schedule materializes '")
             << mi.input.getValue() << "' but no op carries credit.materialized = \""
             << mi.input.getValue() << "\"";
    m.chainOps.assign(chainOps.begin(), chainOps.end());
    s.materialized.push_back(std::move(m));
  }
  llvm::sort(s.materialized, [](const Materialization &a, const Materialization &b) {
    return a.input < b.input;
  });
  return s;
}
