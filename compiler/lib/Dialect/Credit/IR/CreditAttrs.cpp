//===- CreditAttrs.cpp - attributes of the `credit` dialect ---------------===//
//
// The enum attributes, #credit.geometry and #credit.schedule: their custom
// parameter syntax, their verifiers, and the checks of `credit.schedule` and
// `credit.materialized` against the kernel they annotate.
//
//===----------------------------------------------------------------------===//
#include "credit/Dialect/Credit/IR/CreditDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::credit;

namespace mlir::credit::detail {

/// `[` (string (`,` string)*)? `]`
FailureOr<llvm::SmallVector<StringAttr>> parseNameList(AsmParser &parser) {
  llvm::SmallVector<StringAttr> names;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() -> ParseResult {
        std::string name;
        if (parser.parseString(&name))
          return failure();
        names.push_back(StringAttr::get(parser.getContext(), name));
        return success();
      }, " in a list of input names"))
    return failure();
  return names;
}

void printNameList(AsmPrinter &printer, llvm::ArrayRef<StringAttr> names) {
  printer << "[";
  llvm::interleaveComma(names, printer, [&](StringAttr n) { printer.printString(n.getValue()); });
  printer << "]";
}

/// `[` (form (`,` form)*)? `]`
FailureOr<llvm::SmallVector<Form>> parseFormList(AsmParser &parser) {
  llvm::SmallVector<Form> forms;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() -> ParseResult {
        llvm::SMLoc loc = parser.getCurrentLocation();
        llvm::StringRef word;
        if (parser.parseKeyword(&word))
          return failure();
        std::optional<Form> f = symbolizeForm(word);
        if (!f)
          return parser.emitError(loc, "unknown kernel form '") << word << "'";
        forms.push_back(*f);
        return success();
      }, " in a list of kernel forms"))
    return failure();
  return forms;
}

void printFormList(AsmPrinter &printer, llvm::ArrayRef<Form> forms) {
  printer << "[";
  llvm::interleaveComma(forms, printer, [&](Form f) { printer << stringifyForm(f); });
  printer << "]";
}

/// `[` (string `by` integer (`,` ...)*)? `]`
FailureOr<llvm::SmallVector<MaterializedInput>> parseMaterializedList(AsmParser &parser) {
  llvm::SmallVector<MaterializedInput> out;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() -> ParseResult {
        std::string name;
        int64_t pass = 0;
        if (parser.parseString(&name) || parser.parseKeyword("by") || parser.parseInteger(pass))
          return failure();
        out.push_back({StringAttr::get(parser.getContext(), name), pass});
        return success();
      }, " in a list of materializations (\"input\" by pass)"))
    return failure();
  return out;
}

void printMaterializedList(AsmPrinter &printer, llvm::ArrayRef<MaterializedInput> list) {
  printer << "[";
  llvm::interleaveComma(list, printer, [&](const MaterializedInput &m) {
    printer.printString(m.input.getValue());
    printer << " by " << m.pass;
  });
  printer << "]";
}

FailureOr<bool> parseFlag(AsmParser &parser) {
  if (succeeded(parser.parseOptionalKeyword("true")))
    return true;
  if (succeeded(parser.parseOptionalKeyword("false")))
    return false;
  return parser.emitError(parser.getCurrentLocation(), "expected 'true' or 'false'");
}

} // namespace mlir::credit::detail

#define GET_ATTRDEF_CLASSES
#include "credit/Dialect/Credit/IR/CreditAttrDefs.cpp.inc"

void CreditDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "credit/Dialect/Credit/IR/CreditAttrDefs.cpp.inc"
      >();
}

bool mlir::credit::isWideCtaForm(Form f) {
  switch (f) {
  case Form::ClusterWideSync:
  case Form::ClusterWideMbarrier:
  case Form::Persistent:
  case Form::PersistentHalves:
  case Form::PersistentClaims:
  case Form::PersistentHalvesClaims:
  case Form::StagedWide:
  case Form::StagedRegsWideWide:
  case Form::StagedRegsDeepWide:
    return true;
  default:
    return false;
  }
}

