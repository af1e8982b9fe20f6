//===- Sema.cpp -----------------------------------------------------------===//
#include "credit/Lang/Sema.h"
#include "credit/Lang/Parser.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <optional>

using namespace credit;
using namespace credit::ast;

bool credit::isReduction(Builtin b) {
  return b == Builtin::ReduceSum || b == Builtin::ReduceMax || b == Builtin::ReduceMin ||
         b == Builtin::ReduceLogSumExp;
}
bool credit::isSelection(Builtin b) {
  return b == Builtin::Median || b == Builtin::Quantile || b == Builtin::TopK;
}
bool credit::isScan(Builtin b) {
  return b == Builtin::ScanSum || b == Builtin::ScanMax || b == Builtin::ScanMin;
}

llvm::StringRef credit::builtinName(Builtin b) {
  switch (b) {
  case Builtin::ReduceSum: return "sum";
  case Builtin::ReduceMax: return "max";
  case Builtin::ReduceMin: return "min";
  case Builtin::ReduceLogSumExp: return "logsumexp";
  case Builtin::Abs: return "abs";
  case Builtin::Exp: return "exp";
  case Builtin::Log: return "log";
  case Builtin::Sqrt: return "sqrt";
  case Builtin::Rsqrt: return "rsqrt";
  case Builtin::Tanh: return "tanh";
  case Builtin::Sigmoid: return "sigmoid";
  case Builtin::Round: return "round";
  case Builtin::Max2: return "max";
  case Builtin::Min2: return "min";
  case Builtin::Clamp: return "clamp";
  case Builtin::CastI8: return "i8";
  case Builtin::CastF32: return "f32";
  case Builtin::Where: return "where";
  case Builtin::ScanSum: return "scan_sum";
  case Builtin::ScanMax: return "scan_max";
  case Builtin::ScanMin: return "scan_min";
  case Builtin::Median: return "median";
  case Builtin::Quantile: return "quantile";
  case Builtin::TopK: return "topk";
  case Builtin::Sort: return "sort";
  }
  return "?";
}

namespace {

const char *const kFunctionNames[] = {
    "sum",  "max",   "min",      "abs",      "exp",      "log",    "sqrt",     "rsqrt",
    "tanh", "sigmoid", "round",  "clamp",    "i8",       "f32",    "scan_sum", "scan_max",
    "scan_min", "median", "quantile", "topk", "sort", "logsumexp", "where", "f16", "bf16"};

bool isReservedName(llvm::StringRef n) {
  if (n == "N" || n == "i" || n == "inf")
    return true;
  for (const char *f : kFunctionNames)
    if (n == f)
      return true;
  return false;
}

/// Closest candidate by edit distance, for "did you mean" hints.
std::string suggest(llvm::StringRef name, llvm::ArrayRef<llvm::StringRef> candidates) {
  std::string best;
  unsigned bestDist = 3; // only suggest close matches
  for (llvm::StringRef c : candidates) {
    unsigned d = name.edit_distance(c, true, bestDist);
    if (d < bestDist) {
      bestDist = d;
      best = c.str();
    }
  }
  return best;
}

llvm::StringRef levelName(Level l) {
  switch (l) {
  case Level::Const: return "constant";
  case Level::Row: return "per-row";
  case Level::Element: return "per-element";
  }
  return "?";
}

/// Where an expression is being checked.
struct Ctx {
  enum Where { StageStat, Let, Output } where = Output;
  int stage = -1;          // current stage (0-based) when where == StageStat
  bool inReduction = false; // inside the argument of a reduction or selection
  const CallExpr *reduction = nullptr;
  int stmtIndex = 0;
};

class Sema {
public:
  Sema(Kernel &k, KernelSymbols &syms, DiagEngine &diags) : k(k), syms(syms), diags(diags) {}
  bool run();

private:
  Symbol *declare(Symbol::Kind kind, llvm::StringRef name, llvm::SMLoc loc, int stmtIndex,
                  llvm::StringRef what);
  bool checkExpr(Expr &e, const Ctx &ctx);
  bool checkCall(CallExpr &c, const Ctx &ctx);
  /// An operand of arithmetic or of a comparison (`op`; 0: unary minus) must be
  /// f32: i8 is an output type, a bool is selected with where().
  bool requireArithmetic(const Expr &operand, llvm::SMLoc opLoc, char op = 0);
  const Symbol *resolve(llvm::StringRef name, llvm::SMLoc loc, const Ctx &ctx);
  std::vector<llvm::StringRef> visibleNames() const;
  bool containsReduction(const Expr &e) const;

