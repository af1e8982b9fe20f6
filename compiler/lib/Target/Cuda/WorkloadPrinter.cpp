//===- WorkloadPrinter.cpp - struct Workload of a generated file ----------===//
//
// The workload-specific half of every kernel (docs/architecture.md, "The
// Workload contract"): the operands, the schedule's decisions as constants
// (read from the schedule), the element terms g of every pass, the combines,
// the row-level lets and h. The device library's row kernel does the rest.
//
//===----------------------------------------------------------------------===//
#include "ExprPrinter.h"
#include "LetNames.h"
#include "Printers.h"
#include "RowLevel.h"

#include "credit/Dialect/Credit/Transforms/Analyses.h"

#include "llvm/ADT/STLExtras.h"

namespace cr = mlir::credit;
using mlir::Operation;
using mlir::Value;

namespace credit::cuda {
namespace {

/// The widest line a one-statement function is printed on.
constexpr size_t kLineWidth = 120;

/// What i8(a) calls: truncation toward zero, saturated, NaN -> 0 (docs/dsl.md).
constexpr const char *kI8Conversion = "credit::device::f32_to_i8";

const char *reduceName(cr::ReduceKind k) {
  switch (k) {
  case cr::ReduceKind::sum: return "Reduce::Sum";
  case cr::ReduceKind::max: return "Reduce::Max";
  case cr::ReduceKind::min: return "Reduce::Min";
  }
  return "Reduce::Sum";
}

std::string bits(llvm::ArrayRef<unsigned> indices, size_t width) {
  std::string s(std::max<size_t>(width, 1), '0');
  for (unsigned i : indices)
    s[s.size() - 1 - i] = '1';
  return "0b" + s;
}

/// The sum that one column decides, where region `r` is one (pick()'s, not a
/// term of every element).
std::optional<cr::IndexedPick> pickOf(cr::ElementRegionOpInterface r) {
  auto reduce = llvm::dyn_cast<cr::ReduceOp>(r.getOperation());
  return reduce ? cr::readIndexedPick(reduce) : std::nullopt;
}

/// Input `in`'s element as the workload's pass and pick see it: a float, or a
/// bool input's as a bool.
std::string elementRead(const Operand &in) {
  return "e.template in<" + std::to_string(in.index) + ">()" + (in.elem == Operand::Bool ? " != 0.0f" : "");
}

bool hasPicks(cr::StageOp stage) {
  return llvm::any_of(stage.getReductions(), [](cr::ElementRegionOpInterface r) { return pickOf(r).has_value(); });
}

/// The ops of `body` that `roots` depend on, in block order, and the block
/// arguments they reach.
struct BodySlice {
  llvm::SmallVector<Operation *> ops;
  llvm::SmallVector<mlir::BlockArgument> args;
};
BodySlice sliceOf(mlir::Block &body, llvm::ArrayRef<Value> roots) {
  llvm::DenseSet<Operation *> in;
  llvm::DenseSet<Value> argsIn;
  llvm::SmallVector<Value> work(roots.begin(), roots.end());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(v)) {
      if (arg.getOwner() == &body)
        argsIn.insert(arg);
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (def && def->getBlock() == &body && in.insert(def).second)
      llvm::append_range(work, def->getOperands());
  }
  BodySlice s;
  for (Operation &op : body)
    if (in.contains(&op))
      s.ops.push_back(&op);
  for (mlir::BlockArgument a : body.getArguments())
    if (argsIn.contains(a))
      s.args.push_back(a);
  return s;
}

class WorkloadPrinter {
public:
  WorkloadPrinter(const KernelView &k, mlir::raw_indented_ostream &os, llvm::StringRef structName)
      : k(k), os(os), structName(structName), lets(k.options->sourceName, k.options->sourceText) {}
  mlir::LogicalResult print();

private:
  void printConstants();
  void printRow();
  mlir::LogicalResult printBeginRow();
  mlir::LogicalResult printPass(unsigned p);
  mlir::LogicalResult printPick(unsigned l);
  mlir::LogicalResult printFinish(unsigned l);
  void printEndRow();
  void printControlValue();
  /// Binds what a function sees: params, N, the Row fields it does not
  /// compute itself (`computedHere`).
  void bindRowValues(ExprPrinter &p, llvm::ArrayRef<Operation *> computedHere);
  /// Row-level ops: Row fields assigned, shared values as local temporaries.
  void printRowOps(ExprPrinter &p, llvm::ArrayRef<Operation *> ops, llvm::raw_ostream &out);
  /// `head { text }`: one line if short, else the body indented.
  void printFunction(llvm::StringRef head, llvm::StringRef text);
  mlir::LogicalResult check(const ExprPrinter &p);

