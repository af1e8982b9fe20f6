//===- KernelView.cpp - what the CUDA printers read of one kernel ---------===//
#include "KernelView.h"

#include "credit/Dialect/Credit/Transforms/Analyses.h"

#include "llvm/ADT/StringExtras.h"

namespace cr = mlir::credit;
using mlir::FailureOr;
using mlir::Operation;

namespace credit::cuda {

std::string Operand::pointerType() const {
  if (kind == Param)
    return "float";
  return (output ? "" : "const ") + storageType().str() + "*";
}

llvm::StringRef Operand::storageType() const {
  switch (elem) {
  case F32: return "float";
  case I8: return "int8_t";
  case BF16: return "__nv_bfloat16";
  case F16: return "__half";
  case U8: return "uint8_t";
  case Bool: return "bool";
  case I32: return "int32_t";
  case I64: return "int64_t";
  }
  return "float";
}

llvm::StringRef Operand::elemEnumerator() const {
  switch (elem) {
  case F32: return "Elem::F32";
  case I8: return "Elem::I8";
  case BF16: return "Elem::BF16";
  case F16: return "Elem::F16";
  case U8: return "Elem::U8";
  case Bool: return "Elem::Bool";
  case I32: return "Elem::I32";
  case I64: return "Elem::I64";
  }
  return "Elem::F32";
}

llvm::StringRef Operand::elemWord() const {
  switch (elem) {
  case F32: return "f32";
  case I8: return "i8";
  case BF16: return "bf16";
  case F16: return "f16";
  case U8: return "u8";
  case Bool: return "bool";
  case I32: return "i32";
  case I64: return "i64";
  }
  return "f32";
}

int Operand::elementBytes() const {
  switch (elem) {
  case F32:
  case I32: return 4;
  case BF16:
  case F16: return 2;
  case I64: return 8;
  default: return 1;
  }
}

/// The storage type `t` (a row's element type, a scalar's storage type).
static Operand::Elem elemOf(mlir::Type t) {
  if (auto row = llvm::dyn_cast<cr::RowType>(t))
    t = row.getElementType();
  if (t.isBF16())
    return Operand::BF16;
  if (t.isF16())
    return Operand::F16;
  if (t.isInteger(1))
    return Operand::Bool;
  if (t.isUnsignedInteger(8))
    return Operand::U8;
  if (t.isInteger(8))
    return Operand::I8;
  if (t.isInteger(32))
    return Operand::I32;
  if (t.isInteger(64))
    return Operand::I64;
  return Operand::F32;
}

llvm::StringRef Operand::kindWord() const {
  switch (kind) {
  case Row: return "row";
  case Broadcast: return "broadcast";
  case PerRow: return "scalar";
  case Param: return "param";
  }
  return "row";
}

Variant variantOf(cr::Form f) {
  switch (f) {
  case cr::Form::Staged:
  case cr::Form::StagedRegs:
  case cr::Form::StagedRegsWide:
  case cr::Form::StagedWide:
  case cr::Form::StagedRegsWideWide:
  case cr::Form::StagedRegsDeepWide:
    return Variant::Staged;
  case cr::Form::Reread:
    return Variant::Reread;
  case cr::Form::ControlSync:
  case cr::Form::ControlMbarrier:
    return Variant::Control;
  default:
    return Variant::Cluster;
  }
}

std::string formEnumerator(cr::Form f) {
  std::string out;
  bool upper = true;
  for (char c : cr::stringifyForm(f)) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += upper ? llvm::toUpper(c) : c;
    upper = false;
  }
  return out;
}

llvm::SmallVector<KernelInstance> KernelView::kernels() const {
  // Kernel names are the form's keyword, as the launch API has always named
  // them: the persistent forms are "cluster_persistent...", and a wide-CTA
  // form drops its first "_wide" for a "_cta<threads>" suffix.
  llvm::SmallVector<KernelInstance> out;
  for (cr::Form f : forms()) {
    std::string base = cr::stringifyForm(f).str();
    if (llvm::StringRef(base).starts_with("persistent"))
      base = "cluster_" + base;
    std::string suffix;
    if (cr::isWideCtaForm(f)) {
      if (size_t at = base.find("_wide"); at != std::string::npos)
        base.erase(at, 5);
      suffix = "_cta" + std::to_string(schedule.wideThreads);
    }
    const bool persistent = llvm::StringRef(base).starts_with("cluster_persistent");
    if (variantOf(f) == Variant::Control) {
      out.push_back({f, 0, prefix + "_" + base});
      continue;
    }
    for (int vec : {schedule.vectorWidth, 1}) {
      if (vec == 1 && (persistent || (f == cr::Form::StagedRegsDeepWide &&
                                      !::credit::hasScalarDeepRegisterForm(static_cast<int>(schedule.kept.size())))))
        continue;
      out.push_back({f, vec, prefix + "_" + base + "_v" + std::to_string(vec) + suffix});
    }
  }
  return out;
}

