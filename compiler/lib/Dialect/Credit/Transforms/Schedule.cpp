//===- Schedule.cpp - The schedule of a kernel: passes, inputs, forms -----===//
//
// computeSchedule: which inputs each pass reads, which row inputs are kept on
// chip and in which order, which inputs only h reads, the CTA sizes, the
// geometry of every form and the list of forms generated. The materializations
// (Materialize.cpp) and the partial-retention choice (PartialRetention.cpp)
// are separate files.
//
//===----------------------------------------------------------------------===//
#include "credit/Dialect/Credit/Transforms/Schedule.h"
#include "credit/Dialect/Credit/Transforms/Analyses.h"

#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace mlir::credit;

llvm::StringRef mlir::credit::formName(Form f) { return stringifyForm(f); }

FailureOr<VariantSet> VariantSet::parse(llvm::ArrayRef<std::string> names, std::string &bad) {
  if (names.empty())
    return VariantSet{};
  VariantSet v{false, false, false, false};
  for (const std::string &n : names) {
    if (n == "cluster")
      v.cluster = true;
    else if (n == "staged")
      v.staged = true;
    else if (n == "reread")
      v.reread = true;
    else if (n == "control")
      v.control = true;
    else {
      bad = n;
      return failure();
    }
  }
  return v;
}

bool KernelSchedule::has(Form f) const { return llvm::is_contained(forms, f); }

bool mlir::credit::keptInputsAllF32(llvm::ArrayRef<InputOp> inputs, llvm::ArrayRef<unsigned> kept) {
  return llvm::all_of(kept, [&](unsigned k) {
    return cast<RowType>(InputOp(inputs[k]).getType()).getElementType().isF32();
  });
}

bool KernelSchedule::persistentPossible() const {
  return !kept.empty() && keptAllF32 && ::credit::hasRegisterForms(threads) && wideThreads > 0;
}

llvm::SmallVector<unsigned> KernelSchedule::smemOrder() const {
  llvm::SmallVector<unsigned> order(kept.size());
  for (auto [i, slot] : llvm::enumerate(smemSlot))
    if (slot < order.size())
      order[slot] = kept[i];
  return order;
}

const Materialization *KernelSchedule::materializationOf(unsigned input) const {
  for (const Materialization &m : materialized)
    if (m.input == input)
      return &m;
  return nullptr;
}

llvm::SmallVector<int> KernelSchedule::readersOf(unsigned input) const {
  llvm::SmallVector<int> out;
  for (auto [p, pass] : llvm::enumerate(passes))
    if (llvm::is_contained(pass.reads, input))
      out.push_back(static_cast<int>(p));
  return out;
}

namespace {

/// The forms of the kernel families in `variants`, in the order the emitter
/// instantiates them. Register forms need a CTA whose threads can hold
/// credit::kRegsWideElemsPerThread elements each (hasRegisterForms); wide-CTA
/// twins need twice the threads to stay within 512 (wideCtaThreads); the
/// persistent form runs at the twin's size with the kept slices in a ring.
llvm::SmallVector<Form> chooseForms(const KernelSchedule &s, VariantSet variants) {
  const bool registers = ::credit::hasRegisterForms(s.threads);
  const bool twins = s.wideThreads > 0;
  llvm::SmallVector<Form> f;
  if (variants.cluster) {
    f.append({Form::ClusterSync, Form::ClusterMbarrier});
    if (registers)
      f.append({Form::ClusterRegsSync, Form::ClusterRegsMbarrier});
    if (twins)
      f.append({Form::ClusterWideSync, Form::ClusterWideMbarrier});
    if (s.persistentPossible())
      f.append({Form::Persistent, Form::PersistentHalves, Form::PersistentClaims,
                Form::PersistentHalvesClaims});
    if (s.partialDrop >= 0)
      f.append({Form::ClusterPartialSync, Form::ClusterPartialMbarrier});
  }
  if (variants.staged) {
    f.push_back(Form::Staged);
    if (registers)
      f.append({Form::StagedRegs, Form::StagedRegsWide});
    if (twins) {
      f.append({Form::StagedWide, Form::StagedRegsWideWide});
      if (::credit::hasDeepRegisterForm(s.geometry))
        f.push_back(Form::StagedRegsDeepWide);
    }
  }
  if (variants.reread)
    f.push_back(Form::Reread);
  if (variants.control)
    f.append({Form::ControlSync, Form::ControlMbarrier});
  return f;
}

} // namespace

