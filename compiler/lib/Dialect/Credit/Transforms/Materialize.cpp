//===- Materialize.cpp - Expressions stored over a kept input -------------===//
//
// A kept input x whose every read after its first pass goes through the same
// unary chain T(x, row-level values) is stored as T(x) by the second pass that
// reads it: the later passes then load T(x) from the retained slice instead of
// recomputing it (exactly the same value, computed once). Worth it only where
// the chain holds a costly op and a pass after the storing one reads T(x).
//
//===----------------------------------------------------------------------===//
#include "credit/Dialect/Credit/Transforms/Schedule.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::credit;

namespace {

/// The per-element expression ops the code generator prints.
bool isExprOp(Operation *op) {
  return llvm::isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp, arith::NegFOp,
                   arith::MaxNumFOp, arith::MinNumFOp, arith::ConstantOp, arith::FPToSIOp,
                   arith::SIToFPOp, math::AbsFOp, math::ExpOp, math::LogOp, math::SqrtOp,
                   math::RsqrtOp, math::TanhOp, math::RoundOp>(op);
}

/// Ops whose cost a load from shared memory outweighs (a multi-instruction
/// sequence or a special-function-unit op).
bool isCostly(Operation *op) {
  return llvm::isa<math::ExpOp, math::LogOp, math::SqrtOp, math::RsqrtOp, math::TanhOp,
                   arith::DivFOp>(op);
}

/// One step of a unary chain: the op, which operand carries the chain, and
/// its other operands (outer row-level values or constants).
struct ChainStep {
  Operation *op = nullptr;
  unsigned chainOperand = 0;
  llvm::SmallVector<std::pair<Value, Attribute>> others; // (outer value | constant)
  bool sameAs(const ChainStep &o) const {
    return op->getName() == o.op->getName() && op->getAttrDictionary() == o.op->getAttrDictionary() &&
           chainOperand == o.chainOperand && others == o.others;
  }
};

/// The ops applied to block argument `argNo` of `region` alone: each value of
/// the chain has exactly one use, by a pure expression op whose other operands
/// are row-level (not per-element) values or constants. Empty when the
/// argument has several uses.
llvm::SmallVector<ChainStep> unaryChain(ElementRegionOpInterface region, unsigned argNo) {
  llvm::SmallVector<ChainStep> chain;
  Block &body = region.getBodyBlock();
  Value cur = body.getArgument(argNo);
  while (cur.hasOneUse()) {
    Operation *user = *cur.user_begin();
    if (!isExprOp(user) || user->getNumResults() != 1 || llvm::isa<arith::ConstantOp>(user))
      break;
    ChainStep step;
    step.op = user;
    bool ok = true;
    for (auto [i, operand] : llvm::enumerate(user->getOperands())) {
      if (operand == cur) {
        step.chainOperand = static_cast<unsigned>(i);
        continue;
      }
      if (auto arg = llvm::dyn_cast<BlockArgument>(operand)) {
        Value outer = region->getOperand(arg.getArgNumber());
        if (arg.getOwner() != &body || isRowValue(outer)) {
          ok = false;
          break;
        }
        step.others.push_back({outer, Attribute()});
      } else if (auto c = operand.getDefiningOp<arith::ConstantOp>()) {
        step.others.push_back({Value(), c.getValue()});
      } else {
        ok = false;
        break;
      }
    }
    if (!ok || llvm::count(user->getOperands(), cur) != 1)
      break;
    chain.push_back(step);
    cur = user->getResult(0);
  }
  return chain;
}

/// The element regions of a pass: the reductions of a stage, or h.
llvm::SmallVector<ElementRegionOpInterface> regionsOf(const SchedulePass &pass) {
  if (auto stage = llvm::dyn_cast<StageOp>(pass.op))
    return stage.getReductions();
  return {llvm::cast<ElementRegionOpInterface>(pass.op)};
}

} // namespace

llvm::SmallVector<Materialization> mlir::credit::findMaterializations(KernelOp kernel,
                                                                      const KernelSchedule &s) {
  llvm::SmallVector<InputOp> inputs(kernel.getInputOps());
  llvm::SmallVector<Materialization> out;
  // Declaration order.
  llvm::SmallVector<unsigned> kept(s.kept.begin(), s.kept.end());
  llvm::sort(kept);
  for (unsigned k : kept) {
    InputOp in = inputs[k];
    // T(x) stored over a 16-bit kept copy would be rounded: later passes would
    // compute on other values than the as-written schedule.
    if (!cast<RowType>(in.getType()).getElementType().isF32())
      continue;
    llvm::SmallVector<int> readers = s.readersOf(k);
    // Worth it only if a pass after the materializing one reads T(x).
    if (readers.size() < 3)
      continue;
    // Every region of every pass after the first that reads the input.
    llvm::SmallVector<std::pair<ElementRegionOpInterface, llvm::SmallVector<ChainStep>>> uses;
    bool ok = true;
    for (int p : llvm::ArrayRef<int>(readers).drop_front()) {
      for (ElementRegionOpInterface r : regionsOf(s.passes[p])) {
        auto operands = r->getOperands();
        auto it = llvm::find(operands, in.getResult());
        if (it == operands.end())
          continue;
        llvm::SmallVector<ChainStep> chain =
            unaryChain(r, static_cast<unsigned>(it - operands.begin()));
        if (chain.empty()) {
          ok = false;
          break;
        }
        uses.push_back({r, std::move(chain)});
      }
      if (!ok)
        break;
    }
    if (!ok || uses.empty())
      continue;
    // The longest chain every use shares, cut after its last costly op.
    size_t common = uses.front().second.size();
    for (auto &[r, chain] : uses) {
      size_t n = 0;
      while (n < common && n < chain.size() && chain[n].sameAs(uses.front().second[n]))
        ++n;
      common = n;
    }
    size_t len = 0;
    for (size_t n = 0; n < common; ++n)
      if (isCostly(uses.front().second[n].op))
        len = n + 1;
    if (len == 0)
      continue;
    Materialization m;
    m.input = k;
    m.storePass = readers[1];
    llvm::SetVector<Operation *> chainOps;
    for (auto &[r, chain] : uses) {
      m.ends.push_back(chain[len - 1].op);
      for (size_t n = 0; n < len; ++n)
        chainOps.insert(chain[n].op);
    }
    m.chainOps.assign(chainOps.begin(), chainOps.end());
    out.push_back(std::move(m));
  }
  return out;
}