  Kernel &k;
  KernelSymbols &syms;
  DiagEngine &diags;
  /// Every name declared anywhere in the kernel, to tell "used before its
  /// definition" from "unknown".
  llvm::StringMap<std::pair<int, llvm::SMLoc>> laterNames;
  int numStages = 0;
};

Symbol *Sema::declare(Symbol::Kind kind, llvm::StringRef name, llvm::SMLoc loc, int stmtIndex,
                      llvm::StringRef what) {
  if (isReservedName(name)) {
    if (name == "N")
      diags.error(loc, "'N' is the row width and cannot name " + what);
    else if (name == "i")
      diags.error(loc, "'i' is the element index and cannot name " + what);
    else if (name == "inf")
      diags.error(loc, "'inf' is the infinity literal and cannot name " + what);
    else
      diags.error(loc, "'" + name + "' is a built-in function and cannot name " + what);
    return nullptr;
  }
  auto it = syms.byName.find(name);
  if (it != syms.byName.end()) {
    diags.error(loc, "duplicate name '" + name + "'");
    diags.note(it->second->loc, "previously declared here");
    return nullptr;
  }
  auto sym = std::make_unique<Symbol>();
  sym->kind = kind;
  sym->name = name.str();
  sym->loc = loc;
  sym->stmtIndex = stmtIndex;
  Symbol *raw = sym.get();
  syms.byName[name] = raw;
  syms.symbols.push_back(std::move(sym));
  return raw;
}

std::vector<llvm::StringRef> Sema::visibleNames() const {
  std::vector<llvm::StringRef> names;
  for (auto &s : syms.symbols)
    // Not i: one letter is a near miss of every short name.
    if (s->kind != Symbol::Output && s->kind != Symbol::RowWidth && s->kind != Symbol::ElementIndex)
      names.push_back(s->name);
  for (auto &e : laterNames)
    names.push_back(e.getKey());
  names.push_back("N");
  return names;
}

const Symbol *Sema::resolve(llvm::StringRef name, llvm::SMLoc loc, const Ctx &ctx) {
  if (name == "N")
    return syms.rowWidth;
  if (name == "i")
    return syms.elementIndex;
  auto it = syms.byName.find(name);
  if (it == syms.byName.end()) {
    auto later = laterNames.find(name);
    if (later != laterNames.end()) {
      diags.error(loc, "'" + name + "' is used before its definition");
      diags.note(later->second.second, "'" + name + "' is defined here");
      return nullptr;
    }
    std::string hint = suggest(name, visibleNames());
    diags.error(loc, "unknown name '" + name + "'" +
                         (hint.empty() ? std::string() : "; did you mean '" + hint + "'?"));
    return nullptr;
  }
  const Symbol *s = it->second;
  if (s->kind == Symbol::Output) {
    diags.error(loc, "output '" + name + "' cannot be read; outputs are only assigned");
    return nullptr;
  }
  if (s->kind == Symbol::Stat && ctx.where == Ctx::StageStat && s->stage == ctx.stage &&
      ctx.inReduction) {
    diags.error(loc, "statistic '" + name +
                         "' is used inside a reduction of the stage that computes it; its value "
                         "is only known after the stage, so move this reduction to a later stage");
    diags.note(s->loc, "'" + name + "' is computed here");
    return nullptr;
  }
  return s;
}

/// Where an expression starts in the source (a binary expression's own
/// location is its operator).
static llvm::SMLoc exprStart(const Expr &e) {
  const Expr *cur = &e;
  while (auto *b = llvm::dyn_cast<BinaryExpr>(cur))
    cur = b->lhs.get();
  return cur->loc;
}

bool Sema::containsReduction(const Expr &e) const {
  switch (e.kind) {
  case Expr::Call: {
    auto &c = llvm::cast<CallExpr>(e);
    if (c.builtin >= 0 && (isReduction(static_cast<Builtin>(c.builtin)) ||
                           isSelection(static_cast<Builtin>(c.builtin))))
      return true;
    for (auto &a : c.args)
      if (containsReduction(*a))
        return true;
    return false;
  }
  case Expr::Unary:
    return containsReduction(*llvm::cast<UnaryExpr>(e).operand);
  case Expr::Binary: {
    auto &b = llvm::cast<BinaryExpr>(e);
    return containsReduction(*b.lhs) || containsReduction(*b.rhs);
  }
  default:
    return false;
  }
}

bool Sema::checkExpr(Expr &e, const Ctx &ctx) {
  switch (e.kind) {
  case Expr::Number:
    e.level = Level::Const;
    e.type = ElemType::F32;
    e.depth = 1;
    return true;
  case Expr::Name: {
    auto &n = llvm::cast<NameExpr>(e);
    const Symbol *s = resolve(n.name, n.loc, ctx);
    if (!s)
      return false;
    n.symbol = s;
    n.type = s->type;
    n.depth = s->expandedDepth;
    switch (s->kind) {
    case Symbol::RowInput:
    case Symbol::BroadcastInput:
    case Symbol::ElemLet:
    case Symbol::ElementIndex:
      n.level = Level::Element;
      break;
    case Symbol::Param:
      n.level = Level::Const;
      break;
    default:
      n.level = Level::Row;
      break;
    }
    if (s->kind == Symbol::RowLet && s->value)
      n.level = std::max(Level::Const, s->value->level);
    return true;
  }
  case Expr::Index: {
    auto &ix = llvm::cast<IndexExpr>(e);
    const Symbol *s = resolve(ix.base, ix.baseLoc, ctx);
    if (!s)
      return false;
    if (s->kind != Symbol::RowInput && s->kind != Symbol::BroadcastInput) {
      diags.error(ix.baseLoc, "neighbour access '" + ix.base +
                                  "[i...]' needs a per-element input (f32[N])");
      return false;
    }
    ix.symbol = s;
    ix.level = Level::Element;
    ix.type = s->type;
    ix.depth = 1;
    return true;
  }
  case Expr::Unary: {
    auto &u = llvm::cast<UnaryExpr>(e);
    if (!checkExpr(*u.operand, ctx))
      return false;
    if (u.op == '!') {
      if (u.operand->type != ElemType::Bool) {
        diags.error(u.loc, "'!' takes a bool (a comparison, '&&', '||'), not " +
                               elemTypeName(u.operand->type) + "; compare it first, e.g. 'x != 0'");
        return false;
      }
    } else if (!requireArithmetic(*u.operand, u.loc)) {
      return false;
    }
    u.level = u.operand->level;
    u.type = u.op == '!' ? ElemType::Bool : ElemType::F32;
    u.depth = u.operand->depth + 1;
    break;
  }
  case Expr::Binary: {
    auto &b = llvm::cast<BinaryExpr>(e);
    bool okL = checkExpr(*b.lhs, ctx);
    bool okR = checkExpr(*b.rhs, ctx);
    if (!okL || !okR)
      return false;
    if (isLogicOp(b.op)) {
      for (const Expr *x : {b.lhs.get(), b.rhs.get()})
        if (x->type != ElemType::Bool) {
          diags.error(b.loc, "'" + opSpelling(b.op) + "' takes bools (comparisons), not " +
                                 elemTypeName(x->type) + "; compare it first, e.g. 'x != 0'");
          return false;
        }
    } else if (!requireArithmetic(*b.lhs, b.loc, b.op) || !requireArithmetic(*b.rhs, b.loc, b.op)) {
      return false;
    }
    b.level = std::max(b.lhs->level, b.rhs->level);
    b.type = isComparisonOp(b.op) || isLogicOp(b.op) ? ElemType::Bool : ElemType::F32;
    b.depth = 1 + std::max(b.lhs->depth, b.rhs->depth);
    break;
  }
  case Expr::Call:
    if (!checkCall(llvm::cast<CallExpr>(e), ctx))
      return false;
    break;
  }
  if (e.depth > kMaxExprDepth) {
    diags.error(e.loc, "expression is nested too deeply once lets are expanded (more than " +
                           llvm::Twine(kMaxExprDepth) + " levels)");
    return false;
  }
  return true;
}

bool Sema::requireArithmetic(const Expr &operand, llvm::SMLoc opLoc, char op) {
  if (operand.type == ElemType::F32)
    return true;
  const std::string what = op ? "'" + opSpelling(op).str() + "'" : std::string("'-'");
  if (operand.type == ElemType::Bool)
    diags.error(opLoc, what + " takes f32 values, not a bool; select with where(c, 1, 0) or convert "
                              "with f32(...)");
  else
    diags.error(opLoc, "arithmetic on i8 values is not supported; i8 is an output type "
                       "(convert with f32(...))");
  return false;
}

bool Sema::checkCall(CallExpr &c, const Ctx &ctx) {
  size_t n = c.args.size();
  std::optional<Builtin> b = llvm::StringSwitch<std::optional<Builtin>>(c.callee)
                                 .Case("sum", Builtin::ReduceSum)
                                 .Case("max", n == 1 ? Builtin::ReduceMax : Builtin::Max2)
                                 .Case("min", n == 1 ? Builtin::ReduceMin : Builtin::Min2)
                                 .Case("abs", Builtin::Abs)
                                 .Case("exp", Builtin::Exp)
                                 .Case("log", Builtin::Log)
                                 .Case("sqrt", Builtin::Sqrt)
                                 .Case("rsqrt", Builtin::Rsqrt)
                                 .Case("tanh", Builtin::Tanh)
                                 .Case("sigmoid", Builtin::Sigmoid)
                                 .Case("round", Builtin::Round)
                                 .Case("clamp", Builtin::Clamp)
                                 .Case("i8", Builtin::CastI8)
                                 .Case("f32", Builtin::CastF32)
                                 .Case("scan_sum", Builtin::ScanSum)
                                 .Case("scan_max", Builtin::ScanMax)
                                 .Case("scan_min", Builtin::ScanMin)
                                 .Case("median", Builtin::Median)
                                 .Case("quantile", Builtin::Quantile)
                                 .Case("topk", Builtin::TopK)
                                 .Case("sort", Builtin::Sort)
                                 .Case("logsumexp", Builtin::ReduceLogSumExp)
                                 .Case("where", Builtin::Where)
                                 .Default(std::nullopt);
  if (!b) {
    if (c.callee == "f16" || c.callee == "bf16") {
      diags.error(c.loc, "'" + c.callee + "' is not supported yet: this version computes in f32");
      return false;
    }
    std::vector<llvm::StringRef> fns(std::begin(kFunctionNames), std::end(kFunctionNames) - 2);
    std::string hint = suggest(c.callee, fns);
    if (syms.byName.count(c.callee) || c.callee == "N")
      diags.error(c.loc, "'" + c.callee + "' is not a function");
    else
      diags.error(c.loc, "unknown function '" + c.callee + "'" +
                             (hint.empty() ? std::string() : "; did you mean '" + hint + "'?"));
    return false;
  }
  c.builtin = static_cast<int>(*b);
  unsigned want = 1;
  switch (*b) {
  case Builtin::Max2:
  case Builtin::Min2:
  case Builtin::Quantile:
  case Builtin::TopK:
    want = 2;
    break;
  case Builtin::Clamp:
  case Builtin::Where:
    want = 3;
    break;
  default:
    break;
  }
  if (n != want) {
    if (*b == Builtin::Max2 || *b == Builtin::Min2)
      diags.error(c.loc, "'" + c.callee + "' takes one argument (a reduction over the row) or two "
                                          "(the elementwise " + c.callee + "), not " +
                             llvm::Twine(n));
    else
      diags.error(c.loc, "'" + c.callee + "' takes " + llvm::Twine(want) + " argument" +
                             (want == 1 ? "" : "s") + ", not " + llvm::Twine(n));
    return false;
  }

  bool rowReduction = isReduction(*b) || isSelection(*b);
  Ctx inner = ctx;
  if (rowReduction) {
    const char *what = isReduction(*b) ? "reduction" : "selection";
    if (ctx.inReduction) {
      diags.error(c.loc, llvm::formatv("{0} nested in a reduction: '{1}' inside '{2}' (compute "
                                       "the inner statistic in an earlier stage)",
                                       what, c.callee, ctx.reduction->callee)
                             .str());
      diags.note(ctx.reduction->loc, "the enclosing reduction");
      return false;
    }
    if (ctx.where != Ctx::StageStat) {
      diags.error(c.loc, llvm::formatv("a {0} ('{1}') must appear inside a stage: write "
                                       "'stage {{ s = {1}(...) }' and use 's'",
                                       what, c.callee)
                             .str());
      return false;
    }
    inner.inReduction = true;
    inner.reduction = &c;
  }

  bool ok = true;
  for (auto &a : c.args)
    ok &= checkExpr(*a, inner);
  if (!ok)
    return false;

  Expr &a0 = *c.args[0];
  unsigned depth = 1;
  for (auto &a : c.args)
    depth = std::max(depth, a->depth + 1);
  c.depth = depth;
  c.type = ElemType::F32;

  auto requireF32 = [&](Expr &a) {
    if (a.type == ElemType::F32)
      return true;
    diags.error(a.loc, "'" + c.callee + "' takes f32 values" +
                           (a.type == ElemType::Bool ? ", not a bool; select with where(c, 1, 0) or convert"
                                                     : "; convert") +
                           " with f32(...)");
    return false;
  };

  switch (*b) {
  case Builtin::ReduceSum:
  case Builtin::ReduceMax:
  case Builtin::ReduceMin:
  case Builtin::ReduceLogSumExp:
  case Builtin::Median:
    if (!requireF32(a0))
      return false;
    c.level = Level::Row;
    return true;
  case Builtin::Quantile:
  case Builtin::TopK: {
    if (!requireF32(a0))
      return false;
    auto *num = llvm::dyn_cast<NumberExpr>(c.args[1].get());
    if (!num) {
      diags.error(c.args[1]->loc, "the second argument of '" + c.callee + "' must be a number");
      return false;
    }
    if (*b == Builtin::Quantile && (num->value < 0 || num->value > 1)) {
      diags.error(num->loc, "a quantile must lie in [0, 1]");
      return false;
    }
    if (*b == Builtin::TopK && (num->value < 1 || num->value != static_cast<long long>(num->value))) {
      diags.error(num->loc, "topk's k must be a positive whole number");
      return false;
    }
    c.level = Level::Row;
    return true;
  }
  case Builtin::CastI8:
    if (!requireF32(a0))
      return false;
    c.level = a0.level;
    c.type = ElemType::I8;
    return true;
  case Builtin::CastF32: // i8 or bool (1 or 0) to f32
    c.level = a0.level;
    return true;
  case Builtin::Where: {
    if (a0.type != ElemType::Bool) {
      diags.error(a0.loc, "the first argument of 'where' is a bool (a comparison, '&&', '||', '!'), "
                          "not " + elemTypeName(a0.type).str());
      return false;
    }
    Level lvl = a0.level;
    for (size_t i = 1; i < 3; ++i) {
      if (!requireF32(*c.args[i]))
        return false;
      lvl = std::max(lvl, c.args[i]->level);
    }
    c.level = lvl;
    return true;
  }
  case Builtin::ScanSum:
  case Builtin::ScanMax:
  case Builtin::ScanMin:
  case Builtin::Sort:
    if (!requireF32(a0))
      return false;
    c.level = Level::Element;
    return true;
  default:
    break;
  }
  Level lvl = Level::Const;
  for (auto &a : c.args) {
    if (!requireF32(*a))
      return false;
    lvl = std::max(lvl, a->level);
  }
  c.level = lvl;
  return true;
}

bool Sema::run() {
  bool ok = true;
  {
    auto rw = std::make_unique<Symbol>();
    rw->kind = Symbol::RowWidth;
    rw->name = "N";
    syms.rowWidth = rw.get();
    syms.symbols.push_back(std::move(rw));
    auto ix = std::make_unique<Symbol>();
    ix->kind = Symbol::ElementIndex;
    ix->name = "i";
    syms.elementIndex = ix.get();
    syms.symbols.push_back(std::move(ix));
  }
  // Collect every later definition (lets, statistics) so a use before its
  // definition gets a precise message.
  for (auto &s : k.body) {
    if (s.kind == Stmt::Let)
      laterNames.try_emplace(s.let.name, 0, s.let.loc);
    if (s.kind == Stmt::Stage)
      for (auto &a : s.stage.stats)
        laterNames.try_emplace(a.name, 0, a.loc);
  }
  // Declarations of inputs, params and outputs are visible everywhere in the kernel.
  for (size_t idx = 0; idx < k.body.size(); ++idx) {
    Stmt &s = k.body[idx];
    if (s.kind == Stmt::Input) {
      InputDecl &in = s.input;
      // Type errors are reported, but the input is still declared so that its
      // uses do not cascade into "unknown name" errors.
      const ElemType e = in.type.elem;
      if (in.type.perElement && isIndexStorage(e)) {
        diags.error(in.type.loc, "an '" + elemTypeName(e) +
                                     "' input is one value per row (a class index, a limit); per-element "
                                     "inputs are f32, bf16, f16, i8, u8 or bool");
        ok = false;
      } else if (!in.type.perElement && !(e == ElemType::F32 || isIndexStorage(e))) {
        diags.error(in.type.loc, "a per-row input must be f32, i32 or i64 (16-bit and byte types are for "
                                 "per-element inputs)");
        ok = false;
      } else if (in.broadcast && !in.type.perElement) {
        diags.error(in.broadcastLoc, "only a per-element input (f32[N]) can be 'broadcast'");
        ok = false;
      }
      auto kind = !in.type.perElement ? Symbol::ScalarInput
                  : in.broadcast      ? Symbol::BroadcastInput
                                      : Symbol::RowInput;
      Symbol *sym = declare(kind, in.name, in.loc, static_cast<int>(idx), "an input");
      if (!sym)
        ok = false;
      else if (in.type.elem == ElemType::Bool) // a mask: a bool value (nonzero byte: true)
        sym->type = ElemType::Bool;
    } else if (s.kind == Stmt::Param) {
      ParamDecl &p = s.param;
      if (p.type.elem != ElemType::F32 || p.type.perElement) {
        // Declared all the same, so that its uses get no second error.
        diags.error(p.type.loc, "a parameter is one f32 value; its type must be 'f32'");
        ok = false;
      }
      Symbol *sym = declare(Symbol::Param, p.name, p.loc, static_cast<int>(idx), "a parameter");
      if (!sym) {
        ok = false;
        continue;
      }
      sym->paramValue = p.value;
    } else if (s.kind == Stmt::Output) {
      OutputDecl &o = s.output;
      if (!isFloatStorage(o.type.elem) && o.type.elem != ElemType::I8) {
        diags.error(o.type.loc, "outputs must be f32, bf16, f16 or i8");
        ok = false;
      } else if (o.type.elem != ElemType::F32 && !o.type.perElement) {
        diags.error(o.type.loc, "a per-row output must be f32");
        ok = false;
      }
      Symbol *sym = declare(Symbol::Output, o.name, o.loc, static_cast<int>(idx), "an output");
      if (!sym) {
        ok = false;
        continue;
      }
      sym->type = o.type.elem == ElemType::I8 && o.type.perElement ? ElemType::I8 : ElemType::F32;
      sym->perElementOutput = o.type.perElement;
    }
  }

  // Program-order pass over lets, stages and output assignments.
  llvm::StringMap<llvm::SMLoc> assigned;
  for (size_t idx = 0; idx < k.body.size() && !diags.tooManyErrors(); ++idx) {
    Stmt &s = k.body[idx];
    Ctx ctx;
    ctx.stmtIndex = static_cast<int>(idx);
    if (s.kind == Stmt::Stage) {
      int stageNo = numStages++;
      for (Assign &a : s.stage.stats) {
        ctx.where = Ctx::StageStat;
        ctx.stage = stageNo;
        bool exprOk = checkExpr(*a.value, ctx);
        laterNames.erase(a.name);
        Symbol *sym = declare(Symbol::Stat, a.name, a.loc, static_cast<int>(idx), "a statistic");
        if (!sym || !exprOk) {
          ok = false;
          continue;
        }
        sym->stage = stageNo;
        sym->value = a.value.get();
        sym->expandedDepth = a.value->depth;
        if (a.value->level == Level::Element) {
          diags.error(exprStart(*a.value), "statistic '" + a.name +
                                        "' is per-element; a stage statistic is one value per row: "
                                        "reduce it with sum(...), max(...) or min(...)");
          ok = false;
        } else if (!containsReduction(*a.value)) {
          diags.error(a.loc, "statistic '" + a.name +
                                 "' does not reduce over the row; use sum(...), max(...) or "
                                 "min(...), or make it a 'let'");
          ok = false;
        } else if (a.value->type != ElemType::F32) {
          diags.error(exprStart(*a.value), "statistic '" + a.name + "' is " +
                                               elemTypeName(a.value->type) +
                                               "; a statistic is f32 (make a bool a 'let', or "
                                               "select with where(c, 1, 0))");
          ok = false;
        }
      }
    } else if (s.kind == Stmt::Let) {
      ctx.where = Ctx::Let;
      bool exprOk = checkExpr(*s.let.value, ctx);
      laterNames.erase(s.let.name);
      Symbol::Kind kind = exprOk && s.let.value->level == Level::Element ? Symbol::ElemLet
                                                                          : Symbol::RowLet;
      Symbol *sym = declare(kind, s.let.name, s.let.loc, static_cast<int>(idx), "a let");
      if (!sym || !exprOk) {
        ok = false;
        continue;
      }
      sym->value = s.let.value.get();
      sym->type = s.let.value->type;
      sym->expandedDepth = s.let.value->depth;
    } else if (s.kind == Stmt::OutputAssign) {
      Assign &a = s.assign;
      ctx.where = Ctx::Output;
      bool exprOk = checkExpr(*a.value, ctx);
      auto it = syms.byName.find(a.name);
      if (it == syms.byName.end() || it->second->kind != Symbol::Output) {
        if (it != syms.byName.end()) {
          diags.error(a.loc, "cannot assign to '" + a.name + "': only outputs ('out') are assigned");
          diags.note(it->second->loc, "'" + a.name + "' is declared here");
        } else {
          std::vector<llvm::StringRef> outs;
          for (auto &sy : syms.symbols)
            if (sy->kind == Symbol::Output)
              outs.push_back(sy->name);
          std::string hint = suggest(a.name, outs);
          diags.error(a.loc, "'" + a.name + "' is not a declared output" +
                                 (hint.empty() ? std::string("; declare it with 'out " + a.name + " : f32[N]'")
                                               : "; did you mean '" + hint + "'?"));
        }
        ok = false;
        continue;
      }
      Symbol *out = it->second;
      auto prev = assigned.find(a.name);
      if (prev != assigned.end()) {
        diags.error(a.loc, "output '" + a.name + "' is assigned twice");
        diags.note(prev->second, "first assigned here");
        ok = false;
        continue;
      }
      assigned[a.name] = a.loc;
      if (!exprOk) {
        ok = false;
        continue;
      }
      if (!out->perElementOutput && a.value->level == Level::Element) {
        diags.error(exprStart(*a.value), "output '" + a.name +
                                      "' is one value per row, but this expression is per-element");
        ok = false;
      } else if (out->type != a.value->type) {
        diags.error(exprStart(*a.value), "output '" + a.name + "' is " + elemTypeName(out->type) +
                                      " but the value is " + elemTypeName(a.value->type) +
                                      "; convert with " + elemTypeName(out->type) + "(...)");
        ok = false;
      }
    }
  }
  if (diags.tooManyErrors())
    return false;

  bool anyOutput = false;
  for (auto &sy : syms.symbols) {
    if (sy->kind != Symbol::Output)
      continue;
    anyOutput = true;
    if (!assigned.count(sy->name)) {
      diags.error(sy->loc, "output '" + sy->name + "' is never assigned");
      ok = false;
    }
  }
  if (!anyOutput) {
    diags.error(k.loc, "kernel '" + k.name + "' has no outputs ('out name : f32[N]')");
    ok = false;
  }
  return ok;
}

} // namespace

bool credit::analyzeKernel(Kernel &kernel, KernelSymbols &symbols, DiagEngine &diags) {
  Sema s(kernel, symbols, diags);
  return s.run();
}
