//===- CreditOps.cpp - ops of the `credit` dialect ------------------------===//
//
// Builders, verifiers, asm-name hooks and canonicalization patterns.
//
//===----------------------------------------------------------------------===//

#include "credit/Dialect/Credit/IR/CreditDialect.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

#include <charconv>
#include <cmath>
#include <string>

using namespace mlir;
using namespace mlir::credit;

//===----------------------------------------------------------------------===//
// Custom assembly directives
//===----------------------------------------------------------------------===//

/// `row` | `broadcast` | `scalar`, as a bare keyword.
static ParseResult parseInputKindKeyword(OpAsmParser &parser,
                                         InputKindAttr &attr) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<InputKind> kind = symbolizeInputKind(keyword);
  if (!kind)
    return parser.emitError(loc, "expected input kind 'row', 'broadcast' or "
                                 "'scalar', got '")
           << keyword << "'";
  attr = InputKindAttr::get(parser.getContext(), *kind);
  return success();
}

static void printInputKindKeyword(OpAsmPrinter &p, Operation *,
                                  InputKindAttr attr) {
  p << stringifyInputKind(attr.getValue());
}

/// Shortest decimal form of `v` that reads back to the same value, as an
/// MLIR float literal (always with a '.': 1e-05 -> 1.0e-05, 3 -> 3.0).
/// Returns "" for inf/nan.
template <typename T>
static std::string formatShortestFloat(T v) {
  if (!std::isfinite(v))
    return "";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  if (ec != std::errc())
    return "";
  std::string s(buf, end);
  if (s.find('.') == std::string::npos) {
    size_t e = s.find_first_of("eE");
    s.insert(e == std::string::npos ? s.size() : e, ".0");
  }
  return s;
}