bool mlir::credit::isPersistentForm(Form f) {
  return f == Form::Persistent || f == Form::PersistentHalves || f == Form::PersistentClaims ||
         f == Form::PersistentHalvesClaims;
}

llvm::SmallVector<PerElementOperand> mlir::credit::perElementOperands(KernelOp kernel) {
  llvm::SmallVector<PerElementOperand> out;
  for (InputOp in : kernel.getInputOps())
    if (!in.isScalar())
      out.push_back({in, in.getType(), false});
  for (OutputOp o : kernel.getOutputOps())
    if (isRowType(o.getValue().getType()))
      out.push_back({o, o.getValue().getType(), true});
  return out;
}

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

LogicalResult GeometryAttr::verify(function_ref<InFlightDiagnostic()> emitError, int keep,
                                   int stages, int qMax, int qSum, int threads, int hOnly) {
  if (keep < 0 || stages < 1 || qMax < 1 || qSum < qMax || hOnly < 0)
    return emitError() << "#credit.geometry needs keep >= 0, stages >= 1, 1 <= q_max <= q_sum and "
                          "h_only >= 0";
  if (threads < 32 || threads % 32 != 0)
    return emitError() << "#credit.geometry: threads must be a positive multiple of 32, got "
                       << threads;
  return success();
}

namespace {
/// The names of `list` are distinct; `what` names the list in the message.
LogicalResult distinct(function_ref<InFlightDiagnostic()> emitError, llvm::ArrayRef<StringAttr> list,
                       llvm::StringRef what) {
  llvm::StringSet<> seen;
  for (StringAttr n : list)
    if (!seen.insert(n.getValue()).second)
      return emitError() << "#credit.schedule: '" << n.getValue() << "' appears twice in " << what;
  return success();
}

bool contains(llvm::ArrayRef<StringAttr> list, StringAttr n) { return llvm::is_contained(list, n); }

} // namespace