int mlir::credit::vectorWidthFor(KernelOp kernel) {
  unsigned widest = 1;
  for (const PerElementOperand &o : perElementOperands(kernel))
    widest = std::max(widest, elementBytes(o.type));
  return widest <= 2 ? 8 : 4;
}

FailureOr<KernelSchedule> mlir::credit::computeSchedule(KernelOp kernel, int threads,
                                                        VariantSet variants) {
  if (!isSupportedCtaSize(threads))
    return kernel.emitError() << "cannot schedule: threads per CTA must be 128, 256, 512 or 1024, got "
                              << threads;
  KernelSchedule s;
  s.threads = threads;
  s.wideThreads = ::credit::wideCtaThreads(threads);

  llvm::DenseMap<Operation *, unsigned> indexOf;
  llvm::SmallVector<InputOp> inputs;
  for (InputOp in : kernel.getInputOps()) {
    indexOf[in] = static_cast<unsigned>(inputs.size());
    inputs.push_back(in);
  }

  // Passes: the stages, then h; each reads its row and broadcast inputs
  // (declaration order).
  for (const PassAccess &p : computePassAccess(kernel)) {
    SchedulePass pass;
    pass.op = p.op;
    if (auto stage = llvm::dyn_cast<StageOp>(p.op))
      pass.stage = static_cast<int>(stage.getStageIndex());
    for (const auto *list : {&p.rowInputs, &p.broadcastInputs})
      for (InputOp in : *list)
        pass.reads.push_back(indexOf.lookup(in));
    llvm::sort(pass.reads);
    s.passes.push_back(std::move(pass));
  }
  if (llvm::none_of(s.passes, [](const SchedulePass &p) { return p.stage >= 0; }))
    return kernel.emitError("cannot schedule: the kernel has no stage");

  // Kept inputs: read by more than one pass, in first-read order (the traffic
  // analysis lists them so).
  Traffic traffic = computeTraffic(kernel);
  for (InputOp in : traffic.kept) {
    if (!in.isRow())
      return in.emitError("cannot schedule: kept input '") << in.getName() << "' is not a row input";
    s.kept.push_back(indexOf.lookup(in));
  }

  // Inputs only h reads: one pass reads them, and it is h.
  for (auto [i, in] : llvm::enumerate(inputs)) {
    if (in.isScalar())
      continue;
    llvm::SmallVector<int> readers = s.readersOf(static_cast<unsigned>(i));
    if (readers.size() != 1 || s.passes[readers.front()].stage >= 0)
      continue;
    s.onlyH.push_back(static_cast<unsigned>(i));
    if (in.isBroadcast())
      s.hoisted.push_back(static_cast<unsigned>(i));
  }

  // Some kept input first read by a later pass than another one: the
  // persistent ring then copies whole slices (credit::persistentRing).
  int first = -1, last = -1;
  for (unsigned k : s.kept) {
    const int p = s.readersOf(k).front();
    first = first < 0 || p < first ? p : first;
    last = std::max(last, p);
  }
  s.keptReadLate = last > first;
  s.keptAllF32 = keptInputsAllF32(inputs, s.kept);
  s.vectorWidth = vectorWidthFor(kernel);

  s.geometry = computeGeometry(kernel, threads);
  if (s.geometry.hOnlyArrays != static_cast<int>(s.onlyH.size()))
    return kernel.emitError() << "cannot schedule: " << s.onlyH.size()
                              << " inputs only h reads, the geometry counts "
                              << s.geometry.hOnlyArrays;
  s.wideGeometry = s.geometry;
  if (s.wideThreads > 0)
    s.wideGeometry.threads = s.wideThreads;

  s.materialized = findMaterializations(kernel, s);
  llvm::SmallVector<unsigned> keptBytes;
  for (unsigned k : s.kept)
    keptBytes.push_back(elementBytes(inputs[k].getType()));
  choosePartialRetention(s, keptBytes);
  s.partialGeometry = s.geometry;
  if (s.partialDrop >= 0)
    s.partialGeometry.keepBytesPerElem -=
        static_cast<int>(elementBytes(inputs[s.kept[s.partialDrop]].getType()));

  // Row inputs only h reads: the persistent form asks L2 for their slice at
  // each row's start, so that h's loads find it there.
  if (s.persistentPossible())
    for (unsigned i : s.onlyH)
      if (inputs[i].isRow())
        s.prefetchL2.push_back(i);

  s.forms = chooseForms(s, variants);
  return s;
}
