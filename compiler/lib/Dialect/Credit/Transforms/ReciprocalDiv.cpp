//===- ReciprocalDiv.cpp - credit-reciprocal-div --------------------------===//
//
// a / s, with a per element and s one value per row, divides once per element
// in every pass that evaluates it. An IEEE f32 division is a reciprocal
// estimate, two Newton steps and a range check with a slow path; in the
// element loop of a memory-bound kernel that is issue time taken from the
// loads. Here s's reciprocal is computed once per row (an exact division, at
// kernel level, right after s is defined) and every such per-element division
// becomes a multiplication by it: a * RN(1/s), within about one ulp of
// RN(a / s). The peers make the same trade by default (Triton and
// torch.compile lower f32 `/` to the approximate div.full.f32).
//
//===----------------------------------------------------------------------===//
#include "credit/Dialect/Credit/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::credit {
#define GEN_PASS_DEF_CREDITRECIPROCALDIV
#include "credit/Dialect/Credit/Transforms/Passes.h.inc"
} // namespace mlir::credit

using namespace mlir;
using namespace mlir::credit;

namespace {
struct CreditReciprocalDivPass
    : public mlir::credit::impl::CreditReciprocalDivBase<CreditReciprocalDivPass> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    OpBuilder b(kernel.getContext());
    // Row-level divisor -> its reciprocal (one per row value, shared by every
    // element region that divides by it).
    llvm::DenseMap<Value, Value> reciprocalOf;
    auto reciprocal = [&](Value s) -> Value {
      if (Value r = reciprocalOf.lookup(s))
        return r;
      if (Operation *def = s.getDefiningOp())
        b.setInsertionPointAfter(def);
      else
        b.setInsertionPointToStart(llvm::cast<BlockArgument>(s).getOwner());
      // No source line of its own: s's `let` keeps its name (the emitter names
      // a let's root op after its line, and a user on that line would hide it).
      Location loc = NameLoc::get(b.getStringAttr("credit-reciprocal-div"));
      Value one = b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(1.0f));
      Value r = b.create<arith::DivFOp>(loc, one, s);
      reciprocalOf[s] = r;
      return r;
    };

    llvm::SmallVector<ElementRegionOpInterface> regions;
    kernel.walk([&](ElementRegionOpInterface r) { regions.push_back(r); });
    for (ElementRegionOpInterface region : regions) {
      Block &body = region.getBodyBlock();
      llvm::SmallVector<arith::DivFOp> divs;
      for (Operation &op : body)
        if (auto div = llvm::dyn_cast<arith::DivFOp>(op)) {
          auto arg = llvm::dyn_cast<BlockArgument>(div.getRhs());
          if (arg && arg.getOwner() == &body && !region.isRowInput(arg.getArgNumber()))
            divs.push_back(div);
        }
      // The reciprocal enters the region as a new row-level operand (one per
      // divisor), like every other row-level value.
      llvm::DenseMap<Value, BlockArgument> argFor;
      for (arith::DivFOp div : divs) {
        auto arg = llvm::cast<BlockArgument>(div.getRhs());
        BlockArgument &rArg = argFor[arg];
        if (!rArg) {
          Value r = reciprocal(region.getInputForArg(arg));
          region.getInputsMutable().append(r);
          rArg = body.addArgument(r.getType(), arg.getLoc());
        }
        b.setInsertionPoint(div);
        Value mul = b.create<arith::MulFOp>(div.getLoc(), div.getLhs(), rArg);
        div.getResult().replaceAllUsesWith(mul);
        div.erase();
      }
    }
  }
};
} // namespace
