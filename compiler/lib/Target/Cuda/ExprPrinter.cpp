//===- ExprPrinter.cpp - arith/math ops as C++ expressions ----------------===//
#include "ExprPrinter.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace mlir;
using namespace ::credit::cuda;

//===----------------------------------------------------------------------===//
// Literals
//===----------------------------------------------------------------------===//

std::string(::credit::cuda::shortestFloat)(float f) {
  if (std::isnan(f))
    return "nan";
  if (std::isinf(f))
    return f > 0 ? "inf" : "-inf";
  char buf[64];
  // Whole numbers below 2^24 print without an exponent ("10", "127").
  if (f == std::trunc(f) && std::fabs(f) < 16777216.0f) {
    std::snprintf(buf, sizeof buf, "%.0f", static_cast<double>(f));
    if (std::strtof(buf, nullptr) == f && !(f == 0.0f && std::signbit(f)))
      return buf;
  }
  for (int prec = 1; prec <= 9; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, static_cast<double>(f));
    if (std::strtof(buf, nullptr) == f)
      break;
  }
  return buf;
}

std::string(::credit::cuda::cudaFloatLiteral)(float f) {
  if (std::isnan(f))
    return "::cuda::std::numeric_limits<float>::quiet_NaN()";
  if (std::isinf(f))
    return f > 0 ? "::cuda::std::numeric_limits<float>::infinity()" : "-::cuda::std::numeric_limits<float>::infinity()";
  std::string s = shortestFloat(f);
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s + "f";
}

bool(::credit::cuda::isNonFiniteConstant)(Operation *op) {
  auto c = llvm::dyn_cast<arith::ConstantOp>(op);
  auto f = c ? llvm::dyn_cast<FloatAttr>(c.getValue()) : FloatAttr();
  return f && !f.getValue().isFinite();
}

//===----------------------------------------------------------------------===//
// The functions the expressions call
//===----------------------------------------------------------------------===//

namespace {
/// One call-shaped op: its C++ function (accurate, --fast-math) and formula name.
struct Call {
  StringRef op, cuda, fast, math;
};
const Call kCalls[] = {
    {"arith.maxnumf", "fmaxf", "fmaxf", "max"}, {"arith.minnumf", "fminf", "fminf", "min"},
    {"math.absf", "fabsf", "fabsf", "abs"},     {"math.exp", "expf", "fast_exp", "exp"},
    {"math.log", "logf", "__logf", "log"},      {"math.sqrt", "sqrtf", "sqrtf", "sqrt"},
    {"math.rsqrt", "rsqrtf", "rsqrtf", "rsqrt"}, {"math.tanh", "tanhf", "tanhf", "tanh"},
    {"math.round", "roundf", "roundf", "round"},
};
const Call *findCall(Operation *op) {
  for (const Call &c : kCalls)
    if (op->getName().getStringRef() == c.op)
      return &c;
  return nullptr;
}
} // namespace

bool ExprPrinter::isExprOp(Operation *op) {
  return findCall(op) ||
         llvm::isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp, arith::NegFOp,
                   arith::ConstantOp, arith::FPToSIOp, arith::SIToFPOp, arith::CmpFOp, arith::SelectOp,
                   arith::AndIOp, arith::OrIOp, arith::XOrIOp, arith::UIToFPOp, mlir::credit::IndexOp>(op);
}

StringRef ExprPrinter::cudaType(Type t) {
  if (auto row = llvm::dyn_cast<mlir::credit::RowType>(t))
    t = row.getElementType();
  return t.isInteger(8) ? "int8_t" : t.isInteger(1) ? "bool" : "float";
}

ExprPrinter::ExprPrinter(ExprStyle style, NameSupply &names) : style(style), names(names) {
  if (style == ExprStyle::Math)
    return;
  for (const Call &c : kCalls)
    names.claim(style == ExprStyle::CudaFast ? c.fast : c.cuda);
  names.claim("__fdividef");
  names.claim("int8_t");
}

