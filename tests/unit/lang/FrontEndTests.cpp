// Unit tests of the .credit lexer, parser and semantic checks.
#include "credit/Lang/Lexer.h"
#include "credit/Lang/Parser.h"
#include "credit/Lang/Sema.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace credit;

namespace {
/// Runs the front end over `src`; returns the diagnostics text.
struct FrontEnd {
  llvm::SourceMgr sm;
  std::string out;
  llvm::raw_string_ostream os{out};
  DiagEngine diags{sm, os};
  ast::Module module;
  std::vector<std::unique_ptr<KernelSymbols>> symbols;
  bool ok = false;

  explicit FrontEnd(const std::string &src) {
    sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(src, "t.credit"), llvm::SMLoc());
    module = parseModule(diags, sm.getMainFileID());
    for (size_t i = 0; i < module.kernels.size(); ++i)
      symbols.push_back(std::make_unique<KernelSymbols>());
    if (!diags.hadError())
      for (size_t i = 0; i < module.kernels.size(); ++i)
        analyzeKernel(module.kernels[i], *symbols[i], diags);
    ok = !diags.hadError();
    os.flush();
  }
};

std::vector<Token::Kind> lexKinds(const std::string &src, std::string *errs = nullptr) {
  llvm::SourceMgr sm;
  std::string out;
  llvm::raw_string_ostream os(out);
  DiagEngine diags(sm, os);
  sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(src, "t.credit"), llvm::SMLoc());
  Lexer lex(diags, sm.getMainFileID());
  std::vector<Token::Kind> kinds;
  for (Token t = lex.next(); !t.is(Token::Eof); t = lex.next())
    kinds.push_back(t.kind);
  os.flush();
  if (errs)
    *errs = out;
  return kinds;
}

const char *kLayerNorm = R"(
kernel layernorm {
  in    x     : f32[N]
  in    gamma : f32[N] broadcast
  in    beta  : f32[N] broadcast
  param eps   : f32 = 1e-5
  out   y     : f32[N]
  stage { mean = sum(x) / N }
  stage { var = sum((x - mean) * (x - mean)) / N }
  let rstd = rsqrt(var + eps)
  y = (x - mean) * rstd * gamma + beta
}
)";
} // namespace

TEST_CASE("lexer: keywords, punctuation, numbers and comments", "[lexer]") {
  auto k = lexKinds("kernel k { in x : f32[N] broadcast # comment\n y = 1.5e-3 * x; }");
  std::vector<Token::Kind> want = {
      Token::KwKernel, Token::Ident, Token::LBrace, Token::KwIn,     Token::Ident,
      Token::Colon,    Token::Ident, Token::LBracket, Token::Ident,  Token::RBracket,
      Token::KwBroadcast, Token::Ident, Token::Equal, Token::Number, Token::Star,
      Token::Ident,    Token::Semi,  Token::RBrace};
  CHECK(k == want);
}

TEST_CASE("lexer: malformed numbers are one error each", "[lexer]") {
  std::string errs;
  auto k = lexKinds("1.2.3 1e 1e999 0x10 .5 7", &errs);
  CHECK(k == std::vector<Token::Kind>{Token::Error, Token::Error, Token::Error, Token::Error,
                                      Token::Number, Token::Number});
  CHECK(errs.find("invalid number '1.2.3'") != std::string::npos);
  CHECK(errs.find("invalid number '1e'") != std::string::npos);
  CHECK(errs.find("too large for f32") != std::string::npos);
  CHECK(errs.find("invalid number '0x10'") != std::string::npos);
}

TEST_CASE("lexer: binary bytes give a located error, one per run", "[lexer]") {
  std::string errs;
  std::string src = "kernel";
  src += std::string("\x00\x01\x02\xff", 4);
  src += " k";
  auto k = lexKinds(src, &errs);
  CHECK(k == std::vector<Token::Kind>{Token::KwKernel, Token::Error, Token::Ident});
  CHECK(errs.find("t.credit:1:7: error: invalid character byte 0x00") != std::string::npos);
}