  const KernelView &k;
  mlir::raw_indented_ostream &os;
  llvm::StringRef structName;
  NameSupply workloadScope; // static members, and what the functions see unqualified
  NameSupply rowScope;      // Row's fields (read as r.<field>)
  LetNames lets;
  RowLevel rows;
  llvm::DenseMap<Value, std::string> params;
};

mlir::LogicalResult WorkloadPrinter::check(const ExprPrinter &p) {
  if (p.ok())
    return mlir::success();
  if (Operation *op = p.failure())
    return op->emitError("cannot generate CUDA: ") << p.failureReason();
  return k.kernel.emitError("cannot generate CUDA: ") << p.failureReason();
}

void WorkloadPrinter::printConstants() {
  const cr::KernelSchedule &s = k.schedule;
  const size_t L = k.stages.size();
  os << "static constexpr int kStages = " << L << ";\n";
  os << "static constexpr int kQ[kStages] = {";
  llvm::interleaveComma(k.stages, os, [&](cr::StageOp st) { os << st.getNumStatistics(); });
  os << "};\n";
  // One entry per statistic: an online statistic is its max, then its sums;
  // moments are their count, sum and centred sum of squares.
  os << "static constexpr Reduce kReduce[] = {";
  bool first = true;
  auto entry = [&](const char *kind) {
    os << (first ? "" : ", ") << kind;
    first = false;
  };
  for (cr::StageOp st : k.stages)
    for (cr::ElementRegionOpInterface r : st.getReductions()) {
      if (auto online = llvm::dyn_cast<cr::ReduceSumExpOp>(r.getOperation())) {
        entry("Reduce::SumExpMax");
        for (unsigned i = 0; i < online.getNumSums(); ++i)
          entry("Reduce::SumExpSum");
      } else if (llvm::isa<cr::ReduceMomentsOp>(r.getOperation())) {
        entry("Reduce::MomentsCount");
        entry("Reduce::MomentsSum");
        entry("Reduce::MomentsM2");
      } else {
        entry(reduceName(llvm::cast<cr::ReduceOp>(r.getOperation()).getKind()));
      }
    }
  os << "};\n";
  // One operand a line, with its source name; the comments of both lists aligned.
  auto operandEntry = [](const Operand &o, size_t count) {
    const char *kind = o.kind == Operand::Row         ? "Kind::Row"
                       : o.kind == Operand::Broadcast ? "Kind::Broadcast"
                                                      : "Kind::PerRow";
    return std::string("{") + kind + ", " + o.elemEnumerator().str() + "}" +
           (o.index + 1 == count ? "};" : ",");
  };
  const std::string inHead = "static constexpr Operand kInputs[] = {";
  const std::string outHead = "static constexpr Operand kOutputs[] = {";
  size_t column = 0;
  for (const Operand &o : k.inputs)
    column = std::max(column, inHead.size() + operandEntry(o, k.inputs.size()).size());
  for (const Operand &o : k.outputs)
    column = std::max(column, outHead.size() + operandEntry(o, k.outputs.size()).size());
  auto operands = [&](const std::string &head, llvm::ArrayRef<Operand> list) {
    for (const Operand &o : list) {
      std::string line = (o.index ? std::string(head.size(), ' ') : head) + operandEntry(o, list.size());
      os << line << std::string(column - line.size() + 2, ' ') << "// " << o.src << "\n";
    }
  };
  operands(inHead, k.inputs);
  operands(outHead, k.outputs);
  os << "// The schedule.\n";
  os << "static constexpr unsigned kReads[kStages + 1] = {";
  for (size_t p = 0; p <= L; ++p)
    os << (p ? ", " : "") << (p < s.passes.size() ? bits(s.passes[p].reads, k.inputs.size()) : "0");
  os << "};\n";
  os << "static constexpr int kNumKept = " << s.kept.size() << ";"
     << (s.kept.empty() ? "  // a one-pass kernel: its reread forms only (the arrays: one unread entry)" : "")
     << "\n";
  // Extent 1 where nothing is kept: C++ has no zero-length arrays.
  const char *extent = s.kept.empty() ? "[1]" : "[kNumKept]";
  auto keptArray = [&](llvm::StringRef name, auto value) {
    os << "static constexpr int " << name << extent << " = {";
    for (size_t i = 0; i < s.kept.size(); ++i)
      os << (i ? ", " : "") << value(i);
    os << (s.kept.empty() ? "-1" : "") << "};\n";
  };
  keptArray("kKept", [&](size_t i) { return static_cast<int>(s.kept[i]); });
  keptArray("kSmemSlot", [&](size_t i) { return static_cast<int>(s.smemSlot[i]); });
  // kMaterialize and kPartialDrop say in a comment what they do, aligned.
  std::string materialize = std::string("static constexpr int kMaterialize") + extent + " = {" +
                            (s.kept.empty() ? "-1" : "");
  std::string materializeNote;
  for (size_t i = 0; i < s.kept.size(); ++i) {
    const cr::Materialization *m = s.materializationOf(s.kept[i]);
    materialize += (i ? ", " : "") + std::to_string(m ? m->storePass : -1);
    if (m && !m->ends.empty())
      materializeNote += std::string(materializeNote.empty() ? "" : "; ") + "stage " +
                         std::to_string(m->storePass + 1) + " stores " + formulaOf(k, m->ends.front()) +
                         " over " + k.inputs[m->input].src;
  }
  materialize += "};";
  std::string partial = "static constexpr int kPartialDrop = " + std::to_string(s.partialDrop) + ";";
  std::string partialNote =
      s.partialDrop < 0 ? "" : "the partial form reads " + k.inputs[s.partialDropInput()].src + " from L2";
  const size_t noteColumn = std::max(materializeNote.empty() ? 0 : materialize.size(),
                                     partialNote.empty() ? 0 : partial.size()) + 2;
  auto withNote = [&](const std::string &line, const std::string &note) {
    os << line;
    if (!note.empty())
      os << std::string(noteColumn - line.size(), ' ') << "// " << note;
    os << "\n";
  };
  withNote(materialize, materializeNote);
  withNote(partial, partialNote);
  os << "static constexpr bool kPartialDropReadLate = " << (s.partialDropReadLate ? "true" : "false") << ";\n";
  os << "static constexpr unsigned kHoisted = " << bits(s.hoisted, k.inputs.size()) << ";\n";
  os << "static constexpr unsigned kPrefetchL2 = " << bits(s.prefetchL2, k.inputs.size()) << ";\n";
  os << "static constexpr int kThreads = " << s.threads << ", kWideThreads = " << s.wideThreads << ";\n";
  os << "static constexpr bool kFastMath = " << (k.options->fastMath ? "true" : "false") << ";\n";
  llvm::SmallVector<unsigned> picked;
  for (unsigned l = 0; l < k.stages.size(); ++l)
    if (hasPicks(k.stages[l]))
      picked.push_back(l);
  if (!picked.empty())
    os << "static constexpr unsigned kPicked = " << bits(picked, k.stages.size())
       << ";  // stages with sums one column decides (pick)\n";
  if (!k.params.empty())
    os << "\n";
  // Runtime params are Row fields, set by begin_row.
  for (cr::ParamOp p : k.params) {
    if (p.isRuntime())
      continue;
    std::string name = workloadScope.fresh(p.getName());
    params[p.getResult()] = name;
    os << "static constexpr float " << name << " = " << cudaFloatLiteral(p.getValue()->convertToFloat())
       << ";\n";
  }
  if (!k.runtimeParams.empty())
    os << "static constexpr int kNumParams = " << k.runtimeParams.size() << ";  // runtime params\n";
}

void WorkloadPrinter::printRow() {
  os << "\nstruct Row {\n";
  os << "  float N";
  for (const std::string &f : rows.fields)
    os << ", " << f;
  os << ";\n};\n";
}

void WorkloadPrinter::bindRowValues(ExprPrinter &p, llvm::ArrayRef<Operation *> computedHere) {
  for (auto &[v, name] : params)
    p.bind(v, name);
  for (Operation &op : k.kernel.getBodyBlock())
    if (auto n = llvm::dyn_cast<cr::RowWidthOp>(op))
      p.bind(n.getResult(), "r.N");
  llvm::DenseSet<Value> here;
  for (Operation *op : computedHere)
    for (Value v : op->getResults())
      here.insert(v);
  for (auto &[v, name] : rows.field)
    if (!here.contains(v))
      p.bind(v, "r." + name);
}

void WorkloadPrinter::printRowOps(ExprPrinter &p, llvm::ArrayRef<Operation *> ops, llvm::raw_ostream &out) {
  p.declare(ops, out, nullptr, [&](Operation *op, llvm::raw_ostream &o) {
    auto it = rows.field.find(op->getResult(0));
    if (it == rows.field.end())
      return false;
    o << "r." << it->second << " = " << p.expr(op) << ";\n";
    p.bind(op->getResult(0), "r." + it->second);
    return true;
  });
}

mlir::LogicalResult WorkloadPrinter::printBeginRow() {
  llvm::ArrayRef<Operation *> ops = rows.ops[0];
  if (rows.perRowInputs.empty() && rows.runtimeParams.empty() && ops.empty()) {
    os << "template <class In>\nCREDIT_DEVICE static void begin_row(Row&, const In&) {}\n";
    return mlir::success();
  }
  NameSupply local(&workloadScope);
  ExprPrinter p(ExprStyle::Cuda, local);
  bindRowValues(p, ops);
  std::string text;
  llvm::raw_string_ostream ts(text);
  for (auto &[input, field] : rows.perRowInputs)
    ts << "r." << field << " = in.template in<" << input << ">();\n";
  for (auto &[param, field] : rows.runtimeParams)
    ts << "r." << field << " = in.template param<" << param << ">();\n";
  p.scan(ops);
  printRowOps(p, ops, ts);
  os << "template <class In>\n";
  printFunction("CREDIT_DEVICE static void begin_row(Row& r, const In& in)", text);
  return check(p);
}

void WorkloadPrinter::printFunction(llvm::StringRef head, llvm::StringRef text) {
  // One short statement stays on the function's line.
  llvm::StringRef body = llvm::StringRef(text).rtrim();
  if (!body.contains('\n') && head.size() + body.size() + 4 <= kLineWidth) {
    os << head << " { " << body << " }\n";
    return;
  }
  os << head << " {\n";
  os.indent();
  os.printReindented(text);
  os.unindent();
  os << "}\n";
}

mlir::LogicalResult WorkloadPrinter::printFinish(unsigned l) {
  llvm::ArrayRef<Operation *> ops = rows.ops[l + 1];
  cr::StageOp stage = k.stages[l];
  NameSupply local(&workloadScope);
  ExprPrinter p(ExprStyle::Cuda, local);
  bindRowValues(p, ops);
  // r[j]: the stage's statistics in kReduce order (an online statistic's max, then its sums).
  unsigned j = 0;
  for (cr::ElementRegionOpInterface red : stage.getReductions())
    for (Value v : red->getResults())
      p.bind(v, "s[" + std::to_string(j++) + "]");
  p.scan(ops);
  // The stage's own math, its statistics, then the row-level math after it.
  size_t marker = llvm::find(ops, stage.getOperation()) - ops.begin();
  std::string text;
  llvm::raw_string_ostream ts(text);
  printRowOps(p, ops.take_front(marker), ts);
  for (unsigned i = 0; i < stage.getNumResults(); ++i) {
    std::string stat = "r." + rows.field[stage.getResult(i)];
    std::string value = p.ref(stage.getYieldOp().getOperand(i));
    if (value != stat)
      ts << stat << " = " << value << ";\n";
    p.bind(stage.getResult(i), stat);
  }
  printRowOps(p, ops.drop_front(marker), ts);
  printFunction("CREDIT_DEVICE static void finish(Stage<" + std::to_string(l) + ">, Row& r, const float* s)",
                text);
  return check(p);
}

void WorkloadPrinter::printEndRow() {
  NameSupply local(&workloadScope);
  ExprPrinter p(ExprStyle::Cuda, local);
  bindRowValues(p, {});
  std::string text;
  llvm::raw_string_ostream ts(text);
  for (const Operand &o : k.outputs)
    if (o.kind == Operand::PerRow)
      ts << "o.template out<" << o.index << ">("
         << p.ref(llvm::cast<cr::OutputOp>(o.op).getValue()) << ");\n";
  if (text.empty()) {
    os << "template <class O>\nCREDIT_DEVICE static void end_row(const Row&, O&) {}\n";
    return;
  }
  os << "template <class O>\n";
  printFunction("CREDIT_DEVICE static void end_row(const Row& r, O& o)", text);
}

void WorkloadPrinter::printControlValue() {
  // Every statistic: the control kernel's exchange stays alive.
  std::string sum;
  for (cr::StageOp st : k.stages)
    for (Value v : st.getResults())
      sum += (sum.empty() ? "r." : " + r.") + rows.field[v];
  os << "CREDIT_DEVICE static float control_value(const Row& r) { return " << sum << "; }\n";
}

mlir::LogicalResult WorkloadPrinter::printPass(unsigned p) {
  const cr::SchedulePass &pass = k.schedule.passes[p];
  const bool isH = pass.stage < 0;
  // Locals never hide a Row field (fields are read as r.<name>).
  NameSupply local(&workloadScope);
  ExprPrinter ep(k.options->fastMath ? ExprStyle::CudaFast : ExprStyle::Cuda, local);
  ep.setI8Conversion(kI8Conversion);
  bindRowValues(ep, {});
  // The inputs this pass reads, as locals.
  llvm::DenseMap<Operation *, std::string> inputLocal;
  std::string text;
  llvm::raw_string_ostream ts(text);
  // Every element arrives as a float; a bool input's is 0 or 1. (What only a
  // sum that one column decides reads is no read of the pass: pick() reads it.)
  for (bool masks : {false, true}) {
    std::string decl;
    for (unsigned input : pass.reads) {
      if ((k.inputs[input].elem == Operand::Bool) != masks)
        continue;
      std::string name = local.fresh(k.inputs[input].src);
      inputLocal[k.inputs[input].op] = name;
      decl += (decl.empty() ? "" : ", ") + name + " = " + elementRead(k.inputs[input]);
    }
    if (!decl.empty())
      ts << (masks ? "const bool " : "const float ") << decl << ";\n";
  }
  // The element regions of the pass: the stage's reductions, or h.
  llvm::SmallVector<cr::ElementRegionOpInterface> regions;
  if (isH)
    regions.push_back(llvm::cast<cr::ElementRegionOpInterface>(k.apply.getOperation()));
  else
    for (cr::ElementRegionOpInterface r : k.stages[pass.stage].getReductions())
      regions.push_back(r);
  llvm::SmallVector<Operation *> ops;
  for (cr::ElementRegionOpInterface r : regions) {
    if (pickOf(r))
      continue;
    mlir::Block &body = r.getBodyBlock();
    for (unsigned i = 0; i < body.getNumArguments(); ++i) {
      Value operand = r->getOperand(i);
      if (cr::isRowValue(operand))
        ep.bind(body.getArgument(i), inputLocal.lookup(operand.getDefiningOp()));
      else
        ep.alias(body.getArgument(i), operand);
    }
    for (Operation &op : body)
      ops.push_back(&op);
  }
  ep.scan(ops);
  // T(x) of a materialized kept input: computed and kept by its store pass,
  // read back (when the element holds it) by the later ones.
  std::string keeps; // the store pass's keep, after its terms
  ep.declare(ops, ts, [&](Operation *op) { return lets.lookup(op); },
             [&](Operation *op, llvm::raw_ostream &o) {
               for (const cr::Materialization &m : k.schedule.materialized) {
                 if (static_cast<int>(p) < m.storePass || !llvm::is_contained(m.ends, op))
                   continue;
                 const Operand &in = k.inputs[m.input];
                 std::string name = local.derived(inputLocal.lookup(in.op), "m");
                 if (static_cast<int>(p) == m.storePass) {
                   o << "const float " << name << " = " << ep.expr(op) << ";  // T(" << in.src
                     << ") = " << formulaOf(k, op) << ", stored for the later passes\n";
                   keeps += "e.template keep<" + std::to_string(m.input) + ">(" + name + ");\n";
                 } else
                   o << "const float " << name << " = E::template held<" << m.input << ">() ? "
                     << inputLocal.lookup(in.op) << " : " << ep.expr(op) << ";\n";
                 ep.bind(op->getResult(0), name);
                 return true;
               }
               return false;
             });
  if (isH) {
    for (const Operand &o : k.outputs) {
      Value v = llvm::cast<cr::OutputOp>(o.op).getValue();
      if (o.kind != Operand::Row)
        continue;
      auto res = llvm::cast<mlir::OpResult>(v);
      ts << "e.template out<" << o.index << ">("
         << ep.ref(k.apply.getYieldOp().getOperand(res.getResultNumber())) << ");\n";
    }
  } else {
    unsigned j = 0; // the first statistic of each region
    for (cr::ElementRegionOpInterface r : regions) {
      if (pickOf(r)) {
        // printPick
      } else if (auto online = llvm::dyn_cast<cr::ReduceSumExpOp>(r.getOperation())) {
        // The pivot and the weights; the library multiplies by each weight (a
        // constant 1 is no multiply once inlined).
        ts << "e.template add_sumexp<" << j << ">(" << ep.ref(online.getPivot());
        for (unsigned i = 0; i < online.getNumSums(); ++i)
          ts << ", " << ep.ref(online.getWeight(i));
        ts << ");\n";
      } else if (auto moments = llvm::dyn_cast<cr::ReduceMomentsOp>(r.getOperation())) {
        ts << "e.template add_moments<" << j << ">(" << ep.ref(moments.getTerm()) << ");\n";
      } else {
        ts << "e.template add<" << j << ">(" << ep.ref(r.getYieldedValues()[0]) << ");\n";
      }
      j += r->getNumResults();
    }
  }
  ts << keeps;
  const bool usesRow = llvm::StringRef(text).contains("r.");
  os << "template <class E>\n";
  printFunction("CREDIT_DEVICE static void pass(Pass<" + std::to_string(p) + ">, E& e, const Row&" +
                    (usesRow ? " r" : "") + ")",
                text);
  return check(ep);
}

mlir::LogicalResult WorkloadPrinter::printPick(unsigned l) {
  NameSupply local(&workloadScope);
  ExprPrinter ep(k.options->fastMath ? ExprStyle::CudaFast : ExprStyle::Cuda, local);
  ep.setI8Conversion(kI8Conversion);
  bindRowValues(ep, {});
  std::string text;
  llvm::raw_string_ostream ts(text);
  unsigned j = 0; // the first statistic of each region
  for (cr::ElementRegionOpInterface r : k.stages[l].getReductions()) {
    std::optional<cr::IndexedPick> pick = pickOf(r);
    const unsigned first = j;
    j += r->getNumResults();
    if (!pick)
      continue;
    // The column u first (the same for the whole row), then v there: its
    // inputs read at u.
    mlir::Block &body = r.getBodyBlock();
    BodySlice column = sliceOf(body, {pick->column});
    BodySlice value = sliceOf(body, {pick->value});
    std::string inputs;
    for (mlir::BlockArgument arg : body.getArguments()) {
      Value operand = r->getOperand(arg.getArgNumber());
      if (!cr::isRowValue(operand)) {
        ep.alias(arg, operand);
        continue;
      }
      if (!llvm::is_contained(value.args, arg))
        continue;
      const Operand *in = llvm::find_if(k.inputs, [&](const Operand &o) { return o.op == operand.getDefiningOp(); });
      if (in == k.inputs.end())
        return r->emitError("cannot print the input of an indexed pick");
      std::string name = local.fresh(in->src);
      inputs += std::string(in->elem == Operand::Bool ? "const bool " : "const float ") + name + " = " +
                elementRead(*in) + ";\n";
      ep.bind(arg, name);
    }
    llvm::SmallVector<Operation *> all(column.ops);
    for (Operation *op : value.ops)
      if (!llvm::is_contained(all, op))
        all.push_back(op);
    ep.scan(all);
    ep.declare(column.ops, ts, [&](Operation *op) { return lets.lookup(op); });
    ts << "if (e.at(" << ep.ref(pick->column) << ")) {\n";
    std::string inner = inputs;
    llvm::raw_string_ostream is(inner);
    ep.declare(value.ops, is, [&](Operation *op) { return lets.lookup(op); });
    is << "e.template add<" << first << ">(" << ep.ref(pick->value) << ");\n";
    for (llvm::StringRef line : llvm::split(llvm::StringRef(inner).rtrim(), '\n'))
      ts << "  " << line << "\n";
    ts << "}\n";
  }
  os << "template <class E>\n";
  printFunction("CREDIT_DEVICE static void pick(Pass<" + std::to_string(l) + ">, E& e, const Row&" +
                    (llvm::StringRef(text).contains("r.") ? " r" : "") + ")",
                text);
  return check(ep);
}

mlir::LogicalResult WorkloadPrinter::print() {
  // The contract's names first: no param or field takes them.
  for (llvm::StringRef own :
       {"kStages", "kQ", "kReduce", "kInputs", "kOutputs", "kReads", "kNumKept", "kKept", "kSmemSlot",
        "kMaterialize", "kPartialDrop", "kPartialDropReadLate", "kHoisted", "kPrefetchL2", "kThreads",
        "kWideThreads", "kFastMath", "kPicked", "Row", "begin_row", "pass", "pick", "finish", "end_row", "control_value",
        "Reduce", "Operand", "Kind", "Elem", "Pass", "Stage",
        // the functions' parameters and template parameters
        "e", "r", "s", "in", "o", "E", "In", "O"})
    workloadScope.claim(own);
  // And the functions the expressions call (a static member would hide them).
  ExprPrinter(ExprStyle::Cuda, workloadScope);
  ExprPrinter(ExprStyle::CudaFast, workloadScope);
  rowScope.claim("N");
  rowScope.claim("Row"); // no member is named as its class
  rows = placeRowLevel(k.kernel, rowScope, lets);
  os << "struct " << structName << " {\n";
  os.indent();
  printConstants();
  printRow();
  bool ok = succeeded(printBeginRow());
  const unsigned L = k.stages.size();
  for (unsigned p = 0; p < k.schedule.passes.size(); ++p) {
    ok &= succeeded(printPass(p));
    if (p < L && hasPicks(k.stages[p]))
      ok &= succeeded(printPick(p));
    if (p < L)
      ok &= succeeded(printFinish(p));
  }
  printEndRow();
  printControlValue();
  os.unindent();
  os << "};\n";
  return mlir::success(ok);
}

} // namespace