/// Whether the next token is a (possibly negated) decimal integer literal,
/// which parseFloat rejects ("add a trailing dot"). Peeks at the source text.
static bool nextTokenIsDecimalInteger(OpAsmParser &parser) {
  const char *p = parser.getCurrentLocation().getPointer();
  if (!p)
    return false;
  if (*p == '-')
    ++p;
  if (!llvm::isDigit(*p) || (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')))
    return false;
  while (llvm::isDigit(*p))
    ++p;
  return *p != '.' && *p != 'e' && *p != 'E';
}

/// An f32 literal, printed in its shortest round-trip form (`1.0e-05`, not
/// `9.99999974E-6`).
static ParseResult parseParamValue(OpAsmParser &parser, FloatAttr &attr) {
  APFloat value(0.0f);
  if (nextTokenIsDecimalInteger(parser)) { // `= 1 : f32` is accepted too
    int64_t i;
    if (parser.parseInteger(i))
      return failure();
    value = APFloat(static_cast<float>(i));
  } else if (parser.parseFloat(APFloat::IEEEsingle(), value)) {
    return failure();
  }
  attr = FloatAttr::get(Float32Type::get(parser.getContext()), value);
  return success();
}

static void printParamValue(OpAsmPrinter &p, Operation *, FloatAttr attr) {
  std::string s = formatShortestFloat(attr.getValue().convertToFloat());
  if (s.empty())
    p.printFloat(attr.getValue()); // inf / nan: hex form, round-trips
  else
    p << s;
}

/// `<median>`, `<quantile, 0.9>`, `<topk, 3>` (the parameter is an f64).
static ParseResult parseSelectKindAndParam(OpAsmParser &parser,
                                           SelectKindAttr &kind,
                                           FloatAttr &param) {
  if (parser.parseLess())
    return failure();
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<SelectKind> k = symbolizeSelectKind(keyword);
  if (!k)
    return parser.emitError(loc, "expected selection kind 'median', "
                                 "'quantile' or 'topk', got '")
           << keyword << "'";
  kind = SelectKindAttr::get(parser.getContext(), *k);
  if (succeeded(parser.parseOptionalComma())) {
    double v;
    if (nextTokenIsDecimalInteger(parser)) {
      int64_t i;
      if (parser.parseInteger(i))
        return failure();
      v = static_cast<double>(i);
    } else if (parser.parseFloat(v)) {
      return failure();
    }
    param = parser.getBuilder().getF64FloatAttr(v);
  }
  return parser.parseGreater();
}

static void printSelectKindAndParam(OpAsmPrinter &p, Operation *,
                                    SelectKindAttr kind, FloatAttr param) {
  p << '<' << stringifySelectKind(kind.getValue());
  if (param) {
    p << ", ";
    double v = param.getValueAsDouble();
    // topk's k prints as an integer (`<topk, 3>`).
    if (kind.getValue() == SelectKind::topk && std::isfinite(v) &&
        std::abs(v) < 9.0e15 && v == std::trunc(v)) {
      p << static_cast<int64_t>(v) << '>';
      return;
    }
    std::string s = formatShortestFloat(v);
    if (s.empty())
      p.printFloat(param.getValue());
    else
      p << s;
  }
  p << '>';
}

#define GET_OP_CLASSES
#include "credit/Dialect/Credit/IR/CreditOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static bool isReduction(Operation *op) {
  return isa<ReduceOp, ReduceSumExpOp, ReduceMomentsOp, SelectOp>(op);
}

/// Creates the single block of `region` with one element argument per input.
static Block *createElementBlock(OpBuilder &builder, Region *region,
                                 ValueRange inputs) {
  Block *block = new Block();
  region->push_back(block);
  for (Value in : inputs)
    block->addArgument(getElementArgType(in.getType()), in.getLoc());
  (void)builder;
  return block;
}

static void
runBodyBuilder(OpBuilder &builder, Location loc, Block *block,
               function_ref<void(OpBuilder &, Location, ValueRange)> bb) {
  if (!bb)
    return;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(block);
  bb(builder, loc, block->getArguments());
}

static YieldOp getTerminatorYield(Region &region) {
  if (region.empty() || region.front().empty())
    return nullptr;
  return dyn_cast<YieldOp>(region.front().back());
}

/// Checks the operand / element-argument convention shared by reduce, select
/// and apply, and that the region ends with credit.yield.
static LogicalResult verifyElementRegion(Operation *op, OperandRange inputs,
                                         Region &region) {
  Block &body = region.front();
  if (body.getNumArguments() != inputs.size())
    return op->emitOpError("expects one element block argument per operand (")
           << inputs.size() << "), got " << body.getNumArguments();
  for (auto [i, in, arg] : llvm::enumerate(inputs, body.getArguments())) {
    Type expected = getElementArgType(in.getType());
    if (arg.getType() != expected)
      return op->emitOpError("block argument #")
             << i << " has type " << arg.getType() << ", expected " << expected
             << " for operand of type " << in.getType();
  }
  if (!getTerminatorYield(region))
    return op->emitOpError("element region must end with credit.yield");
  return success();
}

/// Rejects reduce/select ops nested anywhere in `region`.
static LogicalResult verifyNoNestedReduction(Region &region,
                                             StringRef message) {
  WalkResult r = region.walk([&](Operation *nested) {
    if (isReduction(nested)) {
      nested->emitOpError(message);
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

static LogicalResult verifySingleF32Yield(Operation *op, Region &region) {
  YieldOp y = getTerminatorYield(region);
  if (y.getNumOperands() != 1 || !y.getOperand(0).getType().isF32())
    return op->emitOpError("element region must yield exactly one f32 value");
  return success();
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

void KernelOp::build(OpBuilder &builder, OperationState &state,
                     StringRef name) {
  state.addAttribute(getSymNameAttrName(state.name),
                     builder.getStringAttr(name));
  Region *region = state.addRegion();
  region->push_back(new Block());
}

ApplyOp KernelOp::getApplyOp() {
  auto applies = getBodyBlock().getOps<ApplyOp>();
  return applies.empty() ? ApplyOp() : *applies.begin();
}

InputOp KernelOp::lookupInput(StringRef name) {
  for (InputOp op : getInputOps())
    if (op.getName() == name)
      return op;
  return nullptr;
}

ParamOp KernelOp::lookupParam(StringRef name) {
  for (ParamOp op : getParamOps())
    if (op.getName() == name)
      return op;
  return nullptr;
}

OutputOp KernelOp::lookupOutput(StringRef name) {
  for (OutputOp op : getOutputOps())
    if (op.getName() == name)
      return op;
  return nullptr;
}

LogicalResult KernelOp::verify() {
  Block &body = getBodyBlock();
  // Inputs, params and outputs share one namespace (they all become
  // parameters of the generated kernel).
  llvm::StringMap<Operation *> names;
  ApplyOp firstApply;
  for (Operation &op : body) {
    StringRef name;
    if (auto in = dyn_cast<InputOp>(op))
      name = in.getName();
    else if (auto p = dyn_cast<ParamOp>(op))
      name = p.getName();
    else if (auto out = dyn_cast<OutputOp>(op))
      name = out.getName();
    else if (auto apply = dyn_cast<ApplyOp>(op)) {
      if (firstApply)
        return apply.emitOpError("at most one credit.apply per kernel");
      firstApply = apply;
      continue;
    } else
      continue;
    if (!names.try_emplace(name, &op).second)
      return op.emitError("duplicate name '") << name << "'";
  }
  if (firstApply) {
    for (OpResult res : firstApply->getResults()) {
      unsigned outputs = 0, others = 0;
      for (Operation *user : res.getUsers())
        (isa<OutputOp>(user) ? outputs : others)++;
      if (outputs != 1 || others != 0)
        return firstApply.emitOpError("result #")
               << res.getResultNumber()
               << " must be used by exactly one credit.output";
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// InputOp / ParamOp
//===----------------------------------------------------------------------===//

void InputOp::build(OpBuilder &builder, OperationState &state, StringRef name,
                    InputKind kind, Type storage) {
  Type f32 = builder.getF32Type();
  if (kind == InputKind::scalar)
    build(builder, state, f32, name, kind,
          storage && !storage.isF32() ? TypeAttr::get(storage) : TypeAttr());
  else
    build(builder, state, RowType::get(storage ? storage : f32), name, kind, TypeAttr());
}

void InputOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), getName());
}

LogicalResult InputOp::verify() {
  Type type = getResult().getType();
  if (getKind() == InputKind::scalar) {
    if (!type.isF32())
      return emitOpError("scalar input must have type f32, got ") << type;
    if (auto storage = getStorage())
      if (!storage->isSignlessInteger(32) && !storage->isSignlessInteger(64))
        return emitOpError("a scalar input is stored as f32, i32 or i64, got ") << *storage;
    return success();
  }
  if (getStorage())
    return emitOpError("only a scalar input has a 'storage' type (a row's is its element type)");
  auto row = dyn_cast<RowType>(type);
  if (!row || !isInputElementType(row.getElementType()))
    return emitOpError("")
           << stringifyInputKind(getKind())
           << " input must have type !credit.row<f32|bf16|f16|i8|ui8|i1>, got " << type;
  return success();
}

Type InputOp::getStorageType() {
  if (auto row = dyn_cast<RowType>(getResult().getType()))
    return row.getElementType();
  if (auto storage = getStorage())
    return *storage;
  return getResult().getType();
}

void ParamOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), getName());
}

void RowWidthOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "N");
}

//===----------------------------------------------------------------------===//
// StageOp
//===----------------------------------------------------------------------===//

void StageOp::build(OpBuilder &builder, OperationState &state,
                    ArrayRef<StringRef> names) {
  SmallVector<Type> types(names.size(), builder.getF32Type());
  build(builder, state, types, builder.getStrArrayAttr(names));
}

void StageOp::build(OpBuilder &builder, OperationState &state,
                    TypeRange resultTypes, ArrayAttr names) {
  state.addAttribute(getNamesAttrName(state.name), names);
  state.addTypes(resultTypes);
  Region *region = state.addRegion();
  region->push_back(new Block());
}

YieldOp StageOp::getYieldOp() {
  return cast<YieldOp>(getBodyBlock().getTerminator());
}

StringRef StageOp::getResultName(unsigned i) {
  return cast<StringAttr>(getNames()[i]).getValue();
}

unsigned StageOp::getStageIndex() {
  unsigned index = 0;
  for (Operation &op : *(*this)->getBlock()) {
    if (&op == getOperation())
      return index;
    if (isa<StageOp>(op))
      ++index;
  }
  llvm_unreachable("stage not in its block");
}

SmallVector<ElementRegionOpInterface> StageOp::getReductions() {
  SmallVector<ElementRegionOpInterface> result;
  for (Operation &op : getBodyBlock())
    if (isReduction(&op))
      result.push_back(cast<ElementRegionOpInterface>(op));
  return result;
}

unsigned StageOp::getNumStatistics() {
  unsigned q = 0;
  for (ElementRegionOpInterface red : getReductions())
    q += red->getNumResults();
  return q;
}

void StageOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  ArrayAttr names = getNames();
  for (OpResult res : getResults())
    if (res.getResultNumber() < names.size())
      if (auto s = dyn_cast<StringAttr>(names[res.getResultNumber()]))
        if (!s.getValue().empty())
          setNameFn(res, s.getValue());
}