LogicalResult ScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError, int threads,
                                   int wideThreads, llvm::ArrayRef<Form> forms,
                                   llvm::ArrayRef<StringAttr> kept, llvm::ArrayRef<StringAttr> smem,
                                   llvm::ArrayRef<MaterializedInput> materialized,
                                   StringAttr partialDrop, bool partialDropReadLate, bool keptReadLate,
                                   llvm::ArrayRef<StringAttr> onlyH, llvm::ArrayRef<StringAttr> hoisted,
                                   llvm::ArrayRef<StringAttr> prefetchL2, GeometryAttr geometry,
                                   int vectorWidth) {
  if (vectorWidth != 4 && vectorWidth != 8)
    return emitError() << "#credit.schedule: vector_width must be 4 or 8, got " << vectorWidth;
  if (threads != 128 && threads != 256 && threads != 512 && threads != 1024)
    return emitError() << "#credit.schedule: threads must be 128, 256, 512 or 1024, got " << threads;
  if (wideThreads != 0 && wideThreads != 2 * threads)
    return emitError() << "#credit.schedule: wide_threads must be 0 or twice threads (" << 2 * threads
                       << "), got " << wideThreads;
  if (!geometry)
    return emitError() << "#credit.schedule needs a geometry";
  if (geometry.getThreads() != threads)
    return emitError() << "#credit.schedule: the geometry's threads (" << geometry.getThreads()
                       << ") differ from threads (" << threads << ")";
  if (geometry.getHOnly() != static_cast<int>(onlyH.size()))
    return emitError() << "#credit.schedule: the geometry's h_only (" << geometry.getHOnly()
                       << ") is not the number of inputs only h reads (" << onlyH.size() << ")";
  for (auto [list, what] : {std::pair{kept, "kept"}, std::pair{smem, "smem"},
                            std::pair{onlyH, "only_h"}, std::pair{hoisted, "hoisted"},
                            std::pair{prefetchL2, "prefetch_l2"}})
    if (failed(distinct(emitError, list, what)))
      return failure();
  if (smem.size() != kept.size() || llvm::any_of(smem, [&](StringAttr n) { return !contains(kept, n); }))
    return emitError() << "#credit.schedule: smem must list the kept inputs, each once";
  for (StringAttr n : onlyH)
    if (contains(kept, n))
      return emitError() << "#credit.schedule: '" << n.getValue()
                         << "' is both kept and only read by h";
  for (auto [list, what] : {std::pair{hoisted, "hoisted"}, std::pair{prefetchL2, "prefetch_l2"}})
    for (StringAttr n : list)
      if (!contains(onlyH, n))
        return emitError() << "#credit.schedule: " << what << " input '" << n.getValue()
                           << "' is not in only_h";
  llvm::StringSet<> materializedSeen;
  for (const MaterializedInput &m : materialized) {
    if (!contains(kept, m.input))
      return emitError() << "#credit.schedule: materialized input '" << m.input.getValue()
                         << "' is not kept";
    if (m.pass < 1)
      return emitError() << "#credit.schedule: '" << m.input.getValue()
                         << "' is materialized by pass " << m.pass
                         << "; T(x) is stored by a pass after the first one that reads x";
    if (!materializedSeen.insert(m.input.getValue()).second)
      return emitError() << "#credit.schedule: '" << m.input.getValue() << "' is materialized twice";
  }
  if (partialDrop) {
    if (kept.size() < 2 || !contains(kept, partialDrop))
      return emitError() << "#credit.schedule: partial_drop '" << partialDrop.getValue()
                         << "' must be one of two or more kept inputs";
    if (smem.back() != partialDrop)
      return emitError() << "#credit.schedule: the partial form's dropped input '"
                         << partialDrop.getValue() << "' must have the last SMEM array";
  } else if (partialDropReadLate) {
    return emitError() << "#credit.schedule: partial_drop_read_late without partial_drop";
  }
  llvm::SmallVector<Form> seen;
  for (Form f : forms) {
    if (llvm::is_contained(seen, f))
      return emitError() << "#credit.schedule: form " << stringifyForm(f) << " appears twice";
    seen.push_back(f);
    if (isWideCtaForm(f) && wideThreads == 0)
      return emitError() << "#credit.schedule: form " << stringifyForm(f)
                         << " runs at wide_threads, which is 0";
    if ((f == Form::ClusterPartialSync || f == Form::ClusterPartialMbarrier) && !partialDrop)
      return emitError() << "#credit.schedule: form " << stringifyForm(f) << " needs a partial_drop";
    if (isPersistentForm(f) && vectorWidth != 4)
      return emitError() << "#credit.schedule: form " << stringifyForm(f)
                         << " runs float4 accesses only (vector_width 4)";
    if ((isPersistentForm(f) || f == Form::StagedRegsDeepWide) && kept.empty())
      return emitError() << "#credit.schedule: form " << stringifyForm(f) << " needs a kept input";
  }
  return success();
}