mlir::LogicalResult printWorkload(const KernelView &k, mlir::raw_indented_ostream &os,
                                  llvm::StringRef structName) {
  return WorkloadPrinter(k, os, structName).print();
}

void printToolFigures(const KernelView &k, llvm::raw_ostream &os) {
  const ::credit::WorkloadGeometry &g = k.schedule.geometry;
  os << "// What tools read from this file (credit-calibrate): the narrow forms' geometry, the\n"
     << "// cluster barriers per row (sync: two a stage; mbarrier: the set-up one), the target.\n";
  os << "inline constexpr credit::WorkloadGeometry geometry = {" << g.keepBytesPerElem << ", " << g.numStages
     << ", " << g.qMax << ", " << g.qSum << ", " << g.threads << ", " << g.hOnlyArrays << "};\n";
  os << "inline constexpr int K_sync = " << k.barriersSync << ";\n";
  os << "inline constexpr int K_mbarrier = " << k.barriersMbarrier << ";\n";
  os << "inline constexpr credit::TargetInfo target = credit::findTarget(\"" << k.target.arch << "\");\n";
  os << "static_assert(credit::device::sameGeometry(geometry, Contract<Workload>::narrowGeometry()), "
        "\"geometry\");\n";
  if (k.reread) {
    const ::credit::WorkloadGeometry &r = k.reread->schedule.geometry;
    os << "// The reread kernels' (their own stages: RereadWorkload).\n";
    os << "inline constexpr credit::WorkloadGeometry reread_geometry = {" << r.keepBytesPerElem << ", "
       << r.numStages << ", " << r.qMax << ", " << r.qSum << ", " << r.threads << ", " << r.hOnlyArrays
       << "};\n";
    os << "static_assert(credit::device::sameGeometry(reread_geometry, "
          "Contract<RereadWorkload>::narrowGeometry()), \"reread_geometry\");\n";
  }
}

} // namespace credit::cuda