LogicalResult StageOp::verify() {
  if (getNames().size() != getNumResults())
    return emitOpError("expects one name per result, got ")
           << getNames().size() << " names for " << getNumResults()
           << " results";
  YieldOp y = getTerminatorYield(getBodyRegion());
  if (!y)
    return emitOpError("body must end with credit.yield");
  if (y.getOperandTypes() != getResultTypes())
    return emitOpError("yielded types must match the result types");
  if (llvm::none_of(getBodyBlock(), [](Operation &op) { return isReduction(&op); }))
    return emitOpError(
        "must contain at least one credit.reduce or credit.select");
  return success();
}

namespace {
/// Drops results without uses (and the matching names and yield operands).
struct DropUnusedStageResults : OpRewritePattern<StageOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(StageOp op,
                                PatternRewriter &rewriter) const override {
    if (llvm::all_of(op.getResults(), [](Value v) { return !v.use_empty(); }))
      return failure();
    YieldOp yield = op.getYieldOp();
    SmallVector<Type> types;
    SmallVector<Attribute> names;
    SmallVector<Value> yielded;
    SmallVector<std::pair<Value, unsigned>> kept;
    for (OpResult res : op.getResults()) {
      if (res.use_empty())
        continue;
      unsigned i = res.getResultNumber();
      kept.push_back({res, (unsigned)types.size()});
      types.push_back(res.getType());
      names.push_back(op.getNames()[i]);
      yielded.push_back(yield.getOperand(i));
    }
    auto newOp = rewriter.create<StageOp>(op.getLoc(), types,
                                          rewriter.getArrayAttr(names));
    newOp->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    rewriter.mergeBlocks(&op.getBodyBlock(), &newOp.getBodyBlock());
    rewriter.modifyOpInPlace(yield, [&] { yield->setOperands(yielded); });
    for (auto [oldRes, idx] : kept)
      rewriter.replaceAllUsesWith(oldRes, newOp.getResult(idx));
    rewriter.eraseOp(op);
    return success();
  }
};