LogicalResult mlir::credit::verifyScheduleForKernel(KernelOp kernel, ScheduleAttr s,
                                                    function_ref<InFlightDiagnostic()> emitError) {
  auto input = [&](StringAttr n, llvm::StringRef what) -> FailureOr<InputOp> {
    InputOp in = kernel.lookupInput(n.getValue());
    if (!in) {
      emitError() << "#credit.schedule: " << what << " '" << n.getValue()
                  << "' is not an input of kernel '" << kernel.getSymName() << "'";
      return failure();
    }
    return in;
  };
  auto ofKind = [&](llvm::ArrayRef<StringAttr> list, llvm::StringRef what,
                    std::optional<InputKind> kind) -> LogicalResult {
    for (StringAttr n : list) {
      FailureOr<InputOp> in = input(n, what);
      if (failed(in))
        return failure();
      if (kind ? in->getKind() != *kind : in->isScalar())
        return emitError() << "#credit.schedule: " << what << " '" << n.getValue() << "' must be a "
                           << (kind ? stringifyInputKind(*kind) : "row or broadcast") << " input";
    }
    return success();
  };
  if (failed(ofKind(s.getKept(), "kept input", InputKind::row)) ||
      failed(ofKind(s.getOnlyH(), "input only h reads", std::nullopt)) ||
      failed(ofKind(s.getHoisted(), "hoisted input", InputKind::broadcast)) ||
      failed(ofKind(s.getPrefetchL2(), "prefetched input", InputKind::row)))
    return failure();
  const int64_t numPasses =
      static_cast<int64_t>(llvm::range_size(kernel.getStageOps())) + (kernel.getApplyOp() ? 1 : 0);
  for (const MaterializedInput &m : s.getMaterialized())
    if (m.pass >= numPasses)
      return emitError() << "#credit.schedule: '" << m.input.getValue() << "' is materialized by pass "
                         << m.pass << ", but the kernel has " << numPasses << " passes";
  // Runs of 8 elements move 16 bytes of 16-bit data; an operand of 4 bytes or more
  // would take two accesses a run, and its kept slice two-way bank conflicts.
  if (s.getVectorWidth() == 8)
    for (const PerElementOperand &o : perElementOperands(kernel))
      if (cast<RowType>(o.type).getElementType().getIntOrFloatBitWidth() > 16)
        return emitError() << "#credit.schedule: vector_width 8 with the " << o.type
                           << (o.output ? " output '" : " input '")
                           << (o.output ? cast<OutputOp>(o.op).getName() : cast<InputOp>(o.op).getName())
                           << "' (runs of 8 are for operands of at most 2 bytes)";
  // 16-bit kept slices: no T(x) stored over them (it would be rounded), and no
  // persistent form (its ring's units are laid out for f32 slices).
  for (StringAttr n : s.getKept()) {
    Type e = cast<RowType>(kernel.lookupInput(n.getValue()).getType()).getElementType();
    if (e.isF32())
      continue;
    for (const MaterializedInput &m : s.getMaterialized())
      if (m.input == n)
        return emitError() << "#credit.schedule: '" << n.getValue() << "' (" << e
                           << ") cannot be materialized: its kept copy is 16-bit";
    for (Form f : s.getForms())
      if (isPersistentForm(f))
        return emitError() << "#credit.schedule: form " << stringifyForm(f) << " with the " << e
                           << " kept input '" << n.getValue() << "' (the ring keeps f32 slices only)";
  }
  return success();
}

LogicalResult CreditDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  if (attr.getName() == "credit.schedule") {
    auto kernel = llvm::dyn_cast<KernelOp>(op);
    if (!kernel)
      return op->emitError("'credit.schedule' annotates a credit.kernel only");
    auto s = llvm::dyn_cast<ScheduleAttr>(attr.getValue());
    if (!s)
      return op->emitError("'credit.schedule' must be a #credit.schedule attribute");
    return verifyScheduleForKernel(kernel, s, [&]() { return op->emitError(); });
  }
  if (attr.getName() == "credit.materialized") {
    auto name = llvm::dyn_cast<StringAttr>(attr.getValue());
    if (!name)
      return op->emitError("'credit.materialized' must name a kept input (a string)");
    if (!op->getParentOfType<ElementRegionOpInterface>())
      return op->emitError("'credit.materialized' annotates an op of a reduce or apply region");
    auto kernel = op->getParentOfType<KernelOp>();
    InputOp in = kernel ? kernel.lookupInput(name.getValue()) : InputOp();
    if (!in || !in.isRow())
      return op->emitError("'credit.materialized': '") << name.getValue()
                                                       << "' is not a row input of the kernel";
    return success();
  }
  return success();
}