std::string ExprPrinter::fn(StringRef name) { return name.str(); }

//===----------------------------------------------------------------------===//
// Value numbering
//===----------------------------------------------------------------------===//

void ExprPrinter::bind(Value v, std::string text) {
  bound[v] = {std::move(text), kAtom};
}

Operation *ExprPrinter::leader(Operation *op) const {
  auto it = leaders.find(op);
  return it == leaders.end() ? op : it->second;
}

std::string ExprPrinter::key(Operation *op) {
  auto it = keys.find(op);
  if (it != keys.end())
    return it->second;
  std::string k;
  llvm::raw_string_ostream os(k);
  os << op->getName().getStringRef() << op->getAttrDictionary() << "(";
  for (Value v : op->getOperands()) {
    while (aliases.count(v))
      v = aliases.lookup(v);
    auto b = bound.find(v);
    if (b != bound.end())
      os << "=" << b->second.text;
    else if (Operation *def = v.getDefiningOp(); def && leaders.count(def))
      os << "#" << static_cast<const void *>(leader(def));
    else
      os << "@" << v.getAsOpaquePointer();
    os << ",";
  }
  os << ")";
  return keys[op] = k;
}

llvm::SmallVector<Operation *> ExprPrinter::opsOf(Block &block) {
  llvm::SmallVector<Operation *> ops;
  for (Operation &op : block)
    ops.push_back(&op);
  return ops;
}

void ExprPrinter::scan(llvm::ArrayRef<Operation *> ops) {
  auto use = [&](Value v) {
    while (aliases.count(v))
      v = aliases.lookup(v);
    if (bound.count(v))
      return;
    if (Operation *def = v.getDefiningOp(); def && leaders.count(def))
      ++uses[leader(def)];
  };
  for (Operation *op : ops) {
    if (!isExprOp(op)) {
      for (Value v : op->getOperands())
        use(v);
      continue;
    }
    auto [it, inserted] = classes.try_emplace(key(op), op);
    leaders[op] = it->second;
    if (!inserted)
      continue; // a duplicate: its leader's uses count once
    for (Value v : op->getOperands())
      use(v);
  }
}

bool ExprPrinter::isShared(Value v) const {
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  auto it = uses.find(leader(def));
  return it != uses.end() && it->second > 1;
}

void ExprPrinter::declare(llvm::ArrayRef<Operation *> ops, raw_ostream &os, const LetFn &letName,
                          const Hook &hook) {
  for (Operation *op : ops) {
    if (!isExprOp(op) || llvm::isa<arith::ConstantOp>(op) || leader(op) != op ||
        isBound(op->getResult(0)))
      continue;
    if (hook && hook(op, os))
      continue;
    std::optional<std::string> let = letName ? letName(op) : std::nullopt;
    // Formulas inline a shared value while it reads well; a longer one is named
    // too, so that no formula grows with the depth of its sharing.
    bool shared = isShared(op->getResult(0)) &&
                  (style != ExprStyle::Math || expr(op).size() > kMathInlineLimit);
    if (let || shared)
      declareAs(op, let ? StringRef(*let) : StringRef("t" + std::to_string(counter++)), os);
  }
}