/// A stage left without any reduce/select (its reductions were dead) is
/// just row-level math: inline it into the kernel.
struct InlineReductionFreeStage : OpRewritePattern<StageOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(StageOp op,
                                PatternRewriter &rewriter) const override {
    if (llvm::any_of(op.getBodyBlock(),
                     [](Operation &o) { return isReduction(&o); }))
      return failure();
    YieldOp yield = getTerminatorYield(op.getBodyRegion());
    if (!yield)
      return failure();
    SmallVector<Value> values(yield.getOperands());
    rewriter.eraseOp(yield);
    rewriter.inlineBlockBefore(&op.getBodyBlock(), op);
    rewriter.replaceOp(op, values);
    return success();
  }
};
} // namespace

void StageOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<DropUnusedStageResults, InlineReductionFreeStage>(context);
}

//===----------------------------------------------------------------------===//
// Reduce / Select / Apply: shared canonicalization
//===----------------------------------------------------------------------===//

namespace {
/// Merges the element arguments of operands that are the same SSA value and
/// removes element arguments (with their operands) that the region never
/// uses, so that the operand list is exactly the set of values read.
template <typename OpT>
struct SimplifyElementArgs : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpT op,
                                PatternRewriter &rewriter) const override {
    Block &body = op.getBodyBlock();
    OperandRange inputs = op.getInputs();
    unsigned n = inputs.size();
    if (body.getNumArguments() != n)
      return failure();
    llvm::BitVector erase(n);
    for (unsigned j = 0; j < n; ++j) {
      BlockArgument argJ = body.getArgument(j);
      for (unsigned i = 0; i < j; ++i) {
        if (erase[i] || inputs[i] != inputs[j])
          continue;
        if (!argJ.use_empty())
          rewriter.replaceAllUsesWith(argJ, body.getArgument(i));
        erase.set(j);
        break;
      }
      if (argJ.use_empty())
        erase.set(j);
    }
    if (erase.none())
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      body.eraseArguments(erase);
      MutableOperandRange mutableInputs = op.getInputsMutable();
      for (int k = static_cast<int>(n) - 1; k >= 0; --k)
        if (erase[k])
          mutableInputs.erase(k);
    });
    return success();
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

