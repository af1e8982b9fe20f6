//===- CudaExpr.cpp - arith/math → C++ expressions, C++ names --------------===//
#include "CudaExpr.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace mlir;
using namespace ::credit::cudaold;

//===----------------------------------------------------------------------===//
// NameTable
//===----------------------------------------------------------------------===//

NameTable::NameTable() {
  // C++ keywords and alternative tokens, CUDA built-in variables and types,
  // and library functions the generated code calls: a source name equal to one
  // of these gets a trailing underscore.
  static const char *const kReserved[] = {
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
      "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept",
      "const", "consteval", "constexpr", "constinit", "const_cast", "continue", "co_await",
      "co_return", "co_yield", "decltype", "default", "delete", "do", "double", "dynamic_cast",
      "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
      "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
      "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register",
      "reinterpret_cast", "requires", "return", "short", "signed", "sizeof", "static",
      "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local",
      "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using",
      "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq", "NULL", "main",
      // CUDA
      "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "dim3", "float2", "float4",
      "char4", "int4", "uint4", "int8_t", "int32_t", "int64_t", "uint8_t", "uint32_t", "uint64_t",
      "size_t", "cudaStream_t", "cudaError_t", "credit", "std", "assert", "printf",
      // functions called by the generated code (a local of that name would hide them)
      "min", "max", "fminf", "fmaxf", "fabsf", "expf", "logf", "sqrtf", "rsqrtf", "tanhf",
      "roundf", "isnan", "exp", "log", "sqrt", "rsqrt", "tanh", "round", "abs",
  };
  for (const char *s : kReserved)
    taken.insert(s);
}

std::string NameTable::unique(llvm::StringRef base) {
  std::string name;
  for (char c : base)
    name += (llvm::isAlnum(c) || c == '_') ? c : '_';
  if (name.empty() || llvm::isDigit(name[0]))
    name = "v" + name;
  // Identifiers with a double underscore, or starting with _ and an upper
  // case letter, are reserved to the implementation; the credit_ and CREDIT_
  // prefixes belong to the prelude.
  auto reservedPrefix = [](llvm::StringRef n) {
    return n.contains("__") || (n.size() > 1 && n[0] == '_' && llvm::isUpper(n[1])) ||
           n.starts_with("credit_") || n.starts_with("CREDIT_");
  };
  if (reservedPrefix(name))
    name = "u_" + name;
  while (name.find("__") != std::string::npos)
    name.erase(name.find("__"), 1);
  std::string candidate = name;
  for (int i = 2; taken.contains(candidate); ++i)
    candidate = name + (i == 2 ? std::string("_") : "_" + std::to_string(i - 1));
  taken.insert(candidate);
  return candidate;
}

//===----------------------------------------------------------------------===//
// Literals
//===----------------------------------------------------------------------===//