bool KernelView::wants(Variant v) const {
  return options->variants.empty() || llvm::is_contained(options->variants, v);
}

llvm::SmallVector<cr::Form> KernelView::forms() const {
  llvm::SmallVector<cr::Form> out;
  for (cr::Form f : schedule.forms)
    if (wants(variantOf(f)))
      out.push_back(f);
  return out;
}

bool KernelView::emits(cr::Form f) const {
  return schedule.has(f) && wants(variantOf(f));
}

llvm::SmallVector<const Operand *> KernelView::dataArgs() const {
  llvm::SmallVector<const Operand *> out;
  for (const Operand &o : inputs)
    out.push_back(&o);
  for (const Operand &o : outputs)
    out.push_back(&o);
  for (const Operand &o : runtimeParams)
    out.push_back(&o);
  return out;
}

FailureOr<std::unique_ptr<KernelView>> buildKernelView(cr::KernelOp kernel,
                                                                    const CudaEmitOptions &options) {
  auto v = std::make_unique<KernelView>();
  v->kernel = kernel;
  v->options = &options;
  v->name = kernel.getSymName().str();
  v->prefix = options.prefix.empty() ? "credit_" + v->name : options.prefix;
  for (char c : v->name)
    if (!(llvm::isAlnum(c) || c == '_'))
      return kernel.emitError("cannot generate CUDA: kernel name '")
             << v->name << "' is not a C identifier";
  if (std::optional<std::string> why =
          options.prefix.empty() ? std::nullopt : checkSymbolPrefix(options.prefix))
    return kernel.emitError("cannot generate CUDA: '") << v->prefix << "' cannot prefix its symbols: "
                                                       << *why;
  v->target = ::credit::findTarget(options.arch.c_str());
  if (!v->target.arch)
    return kernel.emitError("cannot generate CUDA: unknown target '") << options.arch << "'";

  FailureOr<cr::KernelSchedule> schedule = cr::readSchedule(kernel);
  if (failed(schedule))
    return mlir::failure();
  v->schedule = std::move(*schedule);
  // Only a one-pass kernel's reread forms keep nothing (compileRereadStages).
  const bool rereadOnly = llvm::all_of(v->schedule.forms, [](cr::Form f) { return f == cr::Form::Reread; });
  if (v->schedule.kept.empty() && !rereadOnly)
    return kernel.emitError("cannot generate CUDA: the schedule keeps no input on chip (the row "
                            "kernels need one; an accepted kernel has one)");
  FailureOr<cr::Barriers> barriers = cr::readBarriers(kernel);
  if (failed(barriers))
    return mlir::failure();
  v->barriersSync = barriers->sync;
  v->barriersMbarrier = barriers->mbarrier;

  for (Operation &op : kernel.getBodyBlock()) {
    if (auto stage = llvm::dyn_cast<cr::StageOp>(op)) {
      for (Operation &inner : stage.getBodyBlock())
        if (llvm::isa<cr::SelectOp>(inner))
          return inner.emitError("cannot generate CUDA: selections are not reductions");
      v->stages.push_back(stage);
    }
  }
  if (v->stages.empty())
    return kernel.emitError("cannot generate CUDA: the kernel has no stage");
  v->apply = kernel.getApplyOp();
  for (cr::ParamOp p : kernel.getParamOps()) {
    v->params.push_back(p);
    if (!p.isRuntime())
      continue;
    Operand o;
    o.op = p;
    o.src = p.getName().str();
    o.kind = Operand::Param;
    o.index = v->runtimeParams.size();
    v->runtimeParams.push_back(std::move(o));
  }

  // The API's own parameter names first: the data arguments never take them.
  for (llvm::StringRef fixed : {"M", "N", "P", "protocol", "stream"})
    v->apiScope.claim(fixed);
  for (cr::InputOp in : kernel.getInputOps()) {
    Operand o;
    o.op = in;
    o.src = in.getName().str();
    o.kind = in.isRow() ? Operand::Row : in.isBroadcast() ? Operand::Broadcast : Operand::PerRow;
    o.elem = elemOf(in.getStorageType());
    o.index = v->inputs.size();
    v->inputs.push_back(std::move(o));
  }
  for (cr::OutputOp out : kernel.getOutputOps()) {
    Operand o;
    o.op = out;
    o.src = out.getName().str();
    o.output = true;
    o.kind = cr::isRowValue(out.getValue()) ? Operand::Row : Operand::PerRow;
    o.elem = elemOf(out.getValue().getType());
    if (o.kind == Operand::PerRow && o.elem == Operand::I8)
      return out.emitError("cannot generate CUDA: per-row i8 outputs are not supported");
    o.index = v->outputs.size();
    v->outputs.push_back(std::move(o));
  }
  for (Operand &o : v->inputs)
    o.name = v->apiScope.fresh(o.src);
  for (Operand &o : v->outputs)
    o.name = v->apiScope.fresh(o.src);
  for (Operand &o : v->runtimeParams)
    o.name = v->apiScope.fresh(o.src);
  return v;
}

} // namespace credit::cuda