void ReduceOp::build(
    OpBuilder &builder, OperationState &state, ReduceKind kind,
    ValueRange inputs,
    function_ref<void(OpBuilder &, Location, ValueRange)> bodyBuilder) {
  state.addAttribute(getKindAttrName(state.name),
                     ReduceKindAttr::get(builder.getContext(), kind));
  state.addOperands(inputs);
  state.addTypes(builder.getF32Type());
  Block *block = createElementBlock(builder, state.addRegion(), inputs);
  runBodyBuilder(builder, state.location, block, bodyBuilder);
}

YieldOp ReduceOp::getYieldOp() {
  return cast<YieldOp>(getBodyBlock().getTerminator());
}

LogicalResult ReduceOp::verify() {
  if (failed(verifyElementRegion(*this, getInputs(), getBodyRegion())) ||
      failed(verifyNoNestedReduction(getBodyRegion(),
                                     "reduction nested in a reduction")))
    return failure();
  return verifySingleF32Yield(*this, getBodyRegion());
}

void ReduceOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<SimplifyElementArgs<ReduceOp>>(context);
}

//===----------------------------------------------------------------------===//
// ReduceSumExpOp
//===----------------------------------------------------------------------===//

void ReduceSumExpOp::build(
    OpBuilder &builder, OperationState &state, unsigned numSums,
    ValueRange inputs,
    function_ref<void(OpBuilder &, Location, ValueRange)> bodyBuilder) {
  state.addOperands(inputs);
  state.addTypes(SmallVector<Type>(1 + numSums, builder.getF32Type()));
  Block *block = createElementBlock(builder, state.addRegion(), inputs);
  runBodyBuilder(builder, state.location, block, bodyBuilder);
}

YieldOp ReduceSumExpOp::getYieldOp() {
  return cast<YieldOp>(getBodyBlock().getTerminator());
}

Value ReduceSumExpOp::getPivot() { return getYieldOp().getOperand(0); }
Value ReduceSumExpOp::getWeight(unsigned j) {
  return getYieldOp().getOperand(1 + j);
}

LogicalResult ReduceSumExpOp::verify() {
  if (failed(verifyElementRegion(*this, getInputs(), getBodyRegion())) ||
      failed(verifyNoNestedReduction(getBodyRegion(),
                                     "reduction nested in a reduction")))
    return failure();
  if (getNumResults() < 2)
    return emitOpError("expects the max and at least one sum, got ")
           << getNumResults() << " result(s)";
  YieldOp y = getYieldOp();
  if (y.getNumOperands() != getNumResults() ||
      llvm::any_of(y.getOperandTypes(), [](Type t) { return !t.isF32(); }))
    return emitOpError("element region must yield the pivot and one weight "
                       "per sum (")
           << getNumResults() << " f32 values)";
  return success();
}

namespace {
/// Drops the weights of sums nothing uses; with no sum left, the statistic
/// is the plain max of the pivot.
struct DropUnusedSums : OpRewritePattern<ReduceSumExpOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceSumExpOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<unsigned> live;
    for (auto [j, s] : llvm::enumerate(op.getSums()))
      if (!s.use_empty())
        live.push_back(j);
    if (live.size() == op.getNumSums())
      return failure();
    YieldOp yield = op.getYieldOp();
    Operation *replacement;
    if (live.empty())
      replacement = rewriter.create<ReduceOp>(op.getLoc(), ReduceKind::max,
                                              op.getInputs());
    else
      replacement = rewriter.create<ReduceSumExpOp>(op.getLoc(), live.size(),
                                                    op.getInputs());
    replacement->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    Block &newBody = replacement->getRegion(0).front();
    rewriter.mergeBlocks(&op.getBodyBlock(), &newBody, newBody.getArguments());
    // Read the yielded values after the merge: block arguments were replaced.
    SmallVector<Value> yielded{yield.getOperand(0)};
    for (unsigned j : live)
      yielded.push_back(yield.getOperand(1 + j));
    rewriter.modifyOpInPlace(yield, [&] { yield->setOperands(yielded); });
    rewriter.replaceAllUsesWith(op.getMax(), replacement->getResult(0));
    for (auto [k, j] : llvm::enumerate(live))
      rewriter.replaceAllUsesWith(op.getSums()[j], replacement->getResult(1 + k));
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void ReduceSumExpOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                 MLIRContext *context) {
  results.add<SimplifyElementArgs<ReduceSumExpOp>, DropUnusedSums>(context);
}