TEST_CASE("parser+sema: layernorm resolves every name with the right level", "[parser][sema]") {
  FrontEnd fe(kLayerNorm);
  REQUIRE(fe.ok);
  REQUIRE(fe.module.kernels.size() == 1);
  auto &syms = *fe.symbols[0];
  CHECK(syms.byName["x"]->kind == Symbol::RowInput);
  CHECK(syms.byName["gamma"]->kind == Symbol::BroadcastInput);
  CHECK(syms.byName["eps"]->kind == Symbol::Param);
  CHECK(syms.byName["eps"]->paramValue == Approx(1e-5));
  CHECK(syms.byName["mean"]->kind == Symbol::Stat);
  CHECK(syms.byName["mean"]->stage == 0);
  CHECK(syms.byName["var"]->stage == 1);
  CHECK(syms.byName["rstd"]->kind == Symbol::RowLet);
  // y's value is per-element.
  auto &body = fe.module.kernels[0].body;
  CHECK(body.back().kind == ast::Stmt::OutputAssign);
  CHECK(body.back().assign.value->level == ast::Level::Element);
}

TEST_CASE("parser: precedence and unary minus", "[parser]") {
  FrontEnd fe("kernel k { in x : f32[N] out y : f32[N] y = -x * 2 + 3 / x - 1 }");
  REQUIRE(fe.ok);
  auto *e = fe.module.kernels[0].body.back().assign.value.get();
  // ((( -x * 2) + (3 / x)) - 1)
  auto *sub = llvm::dyn_cast<ast::BinaryExpr>(e);
  REQUIRE(sub);
  CHECK(sub->op == '-');
  auto *add = llvm::dyn_cast<ast::BinaryExpr>(sub->lhs.get());
  REQUIRE(add);
  CHECK(add->op == '+');
  auto *mul = llvm::dyn_cast<ast::BinaryExpr>(add->lhs.get());
  REQUIRE(mul);
  CHECK(mul->op == '*');
  CHECK(llvm::isa<ast::UnaryExpr>(mul->lhs.get()));
}

TEST_CASE("sema: element lets and row lets are told apart", "[sema]") {
  FrontEnd fe(R"(kernel k { in x : f32[N] out y : f32[N]
    stage { m = max(x) } stage { s = sum(exp(x - m)) }
    let p = exp(x - m) / s
    let inv = 1 / s
    y = p * inv })");
  REQUIRE(fe.ok);
  CHECK(fe.symbols[0]->byName["p"]->kind == Symbol::ElemLet);
  CHECK(fe.symbols[0]->byName["inv"]->kind == Symbol::RowLet);
}

TEST_CASE("sema: rejected constructs parse and check (they are rejected later)", "[sema]") {
  CHECK(FrontEnd("kernel k { in x : f32[N] out y : f32[N] stage { t = sum(x) } y = scan_sum(x) / t }").ok);
  CHECK(FrontEnd("kernel k { in x : f32[N] out y : f32[N] stage { t = max(x) } y = x[i-1] + x[i+2] - t }").ok);
  CHECK(FrontEnd("kernel k { in x : f32[N] out y : f32[N] stage { t = median(x) } y = x - t }").ok);
  CHECK(FrontEnd("kernel k { in x : f32[N] out y : f32[N] stage { t = quantile(x, 0.9) } y = x - t }").ok);
  CHECK(FrontEnd("kernel k { in x : f32[N] out y : f32[N] stage { t = topk(x, 4) } y = x - t }").ok);
  CHECK(FrontEnd("kernel k { in x : f32[N] out y : f32[N] stage { t = sum(x) } y = sort(x) / t }").ok);
}

namespace {
/// Expects an error containing `msg` at `line:col`.
void expectError(const std::string &src, const std::string &msg, const std::string &where) {
  FrontEnd fe(src);
  INFO(fe.out);
  CHECK_FALSE(fe.ok);
  CHECK(fe.out.find(msg) != std::string::npos);
  CHECK(fe.out.find("t.credit:" + where + ": error") != std::string::npos);
}
} // namespace