std::string (::credit::cudaold::shortestFloat)(float f) {
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

std::string (::credit::cudaold::cudaFloatLiteral)(float f) {
  if (std::isnan(f))
    return "__int_as_float(0x7fffffff)";
  if (std::isinf(f))
    return f > 0 ? "__int_as_float(0x7f800000)" : "__int_as_float(0xff800000)";
  std::string s = shortestFloat(f);
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s + "f";
}

//===----------------------------------------------------------------------===//
// Let names from the source text
//===----------------------------------------------------------------------===//

std::optional<llvm::StringRef> LetNames::line(llvm::StringRef file, unsigned lineNo) {
  auto it = files.find(file);
  if (it == files.end()) {
    std::vector<std::string> lines;
    if (auto buf = llvm::MemoryBuffer::getFile(file, /*IsText=*/true)) {
      llvm::SmallVector<llvm::StringRef> parts;
      (*buf)->getBuffer().split(parts, '\n');
      for (llvm::StringRef p : parts)
        lines.push_back(p.str());
    }
    it = files.insert({file, std::move(lines)}).first;
  }
  if (lineNo == 0 || lineNo > it->second.size())
    return std::nullopt;
  return llvm::StringRef(it->second[lineNo - 1]);
}

static std::optional<std::pair<std::string, unsigned>> fileLine(Location loc) {
  if (auto fl = loc->findInstanceOf<FileLineColLoc>())
    return std::make_pair(fl.getFilename().str(), fl.getLine());
  return std::nullopt;
}

std::optional<std::string> LetNames::lookup(Operation *op) {
  if (op->getNumResults() != 1 || llvm::isa<arith::ConstantOp>(op))
    return std::nullopt;
  auto where = fileLine(op->getLoc());
  if (!where)
    return std::nullopt;
  std::optional<llvm::StringRef> text = line(where->first, where->second);
  if (!text)
    return std::nullopt;
  llvm::StringRef s = text->ltrim();
  if (!s.consume_front("let") || s.empty() || !(s[0] == ' ' || s[0] == '\t'))
    return std::nullopt;
  s = s.ltrim();
  size_t n = 0;
  while (n < s.size() && (llvm::isAlnum(s[n]) || s[n] == '_'))
    ++n;
  if (n == 0)
    return std::nullopt;
  std::string name = s.take_front(n).str();
  if (!s.drop_front(n).ltrim().starts_with("="))
    return std::nullopt;
  // The root of the let's expression: no user on the same line.
  for (Operation *user : op->getResult(0).getUsers()) {
    auto userWhere = fileLine(user->getLoc());
    if (userWhere && *userWhere == *where && !llvm::isa<mlir::credit::YieldOp>(user))
      return std::nullopt;
  }
  return name;
}

//===----------------------------------------------------------------------===//
// ExprPrinter
//===----------------------------------------------------------------------===//

bool ExprPrinter::isExprOp(Operation *op) {
  return llvm::isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp, arith::NegFOp,
                   arith::MaxNumFOp, arith::MinNumFOp, arith::ConstantOp, arith::FPToSIOp,
                   arith::SIToFPOp, math::AbsFOp, math::ExpOp, math::LogOp, math::SqrtOp,
                   math::RsqrtOp, math::TanhOp, math::RoundOp>(op);
}

std::string ExprPrinter::cudaType(Type t) {
  if (auto row = llvm::dyn_cast<mlir::credit::RowType>(t))
    t = row.getElementType();
  return t.isInteger(8) ? "int8_t" : "float";
}

bool ::credit::cudaold::needsTemporary(Operation *op, bool isLetRoot) {
  if (llvm::isa<arith::ConstantOp>(op))
    return false;
  if (isLetRoot)
    return true;
  Value v = op->getResult(0);
  if (!v.hasOneUse())
    return true;
  // A single use by an expression, a yield or a per-row output is inlined.
  Operation *user = *v.getUsers().begin();
  return !(ExprPrinter::isExprOp(user) ||
           llvm::isa<mlir::credit::YieldOp, mlir::credit::OutputOp>(user));
}

ExprPrinter::Printed ExprPrinter::fail(Operation *op, const std::string &why) {
  if (!failedOp) {
    failedOp = op;
    reason = why;
  }
  return {"<error>", kAtom};
}

ExprPrinter::Printed ExprPrinter::print(Value v) {
  auto it = bound.find(v);
  if (it != bound.end())
    return it->second;
  Operation *def = v.getDefiningOp();
  if (!def) {
    if (!failedOp)
      failedValue = true;
    reason = "a block argument without a name";
    return {"<error>", kAtom};
  }
  return printOp(def);
}

std::string ExprPrinter::paren(const Printed &p, int minPrec) {
  return p.prec >= minPrec ? p.text : "(" + p.text + ")";
}

ExprPrinter::Printed ExprPrinter::printOp(Operation *op) {
  const bool cuda = style != ExprStyle::Math;
  const bool fast = style == ExprStyle::CudaFast;
  auto binary = [&](const char *sym, int prec) -> Printed {
    Printed a = print(op->getOperand(0)), b = print(op->getOperand(1));
    // Left-associative: the left operand needs parentheses only when it binds
    // weaker; the right one also when it binds equally (a - (b - c), and
    // a + (b + c), which floating point does not reassociate).
    return {paren(a, prec) + " " + sym + " " + paren(b, prec + 1), prec};
  };
  auto call = [&](const char *cudaName, const char *mathName) -> Printed {
    std::string s = std::string(cuda ? cudaName : mathName) + "(";
    for (unsigned i = 0; i < op->getNumOperands(); ++i)
      s += (i ? ", " : "") + print(op->getOperand(i)).text;
    return {s + ")", kAtom};
  };
  return llvm::TypeSwitch<Operation *, Printed>(op)
      .Case<arith::AddFOp>([&](auto) { return binary("+", 1); })
      .Case<arith::SubFOp>([&](auto) { return binary("-", 1); })
      .Case<arith::MulFOp>([&](auto) { return binary("*", 2); })
      .Case<arith::DivFOp>([&](auto) { return fast ? call("__fdividef", "") : binary("/", 2); })
      .Case<arith::NegFOp>([&](auto) -> Printed {
        Printed a = print(op->getOperand(0));
        // Never `--a`: a negated negation or negative literal gets parentheses.
        std::string inner = (a.prec < 3 || a.text.rfind("-", 0) == 0) ? "(" + a.text + ")" : a.text;
        return {"-" + inner, 3};
      })
      .Case<arith::MaxNumFOp>([&](auto) { return call("fmaxf", "max"); })
      .Case<arith::MinNumFOp>([&](auto) { return call("fminf", "min"); })
      .Case<math::AbsFOp>([&](auto) { return call("fabsf", "abs"); })
      .Case<math::ExpOp>([&](auto) { return call(fast ? "__expf" : "expf", "exp"); })
      .Case<math::LogOp>([&](auto) { return call(fast ? "__logf" : "logf", "log"); })
      .Case<math::SqrtOp>([&](auto) { return call("sqrtf", "sqrt"); })
      .Case<math::RsqrtOp>([&](auto) { return call("rsqrtf", "rsqrt"); })
      .Case<math::TanhOp>([&](auto) { return call("tanhf", "tanh"); })
      .Case<math::RoundOp>([&](auto) { return call("roundf", "round"); })
      .Case<arith::FPToSIOp>([&](arith::FPToSIOp c) -> Printed {
        if (!c.getType().isInteger(8))
          return fail(op, "only f32 -> i8 conversions are supported");
        return call("credit_f32_to_i8", "i8");
      })
      .Case<arith::SIToFPOp>([&](arith::SIToFPOp c) -> Printed {
        if (!c.getType().isF32())
          return fail(op, "only i8 -> f32 conversions are supported");
        Printed a = print(op->getOperand(0));
        if (!cuda)
          return {"f32(" + a.text + ")", kAtom};
        return {"static_cast<float>(" + a.text + ")", kAtom};
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
        if (auto i = llvm::dyn_cast<IntegerAttr>(c.getValue())) {
          if (!i.getType().isInteger(8))
            return fail(op, "only i8 integer constants are supported");
          std::string s = std::to_string(i.getValue().getSExtValue());
          return {cuda ? "static_cast<int8_t>(" + s + ")" : "i8(" + s + ")", kAtom};
        }
        return fail(op, "unsupported constant");
      })
      .Default([&](Operation *o) {
        return fail(o, "'" + o->getName().getStringRef().str() +
                           "' has no CUDA lowering in this version");
      });
}