//===----------------------------------------------------------------------===//
// ReduceMomentsOp
//===----------------------------------------------------------------------===//

void ReduceMomentsOp::build(
    OpBuilder &builder, OperationState &state, ValueRange inputs,
    function_ref<void(OpBuilder &, Location, ValueRange)> bodyBuilder) {
  state.addOperands(inputs);
  state.addTypes(SmallVector<Type>(3, builder.getF32Type()));
  Block *block = createElementBlock(builder, state.addRegion(), inputs);
  runBodyBuilder(builder, state.location, block, bodyBuilder);
}

YieldOp ReduceMomentsOp::getYieldOp() {
  return cast<YieldOp>(getBodyBlock().getTerminator());
}

Value ReduceMomentsOp::getTerm() { return getYieldOp().getOperand(0); }

LogicalResult ReduceMomentsOp::verify() {
  if (failed(verifyElementRegion(*this, getInputs(), getBodyRegion())) ||
      failed(verifyNoNestedReduction(getBodyRegion(),
                                     "reduction nested in a reduction")))
    return failure();
  YieldOp y = getYieldOp();
  if (y.getNumOperands() != 1 || !y.getOperand(0).getType().isF32())
    return emitOpError("element region must yield one f32 term");
  return success();
}

namespace {
/// Without a use of m2, the moments are the plain sum of the term (the count
/// is N, which nothing needs a reduction for).
struct MomentsToSum : OpRewritePattern<ReduceMomentsOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceMomentsOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getM2().use_empty() || !op.getCount().use_empty())
      return failure();
    auto sum = rewriter.create<ReduceOp>(op.getLoc(), ReduceKind::sum,
                                         op.getInputs());
    sum->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    Block &newBody = sum.getBodyBlock();
    rewriter.mergeBlocks(&op.getBodyBlock(), &newBody, newBody.getArguments());
    rewriter.replaceAllUsesWith(op.getSum(), sum.getResult());
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void ReduceMomentsOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                  MLIRContext *context) {
  results.add<SimplifyElementArgs<ReduceMomentsOp>, MomentsToSum>(context);
}

//===----------------------------------------------------------------------===//
// SelectOp
//===----------------------------------------------------------------------===//

void SelectOp::build(
    OpBuilder &builder, OperationState &state, SelectKind kind,
    std::optional<double> param, ValueRange inputs,
    function_ref<void(OpBuilder &, Location, ValueRange)> bodyBuilder) {
  state.addAttribute(getKindAttrName(state.name),
                     SelectKindAttr::get(builder.getContext(), kind));
  if (param)
    state.addAttribute(getParamAttrName(state.name),
                       builder.getF64FloatAttr(*param));
  state.addOperands(inputs);
  state.addTypes(builder.getF32Type());
  Block *block = createElementBlock(builder, state.addRegion(), inputs);
  runBodyBuilder(builder, state.location, block, bodyBuilder);
}

YieldOp SelectOp::getYieldOp() {
  return cast<YieldOp>(getBodyBlock().getTerminator());
}

LogicalResult SelectOp::verify() {
  if (failed(verifyElementRegion(*this, getInputs(), getBodyRegion())) ||
      failed(verifyNoNestedReduction(getBodyRegion(),
                                     "reduction nested in a reduction")) ||
      failed(verifySingleF32Yield(*this, getBodyRegion())))
    return failure();
  std::optional<double> param;
  if (auto attr = getParamAttr())
    param = attr.getValueAsDouble();
  switch (getKind()) {
  case SelectKind::median:
    if (param)
      return emitOpError("median takes no parameter");
    break;
  case SelectKind::quantile:
    if (param && !(*param >= 0.0 && *param <= 1.0))
      return emitOpError("quantile parameter must be in [0, 1], got ")
             << *param;
    break;
  case SelectKind::topk:
    if (param && !(*param >= 1.0 && *param == static_cast<double>(
                                                   static_cast<int64_t>(*param))))
      return emitOpError("topk parameter must be a positive integer, got ")
             << *param;
    break;
  }
  return success();
}

void SelectOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<SimplifyElementArgs<SelectOp>>(context);
}

//===----------------------------------------------------------------------===//
// ApplyOp
//===----------------------------------------------------------------------===//