std::string ExprPrinter::declareAs(Operation *op, StringRef base, raw_ostream &os) {
  std::string value = expr(op);
  std::string name = style == ExprStyle::Math ? base.str() : names.fresh(base);
  if (style == ExprStyle::Math)
    os << name << " = " << value << "\n";
  else
    os << "const " << cudaType(op->getResult(0).getType()) << " " << name << " = " << value << ";\n";
  bind(op->getResult(0), name);
  return name;
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

ExprPrinter::Printed ExprPrinter::fail(Operation *op, const std::string &why) {
  if (!failedOp) {
    failedOp = op;
    reason = why;
  }
  return {"<error>", kAtom};
}

ExprPrinter::Printed ExprPrinter::print(Value v) {
  if (auto a = aliases.find(v); a != aliases.end())
    return print(a->second);
  auto it = bound.find(v);
  if (it != bound.end())
    return it->second;
  Operation *def = v.getDefiningOp();
  if (!def) {
    if (!failedOp && !failedValue) {
      failedValue = true;
      reason = "a block argument without a name";
    }
    return {"<error>", kAtom};
  }
  if (Operation *l = leader(def); l != def)
    return print(l->getResult(0));
  return printOp(def);
}

ExprPrinter::Printed ExprPrinter::printOp(Operation *op) {
  const bool cuda = style != ExprStyle::Math;
  const bool fast = style == ExprStyle::CudaFast;
  auto paren = [](const Printed &p, int minPrec) {
    return p.prec >= minPrec ? p.text : "(" + p.text + ")";
  };
  auto binary = [&](const char *sym, int prec) -> Printed {
    Printed a = print(op->getOperand(0)), b = print(op->getOperand(1));
    // Left-associative: the right operand keeps parentheses at equal
    // precedence too (a - (b - c), a + (b + c): floating point does not
    // reassociate).
    return {paren(a, prec) + " " + sym + " " + paren(b, prec + 1), prec};
  };
  auto call = [&](StringRef name) -> Printed {
    std::string s = (cuda ? fn(name) : name.str()) + "(";
    for (unsigned i = 0; i < op->getNumOperands(); ++i)
      s += (i ? ", " : "") + print(op->getOperand(i)).text;
    return {s + ")", kAtom};
  };
  if (const Call *c = findCall(op))
    return call(!cuda ? c->math : fast ? c->fast : c->cuda);
  return llvm::TypeSwitch<Operation *, Printed>(op)
      .Case<arith::AddFOp>([&](auto) { return binary("+", 1); })
      .Case<arith::SubFOp>([&](auto) { return binary("-", 1); })
      .Case<arith::MulFOp>([&](auto) { return binary("*", 2); })
      .Case<arith::DivFOp>([&](auto) { return fast ? call("__fdividef") : binary("/", 2); })
      .Case<arith::NegFOp>([&](auto) -> Printed {
        Printed a = print(op->getOperand(0));
        // Never `--a`: a negation or negative literal operand keeps parentheses.
        bool wrap = a.prec < 3 || a.text.rfind("-", 0) == 0;
        return {"-" + (wrap ? "(" + a.text + ")" : a.text), 3};
      })
      .Case<arith::FPToSIOp>([&](arith::FPToSIOp c) -> Printed {
        if (!c.getType().isInteger(8))
          return fail(op, "only f32 -> i8 conversions are supported");
        return call(cuda ? StringRef(i8Conversion) : StringRef("i8"));
      })
      .Case<arith::SIToFPOp>([&](arith::SIToFPOp c) -> Printed {
        if (!c.getType().isF32())
          return fail(op, "only i8 -> f32 conversions are supported");
        std::string a = print(op->getOperand(0)).text;
        return {cuda ? "static_cast<float>(" + a + ")" : "f32(" + a + ")", kAtom};
      })
      .Case<arith::CmpFOp>([&](arith::CmpFOp c) -> Printed {
        // C's operators are the ordered predicates and '!='; an unordered one is
        // the negation of the opposite ordered one (canonicalization makes them
        // from '!').
        using P = arith::CmpFPredicate;
        auto negated = [&](const char *sym) -> Printed {
          return {"!(" + binary(sym, kComparePrec).text + ")", 3};
        };
        Printed a = print(op->getOperand(0)), b = print(op->getOperand(1));
        auto both = [&](const char *s1, const char *join, const char *s2) {
          std::string x = paren(a, kComparePrec), y = paren(b, kComparePrec + 1);
          return "(" + x + " " + s1 + " " + y + " " + join + " " + x + " " + s2 + " " + y + ")";
        };
        switch (c.getPredicate()) {
        case P::OLT: return binary("<", kComparePrec);
        case P::OLE: return binary("<=", kComparePrec);
        case P::OGT: return binary(">", kComparePrec);
        case P::OGE: return binary(">=", kComparePrec);
        case P::OEQ: return binary("==", kComparePrec);
        case P::UNE: return binary("!=", kComparePrec);
        case P::UGE: return negated("<");
        case P::UGT: return negated("<=");
        case P::ULE: return negated(">");
        case P::ULT: return negated(">=");
        case P::ONE: return {both("<", "||", ">"), kAtom};
        case P::UEQ: return {"!" + both("<", "||", ">"), 3};
        case P::ORD: return {both("==", "&&", "=="), kAtom};
        case P::UNO: return {both("!=", "||", "!="), kAtom};
        case P::AlwaysTrue: return {"true", kAtom};
        case P::AlwaysFalse: return {"false", kAtom};
        }
        return fail(op, "unknown comparison");
      })
      .Case<arith::SelectOp>([&](auto) -> Printed {
        Printed c = print(op->getOperand(0)), a = print(op->getOperand(1)), b = print(op->getOperand(2));
        if (!cuda)
          return {"where(" + c.text + ", " + a.text + ", " + b.text + ")", kAtom};
        return {paren(c, kOrPrec) + " ? " + paren(a, kOrPrec) + " : " + paren(b, kSelectPrec), kSelectPrec};
      })
      .Case<arith::AndIOp>([&](auto) { return binary("&&", kAndPrec); })
      .Case<arith::OrIOp>([&](auto) { return binary("||", kOrPrec); })
      .Case<arith::XOrIOp>([&](auto) -> Printed {
        // !c is c xor true.
        for (unsigned i = 0; i < 2; ++i)
          if (auto k = op->getOperand(i).getDefiningOp<arith::ConstantOp>())
            if (auto v = llvm::dyn_cast<IntegerAttr>(k.getValue()); v && v.getValue().isOne()) {
              Printed x = print(op->getOperand(1 - i));
              return {"!" + paren(x, 3), 3};
            }
        return binary("!=", kComparePrec);
      })
      .Case<mlir::credit::IndexOp>([&](auto) -> Printed {
        return {cuda ? "e.index()" : "i", kAtom};
      })
      .Case<arith::UIToFPOp>([&](arith::UIToFPOp c) -> Printed {
        if (!c.getIn().getType().isInteger(1) || !c.getType().isF32())
          return fail(op, "only bool -> f32 conversions are supported");
        std::string a = print(op->getOperand(0)).text;
        return {cuda ? "static_cast<float>(" + a + ")" : "f32(" + a + ")", kAtom};
      })
      .Case<arith::ConstantOp>([&](arith::ConstantOp c) -> Printed {
        if (auto f = llvm::dyn_cast<FloatAttr>(c.getValue())) {
          if (!f.getType().isF32())
            return fail(op, "only f32 constants are supported");
          float value = f.getValue().convertToFloat();
          std::string s = cuda ? cudaFloatLiteral(value) : shortestFloat(value);
          // A negative literal binds like a unary minus.
          return {s, s.rfind("-", 0) == 0 ? 3 : kAtom};
        }
        if (auto i = llvm::dyn_cast<IntegerAttr>(c.getValue()); i && i.getType().isInteger(1))
          return {i.getValue().isOne() ? "true" : "false", kAtom};
        if (auto i = llvm::dyn_cast<IntegerAttr>(c.getValue())) {
          if (!i.getType().isInteger(8))
            return fail(op, "only i8 integer constants are supported");
          std::string s = std::to_string(i.getValue().getSExtValue());
          return {cuda ? "static_cast<int8_t>(" + s + ")" : "i8(" + s + ")", kAtom};
        }
        return fail(op, "unsupported constant");
      })
      .Default([&](Operation *o) {
        return fail(o, "'" + o->getName().getStringRef().str() + "' has no CUDA lowering in this version");
      });
}
