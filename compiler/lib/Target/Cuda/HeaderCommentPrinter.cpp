//===- HeaderCommentPrinter.cpp - the header comment of a generated file --===//
//
// What the file is (kernel, source, creditc version, options), the workload's
// formulas in the source's names, and a summary of the schedule.
//
//===----------------------------------------------------------------------===//
#include "ExprPrinter.h"
#include "LetNames.h"
#include "Printers.h"

#include "credit/Dialect/Credit/Transforms/Analyses.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

#ifndef CREDIT_VERSION
#define CREDIT_VERSION "0.0.0"
#endif

namespace cr = mlir::credit;
using mlir::Operation;

namespace credit::cuda {
namespace {

const char *reduceWord(cr::ReduceKind k) {
  switch (k) {
  case cr::ReduceKind::sum: return "sum";
  case cr::ReduceKind::max: return "max";
  case cr::ReduceKind::min: return "min";
  }
  return "sum";
}

std::string passName(const cr::KernelSchedule &s, int p) {
  int stage = s.passes[p].stage;
  return stage < 0 ? "h" : "stage " + std::to_string(stage + 1);
}

std::string readers(const cr::KernelSchedule &s, unsigned input, int from = 0) {
  std::string out;
  for (int p : s.readersOf(input))
    if (p >= from)
      out += (out.empty() ? "" : ", ") + passName(s, p);
  return out;
}

/// The formulas: every statistic, let, output, in program order.
void printFormulas(const KernelView &k, llvm::raw_ostream &os) {
  NameSupply unused;
  ExprPrinter m(ExprStyle::Math, unused);
  LetNames lets(k.options->sourceName, k.options->sourceText);
  auto letName = [&](Operation *op) { return lets.lookup(op); };
  std::string text;
  llvm::raw_string_ostream ts(text);
  for (const Operand &in : k.inputs)
    m.bind(in.op->getResult(0), in.src);
  for (cr::ParamOp p : k.params)
    m.bind(p.getResult(), p.getName().str());
  // Value numbering over the whole kernel: the row-level ops, then each region.
  for (Operation &op : k.kernel.getBodyBlock())
    if (auto n = llvm::dyn_cast<cr::RowWidthOp>(op))
      m.bind(n.getResult(), "N");
  llvm::SmallVector<Operation *> rowOps;
  llvm::SmallVector<cr::ElementRegionOpInterface> regions;
  k.kernel.getBodyBlock().walk([&](Operation *op) {
    if (auto r = llvm::dyn_cast<cr::ElementRegionOpInterface>(op)) {
      regions.push_back(r);
      for (unsigned i = 0; i < r.getBodyBlock().getNumArguments(); ++i)
        m.alias(r.getBodyBlock().getArgument(i), r->getOperand(i));
    } else if (op->getParentOp() == k.kernel.getOperation() ||
               llvm::isa<cr::StageOp>(op->getParentOp())) {
      rowOps.push_back(op);
    }
  });
  m.scan(rowOps);
  for (cr::ElementRegionOpInterface r : regions)
    m.scan(ExprPrinter::opsOf(r.getBodyBlock()));
  // An element region: its lets, then the values it yields.
  auto region = [&](cr::ElementRegionOpInterface r) {
    m.declare(ExprPrinter::opsOf(r.getBodyBlock()), ts, letName);
    llvm::SmallVector<std::string> out;
    for (mlir::Value y : r.getYieldedValues())
      out.push_back(m.ref(y));
    return out;
  };
  // An online statistic as its two-pass definition: m = max(p), s_i = sum(w_i *
  // exp(p - m)), m by the stage's name of it where the stage yields it.
  auto printOnline = [&](cr::ReduceSumExpOp online, cr::StageOp stage, auto &region) {
    region(llvm::cast<cr::ElementRegionOpInterface>(online.getOperation()));
    std::string pivot = m.ref(online.getPivot(), 1);
    std::string max = "max(" + m.ref(online.getPivot()) + ")";
    m.bind(online.getMax(), max);
    std::string mName = max;
    for (unsigned i = 0; i < stage.getNumResults(); ++i)
      if (stage.getYieldOp().getOperand(i) == online.getMax())
        mName = stage.getResultName(i).str();
    for (unsigned i = 0; i < online.getNumSums(); ++i) {
      mlir::Value w = online.getWeight(i);
      auto one = w.getDefiningOp<mlir::arith::ConstantFloatOp>();
      bool unit = one && one.value().isExactlyValue(1.0);
      m.bind(online.getSums()[i], "sum(" + (unit ? "" : m.ref(w, 2) + " * ") + "exp(" + pivot + " - " + mName + "))");
    }
  };
  // Moments as their two-pass definition: s = sum(e), m2 = sum((e - c) * (e -
  // c)), c by the stage's name of s / N where the stage yields it.
  auto printMoments = [&](cr::ReduceMomentsOp moments, cr::StageOp stage, auto &region) {
    region(llvm::cast<cr::ElementRegionOpInterface>(moments.getOperation()));
    std::string term = m.ref(moments.getTerm(), 1);
    m.bind(moments.getSum(), "sum(" + m.ref(moments.getTerm()) + ")");
    std::string mean = "sum(" + m.ref(moments.getTerm()) + ") / N";
    for (unsigned i = 0; i < stage.getNumResults(); ++i) {
      mlir::Value y = stage.getYieldOp().getOperand(i);
      if (y == moments.getSum())
        mean = stage.getResultName(i).str() + " / N";
      else if (auto div = y.getDefiningOp<mlir::arith::DivFOp>())
        if (div.getLhs() == moments.getSum() && div.getRhs().getDefiningOp<cr::RowWidthOp>())
          mean = stage.getResultName(i).str();
    }
    m.bind(moments.getM2(), "sum((" + term + " - " + mean + ") * (" + term + " - " + mean + "))");
    m.bind(moments.getCount(), "N");
  };
  for (Operation &op : k.kernel.getBodyBlock()) {
    if (auto stage = llvm::dyn_cast<cr::StageOp>(op)) {
      for (cr::ElementRegionOpInterface r : stage.getReductions()) {
        if (auto online = llvm::dyn_cast<cr::ReduceSumExpOp>(r.getOperation())) {
          printOnline(online, stage, region);
          continue;
        }
        if (auto moments = llvm::dyn_cast<cr::ReduceMomentsOp>(r.getOperation())) {
          printMoments(moments, stage, region);
          continue;
        }
        auto red = llvm::cast<cr::ReduceOp>(r.getOperation());
        m.bind(red.getResult(), std::string(reduceWord(red.getKind())) + "(" + region(r)[0] + ")");
      }
      m.declare(ExprPrinter::opsOf(stage.getBodyBlock()), ts, letName);
      for (unsigned i = 0; i < stage.getNumResults(); ++i) {
        ts << "stage " << stage.getStageIndex() + 1 << ": " << stage.getResultName(i) << " = "
           << m.ref(stage.getYieldOp().getOperand(i)) << "\n";
        m.bind(stage.getResult(i), stage.getResultName(i).str());
      }
      // Which of them one online statistic computes in a single sweep.
      for (cr::ElementRegionOpInterface r : stage.getReductions())
        if (auto online = llvm::dyn_cast<cr::ReduceSumExpOp>(r.getOperation())) {
          llvm::SmallVector<std::string> names;
          for (mlir::Value v : online->getResults())
            for (unsigned i = 0; i < stage.getNumResults(); ++i)
              if (stage.getYieldOp().getOperand(i) == v)
                names.push_back(stage.getResultName(i).str());
          if (names.size() > 1)
            ts << "stage " << stage.getStageIndex() + 1 << ": " << llvm::join(names, ", ")
               << " in one sweep (online max and sums of exponentials)\n";
        } else if (llvm::isa<cr::ReduceMomentsOp>(r.getOperation())) {
          ts << "stage " << stage.getStageIndex() + 1
             << ": one sweep of count, sum and centred sum of squares (Chan's pairwise update)\n";
        }
      // And which one column decides (read there once per row: pick()).
      for (cr::ElementRegionOpInterface r : stage.getReductions())
        if (auto red = llvm::dyn_cast<cr::ReduceOp>(r.getOperation()); red && cr::readIndexedPick(red))
          for (unsigned i = 0; i < stage.getNumResults(); ++i)
            if (stage.getYieldOp().getOperand(i) == red.getResult())
              ts << "stage " << stage.getStageIndex() + 1 << ": " << stage.getResultName(i)
                 << " read at the one column it selects, once per row (pick)\n";
    } else if (auto apply = llvm::dyn_cast<cr::ApplyOp>(op)) {
      llvm::SmallVector<std::string> h = region(llvm::cast<cr::ElementRegionOpInterface>(op));
      for (const Operand &o : k.outputs)
        if (auto res = llvm::dyn_cast<mlir::OpResult>(llvm::cast<cr::OutputOp>(o.op).getValue());
            res && res.getOwner() == apply.getOperation())
          ts << o.src << " = " << h[res.getResultNumber()] << "\n";
    } else if (ExprPrinter::isExprOp(&op)) {
      m.declare({&op}, ts, letName);
    }
  }
  for (const Operand &o : k.outputs)
    if (o.kind == Operand::PerRow)
      ts << o.src << " = " << m.ref(llvm::cast<cr::OutputOp>(o.op).getValue()) << " (one per row)\n";
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(text).split(lines, '\n', -1, false);
  llvm::StringSet<> printed; // an element-level let of several regions: once
  for (llvm::StringRef line : lines)
    if (printed.insert(line).second)
      os << "//   " << line << "\n";
  if (k.reread)
    os << "//   reread kernels: " << k.reread->stages.size()
       << " stage(s), each max with its sums of exponentials in one sweep (RereadWorkload)\n";
}

/// Where each input is read from, and what the schedule keeps or rewrites.
void printSchedule(const KernelView &k, llvm::raw_ostream &os) {
  const cr::KernelSchedule &s = k.schedule;
  std::string kept;
  for (unsigned i : s.kept)
    kept += (kept.empty() ? "" : "; ") + k.inputs[i].src + " (" + readers(s, i) + ")";
  // The other inputs, those read alike together: "gamma, beta: broadcast, read by h only".
  llvm::SmallVector<std::pair<std::string, std::string>> groups; // (names, how)
  for (const Operand &in : k.inputs) {
    if (llvm::is_contained(s.kept, in.index) || in.kind == Operand::PerRow)
      continue;
    llvm::SmallVector<int> passes = s.readersOf(in.index);
    std::string how = std::string(in.kind == Operand::Broadcast ? "broadcast, " : "") + "read by " +
                      (passes.empty() ? "no pass" : readers(s, in.index)) +
                      (passes.size() == 1 && s.passes[passes[0]].stage < 0 ? " only" : "");
    if (!groups.empty() && groups.back().second == how)
      groups.back().first += ", " + in.src;
    else
      groups.push_back({in.src, how});
  }
  llvm::SmallVector<std::string> parts;
  if (!kept.empty())
    parts.push_back("kept on chip: " + kept);
  for (auto &[names, how] : groups)
    parts.push_back(names + ": " + how);
  std::string line = llvm::join(parts, "; ");
  if (line.size() <= 110)
    os << "//   " << line << "\n";
  else
    for (const std::string &part : parts)
      os << "//   " << part << "\n";
  for (const cr::Materialization &mat : s.materialized) {
    const std::string &x = k.inputs[mat.input].src;
    os << "//   " << x << " rewritten in place by " << passName(s, mat.storePass) << ": later passes ("
       << readers(s, mat.input, mat.storePass + 1) << ") read T(" << x << ") from the kept slice\n";
  }
  if (s.partialDrop >= 0) {
    unsigned x = s.kept[s.partialDrop];
    os << "//   partial-retention form: " << k.inputs[x].src << " read from global memory (L2) by "
       << readers(s, x) << "\n";
  }
  llvm::SmallVector<KernelInstance> kernels = k.kernels();
  os << "//   " << kernels.size() << " kernels, " << s.threads << " threads per CTA";
  if (s.wideThreads)
    os << " (" << s.wideThreads << " in the wide-CTA forms)";
  os << "\n";
}

} // namespace

std::string formulaOf(const KernelView &k, Operation *op) {
  NameSupply unused;
  ExprPrinter m(ExprStyle::Math, unused);
  for (const Operand &in : k.inputs)
    m.bind(in.op->getResult(0), in.src);
  for (cr::ParamOp p : k.params)
    m.bind(p.getResult(), p.getName().str());
  for (cr::StageOp stage : k.stages)
    for (unsigned i = 0; i < stage.getNumResults(); ++i)
      m.bind(stage.getResult(i), stage.getResultName(i).str());
  // Inside an element region: its arguments are the region's operands.
  for (Operation *parent = op->getParentOp(); parent; parent = parent->getParentOp())
    if (auto r = llvm::dyn_cast<cr::ElementRegionOpInterface>(parent))
      for (unsigned i = 0; i < r.getBodyBlock().getNumArguments(); ++i)
        m.alias(r.getBodyBlock().getArgument(i), r->getOperand(i));
  return m.expr(op);
}

void printHeaderComment(const KernelView &k, llvm::raw_ostream &os) {
  const CudaEmitOptions &o = *k.options;
  std::string source = o.sourceName.empty() ? std::string("<unknown>")
                                            : llvm::sys::path::filename(o.sourceName).str();
  os << "// " << k.prefix << ".cu -- generated by creditc " << CREDIT_VERSION << " from " << source
     << " (kernel " << k.name << "). Do not edit.\n";
  os << "// Options: --arch=" << k.target.arch << " --cta-threads=" << k.schedule.threads;
  if (!o.variants.empty()) {
    os << " --variant=";
    llvm::interleave(o.variants, os, [&](Variant v) { os << variantName(v); }, ",");
  }
  // The element math, so that the line regenerates the file.
  if (o.fastMath)
    os << " --fast-math";
  else if (o.fastMathByDefault)
    os << " --fast-math=false";
  if (o.dispatch)
    os << " --profile " << llvm::sys::path::filename(o.dispatch->path);
  if (o.standalone)
    os << " --standalone";
  bool moments = false;
  for (cr::StageOp stage : k.stages)
    for (cr::ElementRegionOpInterface r : stage.getReductions())
      moments |= llvm::isa<cr::ReduceMomentsOp>(r.getOperation());
  if (moments)
    os << " --fuse-moments";
  os << ".\n"
     << "// The kernels are instances of the device library's row kernel; the launch API\n"
     << "// forwards to credit/runtime/Launch.h" << (o.dispatch ? " and Dispatch.h" : "")
     << " (docs/codegen.md).\n//\n";
  printFormulas(k, os);
  printSchedule(k, os);
}

} // namespace credit::cuda