void ApplyOp::build(OpBuilder &builder, OperationState &state,
                    TypeRange resultTypes, ValueRange inputs) {
  state.addOperands(inputs);
  state.addTypes(resultTypes);
  createElementBlock(builder, state.addRegion(), inputs);
}

void ApplyOp::build(
    OpBuilder &builder, OperationState &state, ValueRange inputs,
    function_ref<void(OpBuilder &, Location, ValueRange)> bodyBuilder,
    ArrayRef<Type> storage) {
  state.addOperands(inputs);
  Block *block = createElementBlock(builder, state.addRegion(), inputs);
  runBodyBuilder(builder, state.location, block, bodyBuilder);
  if (!block->empty())
    if (auto yield = dyn_cast<YieldOp>(block->back()))
      for (auto [i, t] : llvm::enumerate(yield.getOperandTypes()))
        state.addTypes(RowType::get(i < storage.size() && storage[i] ? storage[i] : t));
}

YieldOp ApplyOp::getYieldOp() {
  return cast<YieldOp>(getBodyBlock().getTerminator());
}

LogicalResult ApplyOp::verify() {
  if (failed(verifyElementRegion(*this, getInputs(), getBodyRegion())) ||
      failed(verifyNoNestedReduction(getBodyRegion(),
                                     "reduction nested in a credit.apply")))
    return failure();
  YieldOp y = getYieldOp();
  if (y.getNumOperands() != getNumResults())
    return emitOpError("expects one result per yielded value, got ")
           << getNumResults() << " results for " << y.getNumOperands()
           << " yielded values";
  for (auto [i, v, res] : llvm::enumerate(y.getOperands(), getResults())) {
    Type t = v.getType();
    if (!t.isF32() && !t.isSignlessInteger(8))
      return emitOpError("yielded value #") << i << " must be f32 or i8, got "
                                            << t;
    // A float result is stored in its row's type (rounded), an i8 one as is.
    auto row = cast<RowType>(res.getType());
    if (getYieldedElementType(row) != t)
      return emitOpError("result #")
             << i << " has type " << res.getType() << ", expected "
             << (t.isF32() ? "!credit.row<f32|bf16|f16>" : "!credit.row<i8>")
             << " for a yielded " << t;
  }
  return success();
}

void ApplyOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<SimplifyElementArgs<ApplyOp>>(context);
}

//===----------------------------------------------------------------------===//
// Element-region only ops: scan, neighbor, sort
//===----------------------------------------------------------------------===//

static LogicalResult verifyInElementRegion(Operation *op) {
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp()) {
    if (isa<ReduceOp, ReduceSumExpOp, ReduceMomentsOp, SelectOp, ApplyOp>(p))
      return success();
    if (isa<StageOp, KernelOp>(p))
      break;
  }
  return op->emitOpError(
      "only allowed inside a credit.reduce, credit.select or credit.apply "
      "region");
}

LogicalResult ScanOp::verify() { return verifyInElementRegion(*this); }
LogicalResult SortOp::verify() { return verifyInElementRegion(*this); }

LogicalResult IndexOp::verify() {
  Operation *parent = (*this)->getParentOp();
  if (!parent || !isa<ReduceOp, ReduceSumExpOp, ReduceMomentsOp, SelectOp, ApplyOp>(parent))
    return emitOpError("must be directly inside a credit.reduce, credit.reduce_sumexp, "
                       "credit.reduce_moments, credit.select or credit.apply region");
  return success();
}

LogicalResult NeighborOp::verify() {
  Operation *parent = (*this)->getParentOp();
  if (!parent || !isa<ReduceOp, ReduceSumExpOp, ReduceMomentsOp, SelectOp, ApplyOp>(parent))
    return emitOpError("must be directly inside a credit.reduce, "
                       "credit.reduce_moments, credit.select or credit.apply region");
  auto arg = dyn_cast<BlockArgument>(getInput());
  if (!arg || arg.getOwner() != &parent->getRegion(0).front())
    return emitOpError("operand must be an element argument of the enclosing ")
           << parent->getName();
  if (arg.getArgNumber() >= parent->getNumOperands() ||
      !isa<RowType>(parent->getOperand(arg.getArgNumber()).getType()))
    return emitOpError("operand must stand for a !credit.row operand, not a "
                       "row-level value");
  return success();
}
