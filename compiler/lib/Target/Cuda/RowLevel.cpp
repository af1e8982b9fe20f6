//===- RowLevel.cpp - where the row-level math of a kernel goes -----------===//
#include "RowLevel.h"

#include "ExprPrinter.h"

namespace cr = mlir::credit;
using mlir::Operation;

namespace credit::cuda {

RowLevel placeRowLevel(cr::KernelOp kernel, NameSupply &rowScope, LetNames &lets) {
  RowLevel rl;
  unsigned numStages = 0;
  for (cr::StageOp s : kernel.getStageOps())
    (void)s, ++numStages;
  rl.ops.resize(numStages + 1);

  // Homes: the function each row-level op is printed in.
  llvm::DenseMap<Operation *, unsigned> home;
  unsigned current = 0;
  auto isRowOp = [](Operation &op) {
    return ExprPrinter::isExprOp(&op) && !llvm::isa<mlir::arith::ConstantOp>(op);
  };
  for (Operation &op : kernel.getBodyBlock()) {
    if (auto stage = llvm::dyn_cast<cr::StageOp>(op)) {
      current = stage.getStageIndex() + 1;
      for (Operation &inner : stage.getBodyBlock())
        if (isRowOp(inner)) {
          home[&inner] = current;
          rl.ops[current].push_back(&inner);
        }
      rl.ops[current].push_back(stage); // marks the stage's results
    } else if (isRowOp(op)) {
      home[&op] = current;
      rl.ops[current].push_back(&op);
    }
  }

  // Whether a use of `op`'s value sits outside its function.
  auto escapes = [&](Operation *op) {
    for (Operation *user : op->getUsers()) {
      auto it = home.find(user);
      if (it != home.end() && it->second == home[op])
        continue;
      if (auto y = llvm::dyn_cast<cr::YieldOp>(user))
        if (auto stage = llvm::dyn_cast<cr::StageOp>(y->getParentOp()))
          if (stage.getStageIndex() + 1 == home[op])
            continue;
      return true;
    }
    return false;
  };

  auto addField = [&](mlir::Value v, llvm::StringRef base) {
    std::string name = rowScope.fresh(base);
    rl.field[v] = name;
    rl.fields.push_back(name);
    return name;
  };
  unsigned inputIndex = 0;
  for (cr::InputOp in : kernel.getInputOps()) {
    if (in.isScalar())
      rl.perRowInputs.push_back({inputIndex, addField(in.getResult(), in.getName())});
    ++inputIndex;
  }
  for (cr::ParamOp p : kernel.getParamOps())
    if (p.isRuntime())
      rl.runtimeParams.push_back(
          {static_cast<unsigned>(rl.runtimeParams.size()), addField(p.getResult(), p.getName())});
  // A statistic that an op of its stage's own math computes names that op's
  // value (the first statistic yielding it).
  llvm::DenseMap<Operation *, std::pair<cr::StageOp, unsigned>> yieldedBy;
  for (cr::StageOp stage : kernel.getStageOps())
    for (unsigned i = 0; i < stage.getNumResults(); ++i)
      if (Operation *def = stage.getYieldOp().getOperand(i).getDefiningOp();
          def && home.count(def) && def->getParentOp() == stage.getOperation())
        yieldedBy.try_emplace(def, stage, i);
  int counter = 0;
  for (auto &ops : rl.ops)
    for (Operation *op : ops) {
      if (auto stage = llvm::dyn_cast<cr::StageOp>(op)) {
        for (unsigned i = 0; i < stage.getNumResults(); ++i) {
          std::string name = addField(stage.getResult(i), stage.getResultName(i));
          Operation *def = stage.getYieldOp().getOperand(i).getDefiningOp();
          auto it = def ? yieldedBy.find(def) : yieldedBy.end();
          if (it != yieldedBy.end() && it->second.first == stage && it->second.second == i)
            rl.field[def->getResult(0)] = name;
        }
        continue;
      }
      if (yieldedBy.count(op))
        continue;
      std::optional<std::string> let = lets.lookup(op);
      if (let || escapes(op))
        addField(op->getResult(0), let ? *let : "t" + std::to_string(counter++));
    }
  return rl;
}

} // namespace credit::cuda