TEST_CASE("sema: located errors", "[sema][errors]") {
  expectError("", "the file is empty", "1:1");
  expectError("kernel k { in x : f32[N] out y : f32[N] y = z }", "unknown name 'z'", "1:45");
  expectError("kernel k { in x : f32[N] in x : f32[N] out y : f32[N] y = x }", "duplicate name 'x'", "1:29");
  expectError("kernel k { in x : f32[N] out y : f32[N]\nstage { a = sum(x * b) }\nstage { b = max(x) }\ny = x * a }",
              "'b' is used before its definition", "2:21");
  expectError("kernel k { in x : f32[N] out y : f32[N] stage { a = sum(x) } y = x y = a }",
              "output 'y' is assigned twice", "1:68");
  expectError("kernel k { in x : f32[N] out y : f32[N] out z : f32[N] y = x }", "output 'z' is never assigned", "1:45");
  expectError("kernel k { in x : f32[N] out y : f32[N] stage { a = sum(max(x)) } y = x * a }",
              "reduction nested in a reduction", "1:57");
  expectError("kernel k { in x : f32[N] out y : f32[N] y = x / sum(x) }", "must appear inside a stage", "1:49");
  expectError("kernel k { in x : f32[N] out y : f32[N] stage { a = sum(x) b = sum(x * a) } y = x * b }",
              "is used inside a reduction of the stage that computes it", "1:72");
  expectError("kernel k { in x : f32[N] out y : f32 y = x }", "one value per row, but this expression is per-element", "1:42");
  expectError("kernel k { in x : f32[N] out q : i8[N] q = x }", "convert with i8(...)", "1:44");
  expectError("kernel k { in x : f32[N] out y : f32[N] y = foo(x) }", "unknown function 'foo'", "1:45");
  expectError("kernel k { in x : f32[N] out y : f32[N] y = exp(x, x) }", "'exp' takes 1 argument, not 2", "1:45");
  expectError("kernel k { in N : f32[N] out y : f32[N] y = N }", "'N' is the row width", "1:15");
  expectError("kernel k { in s : f16 in x : f32[N] out y : f32[N] stage { m = max(x) } y = x * s - m }", "a per-row input must be f32, i32 or i64", "1:19");
  expectError("kernel k { in x : f32[N] out y : f32[N] stage { a = x } y = a }", "is per-element", "1:53");
  expectError("kernel k { in x : f32[N] out y : f32[N] y = x", "unterminated kernel body", "1:46");
  expectError("kernel k { in x : f32[N] out y : f32[N] stage { a = sum(x) y = x }", "unterminated", "1:67");
  expectError("kernel k { in x : f32[N] out y : f32[N] x = 1 y = x }", "cannot assign to 'x'", "1:41");
}

TEST_CASE("parser: several errors in one run", "[parser][errors]") {
  FrontEnd fe("kernel k {\n in x : f32[N]\n out y : f32[N]\n in z : q32\n out w : f32[N]\n y = x +\n w = )\n}\n");
  CHECK_FALSE(fe.ok);
  CHECK(fe.diags.numErrors() >= 2);
}

TEST_CASE("parser: deep nesting is an error, not a stack overflow", "[parser][errors]") {
  std::string src = "kernel k { in x : f32[N] out y : f32[N] y = " + std::string(10000, '(') + "x" +
                    std::string(10000, ')') + " }";
  FrontEnd fe(src);
  CHECK_FALSE(fe.ok);
  CHECK(fe.out.find("nested too deeply") != std::string::npos);

  std::string chain = "kernel k { in x : f32[N] out y : f32[N] y = x";
  for (int i = 0; i < 100000; ++i)
    chain += "+x";
  chain += " }";
  FrontEnd fe2(chain);
  CHECK_FALSE(fe2.ok);
  CHECK(fe2.out.find("nested too deeply") != std::string::npos);

  std::string neg = "kernel k { in x : f32[N] out y : f32[N] y = " + std::string(50000, '-') + "x }";
  FrontEnd fe3(neg);
  CHECK_FALSE(fe3.ok);
}

TEST_CASE("sema: let chains are bounded once expanded", "[sema][errors]") {
  std::string src = "kernel k { in x : f32[N] out y : f32[N]\nlet a0 = x\n";
  for (int i = 1; i < 400; ++i)
    src += "let a" + std::to_string(i) + " = a" + std::to_string(i - 1) + " + x\n";
  src += "y = a399 }";
  FrontEnd fe(src);
  CHECK_FALSE(fe.ok);
  CHECK(fe.out.find("nested too deeply once lets are expanded") != std::string::npos);
}

TEST_CASE("diagnostics: a 1 MB line is echoed trimmed around the caret", "[errors]") {
  std::string src = "kernel k { in x : f32[N] out y : f32[N] y = x " + std::string(1 << 20, ' ') + "@ }";
  FrontEnd fe(src);
  CHECK_FALSE(fe.ok);
  CHECK(fe.out.size() < 2000);
  CHECK(fe.out.find("invalid character '@'") != std::string::npos);
}
