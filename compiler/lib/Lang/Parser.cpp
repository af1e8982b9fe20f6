//===- Parser.cpp ---------------------------------------------------------===//
#include "credit/Lang/Parser.h"
#include "credit/Lang/Lexer.h"

#include "llvm/ADT/StringSwitch.h"

#include <limits>
#include <optional>

using namespace credit;
using namespace credit::ast;

llvm::StringRef ast::elemTypeName(ElemType t) {
  switch (t) {
  case ElemType::F32: return "f32";
  case ElemType::I8: return "i8";
  case ElemType::F16: return "f16";
  case ElemType::BF16: return "bf16";
  case ElemType::Bool: return "bool";
  case ElemType::U8: return "u8";
  case ElemType::I32: return "i32";
  case ElemType::I64: return "i64";
  }
  return "?";
}

llvm::StringRef ast::opSpelling(char op) {
  switch (op) {
  case 'l': return "<=";
  case 'g': return ">=";
  case '=': return "==";
  case '!': return "!=";
  case '&': return "&&";
  case '|': return "||";
  case '<': return "<";
  case '>': return ">";
  case '+': return "+";
  case '-': return "-";
  case '*': return "*";
  case '/': return "/";
  }
  return "?";
}

unsigned ast::elemTypeBytes(ElemType t) {
  switch (t) {
  case ElemType::F32: return 4;
  case ElemType::I8: return 1;
  case ElemType::F16:
  case ElemType::BF16: return 2;
  case ElemType::Bool: return 1;
  case ElemType::U8: return 1;
  case ElemType::I32: return 4;
  case ElemType::I64: return 8;
  }
  return 4;
}

namespace {

/// Thrown-free error signalling: parse functions return nullptr / false after
/// reporting; `fatal` is set when continuing is pointless (depth limit).
class Parser {
public:
  Parser(DiagEngine &diags, unsigned bufferId)
      : diags(diags), lex(diags, bufferId),
        bufferEnd(diags.getSourceMgr().getMemoryBuffer(bufferId)->getBufferEnd()) {
    advance();
  }

  Module parseModule();

private:
  // Token handling.
  void advance() {
    prevEnd = tok.text.end();
    tok = lex.next();
    if (tok.is(Token::Error))
      lastLexErrorLine = diags.lineAndColumn(tok.loc()).first;
  }
  /// Skips stray malformed tokens (already reported) between operands.
  void skipErrorTokens() {
    while (tok.is(Token::Error))
      advance();
  }
  bool consumeIf(Token::Kind k) {
    if (!tok.is(k))
      return false;
    advance();
    return true;
  }
  bool expect(Token::Kind k, llvm::StringRef context) {
    if (consumeIf(k))
      return true;
    errorAtToken("expected " + tokenKindSpelling(k).str() + " " + context.str());
    return false;
  }
  void errorAtToken(const std::string &msg) {
    // A malformed token was already reported by the lexer: one error per
    // line is enough.
    if (tok.is(Token::Error) || (lastLexErrorLine && diags.lineAndColumn(tok.loc()).first == lastLexErrorLine))
      return;
    if (tok.is(Token::Eof))
      diags.error(tok.loc(), msg + ", found end of file");
    else
      diags.error(tok.loc(), msg + ", found '" + tok.text.take_front(40).str() +
                                 (tok.text.size() > 40 ? "..." : "") + "'");
  }
  bool atItemStart() const {
    switch (tok.kind) {
    case Token::KwIn:
    case Token::KwOut:
    case Token::KwParam:
    case Token::KwStage:
    case Token::KwLet:
    case Token::KwKernel:
    case Token::RBrace:
    case Token::Eof:
      return true;
    default:
      return false;
    }
  }
  /// True when the current identifier is followed by '=' (looks at the raw
  /// text, so no token is lexed twice).
  bool identFollowedByEqual() const {
    if (!tok.is(Token::Ident))
      return false;
    const char *p = tok.text.end();
    const char *end = bufferEnd;
    while (p != end) {
      if (*p == '#') {
        while (p != end && *p != '\n')
          ++p;
      } else if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
        ++p;
      } else {
        break;
      }
    }
    return p != end && *p == '=';
  }
  /// Error recovery: skip to the start of the next item: a keyword, the closing
  /// brace, or `name =` outside parentheses.
  void recover() {
    int depth = 0;
    bool first = true;
    while (!tok.is(Token::Eof)) {
      if (depth == 0 && (atItemStart() || (!first && identFollowedByEqual())))
        return;
      first = false;
      if (tok.is(Token::LParen) || tok.is(Token::LBracket))
        ++depth;
      else if ((tok.is(Token::RParen) || tok.is(Token::RBracket)) && depth > 0)
        --depth;
      advance();
    }
  }

  /// A declared name. A keyword in a name position is reported and taken as
  /// the name, so recovery does not restart at it.
  bool parseName(std::string &name, llvm::SMLoc &loc, llvm::StringRef what) {
    if (tok.is(Token::Ident)) {
      name = tok.text.str();
      loc = tok.loc();
      advance();
      return true;
    }
    bool keyword = tok.is(Token::KwKernel) || tok.is(Token::KwIn) || tok.is(Token::KwOut) ||
                   tok.is(Token::KwParam) || tok.is(Token::KwStage) || tok.is(Token::KwLet) ||
                   tok.is(Token::KwBroadcast);
    if (keyword) {
      diags.error(tok.loc(), "'" + tok.text + "' is a keyword and cannot be used as " + what);
      name = tok.text.str();
      loc = tok.loc();
      advance();
      return true;
    }
    errorAtToken("expected " + what.str());
    return false;
  }

  std::optional<Kernel> parseKernel();
  bool parseItem(Kernel &k);
  std::optional<TypeRef> parseType();
  bool parseStage(StageDecl &stage);

  ExprPtr parseBinaryLevel(ExprPtr (Parser::*operand)(), Token::Kind op1, Token::Kind op2);
  ExprPtr parseExpr();
  ExprPtr parseAnd();
  ExprPtr parseComparison();
  ExprPtr parseSum();
  ExprPtr parseTerm();
  ExprPtr parseUnary();
  ExprPtr parsePostfix();
  /// Returns false (and reports) when `depth` exceeds the limit.
  bool checkDepth(const Expr &e);

  DiagEngine &diags;
  Lexer lex;
  const char *bufferEnd;
  Token tok;
  const char *prevEnd = nullptr;
  unsigned recursion = 0;
  unsigned lastLexErrorLine = 0;
  bool fatal = false;
};

} // namespace

Module Parser::parseModule() {
  Module m;
  if (tok.is(Token::Eof)) {
    diags.error(tok.loc(), "expected at least one 'kernel' definition; the file is empty");
    return m;
  }
  while (!tok.is(Token::Eof) && !fatal && !diags.tooManyErrors()) {
    if (!tok.is(Token::KwKernel)) {
      errorAtToken("expected 'kernel'");
      // Skip to the next 'kernel' keyword.
      while (!tok.is(Token::Eof) && !tok.is(Token::KwKernel))
        advance();
      continue;
    }
    if (auto k = parseKernel())
      m.kernels.push_back(std::move(*k));
  }
  return m;
}

std::optional<Kernel> Parser::parseKernel() {
  Kernel k;
  k.loc = tok.loc();
  advance(); // 'kernel'
  if (tok.is(Token::LBrace)) {
    diags.error(tok.loc(), "expected a kernel name after 'kernel'");
  } else if (!parseName(k.name, k.loc, "a kernel name")) {
    recover();
    if (!tok.is(Token::LBrace))
      return std::nullopt;
  }
  llvm::SMLoc open = tok.loc();
  if (!expect(Token::LBrace, "to open the kernel body"))
    return std::nullopt;
  while (!tok.is(Token::RBrace) && !fatal && !diags.tooManyErrors()) {
    if (tok.is(Token::Eof)) {
      diags.error(tok.loc(), "unterminated kernel body: expected '}'");
      diags.note(open, "the body opened here");
      return k;
    }
    if (tok.is(Token::KwKernel)) {
      diags.error(tok.loc(), "expected '}' to close kernel '" + k.name + "' before the next kernel");
      diags.note(open, "the body opened here");
      return k;
    }
    if (!parseItem(k))
      recover();
  }
  consumeIf(Token::RBrace);
  return k;
}

std::optional<TypeRef> Parser::parseType() {
  TypeRef t;
  t.loc = tok.loc();
  if (!tok.is(Token::Ident)) {
    errorAtToken("expected a type (f32, bf16, f16, i8, u8, bool, i32 or i64)");
    return std::nullopt;
  }
  auto elem = llvm::StringSwitch<std::optional<ElemType>>(tok.text)
                  .Case("f32", ElemType::F32)
                  .Case("i8", ElemType::I8)
                  .Case("f16", ElemType::F16)
                  .Case("bf16", ElemType::BF16)
                  .Case("u8", ElemType::U8)
                  .Case("i32", ElemType::I32)
                  .Case("i64", ElemType::I64)
                  .Case("bool", ElemType::Bool)
                  .Default(std::nullopt);
  if (!elem) {
    diags.error(tok.loc(), "unknown type '" + tok.text.take_front(40) + "' (expected f32, bf16, f16, i8, u8, bool, i32 or i64)");
    return std::nullopt;
  }
  t.elem = *elem;
  advance();
  if (consumeIf(Token::LBracket)) {
    if (!tok.is(Token::Ident) || tok.text != "N") {
      errorAtToken("expected 'N' (the row width) in a per-element type");
      return std::nullopt;
    }
    advance();
    if (!expect(Token::RBracket, "after 'N'"))
      return std::nullopt;
    t.perElement = true;
  }
  return t;
}

bool Parser::parseItem(Kernel &k) {
  Stmt s{};
  switch (tok.kind) {
  case Token::Semi:
    advance();
    return true;
  case Token::KwIn: {
    advance();
    s.kind = Stmt::Input;
    if (!parseName(s.input.name, s.input.loc, "an input name"))
      return false;
    if (!expect(Token::Colon, "after the input name"))
      return false;
    auto t = parseType();
    if (!t)
      return false;
    s.input.type = *t;
    if (tok.is(Token::KwBroadcast)) {
      s.input.broadcast = true;
      s.input.broadcastLoc = tok.loc();
      advance();
    }
    break;
  }
  case Token::KwOut: {
    advance();
    s.kind = Stmt::Output;
    if (!parseName(s.output.name, s.output.loc, "an output name"))
      return false;
    if (!expect(Token::Colon, "after the output name"))
      return false;
    auto t = parseType();
    if (!t)
      return false;
    s.output.type = *t;
    break;
  }
  case Token::KwParam: {
    advance();
    s.kind = Stmt::Param;
    if (!parseName(s.param.name, s.param.loc, "a parameter name"))
      return false;
    if (!expect(Token::Colon, "after the parameter name"))
      return false;
    auto t = parseType();
    if (!t)
      return false;
    s.param.type = *t;
    // Without `= value` the parameter is a runtime scalar: a launch argument.
    if (!consumeIf(Token::Equal)) {
      if (tok.is(Token::Number) || tok.is(Token::Minus)) {
        errorAtToken("expected '=' before the parameter's value (without one, the parameter is a launch "
                     "argument)");
        return false;
      }
      break;
    }
    s.param.valueLoc = tok.loc();
    bool negative = consumeIf(Token::Minus);
    if (tok.is(Token::Error)) { // a bad number, already reported
      advance();
      break;
    }
    if (!tok.is(Token::Number)) {
      errorAtToken("expected a number as the parameter's value");
      return false;
    }
    s.param.value = negative ? -tok.number : tok.number;
    advance();
    break;
  }
  case Token::KwStage:
    s.kind = Stmt::Stage;
    s.stage.loc = tok.loc();
    advance();
    if (!parseStage(s.stage))
      return false;
    break;
  case Token::KwLet: {
    advance();
    s.kind = Stmt::Let;
    if (!parseName(s.let.name, s.let.loc, "a name"))
      return false;
    if (!expect(Token::Equal, "after the name in 'let'"))
      return false;
    s.let.value = parseExpr();
    if (!s.let.value)
      return false;
    break;
  }
  case Token::Ident: {
    s.kind = Stmt::OutputAssign;
    s.assign.name = tok.text.str();
    s.assign.loc = tok.loc();
    advance();
    if (!tok.is(Token::Equal)) {
      errorAtToken("expected '=' after '" + s.assign.name +
                   "' (an output assignment), or a declaration ('in', 'out', 'param', 'stage', 'let')");
      return false;
    }
    advance();
    s.assign.value = parseExpr();
    if (!s.assign.value)
      return false;
    break;
  }
  case Token::Error: // already reported by the lexer
    advance();
    return true;
  default:
    errorAtToken("expected a declaration ('in', 'out', 'param', 'stage', 'let') or an output "
                 "assignment");
    if (!atItemStart())
      advance();
    return false;
  }
  k.body.push_back(std::move(s));
  return true;
}

bool Parser::parseStage(StageDecl &stage) {
  llvm::SMLoc open = tok.loc();
  if (!expect(Token::LBrace, "after 'stage'"))
    return false;
  while (!tok.is(Token::RBrace)) {
    if (fatal || diags.tooManyErrors())
      return false;
    if (consumeIf(Token::Semi) || consumeIf(Token::Error))
      continue;
    if (tok.is(Token::Eof) || tok.is(Token::KwKernel) ||
        (atItemStart() && !tok.is(Token::RBrace))) {
      diags.error(tok.loc(), "unterminated stage: expected '}'");
      diags.note(open, "the stage opened here");
      return false;
    }
    if (!tok.is(Token::Ident)) {
      errorAtToken("expected a statistic definition 'name = expression' in the stage");
      return false;
    }
    Assign a;
    a.name = tok.text.str();
    a.loc = tok.loc();
    advance();
    if (!expect(Token::Equal, "after the statistic name"))
      return false;
    a.value = parseExpr();
    if (!a.value)
      return false;
    stage.stats.push_back(std::move(a));
  }
  advance(); // '}'
  if (stage.stats.empty()) {
    diags.error(open, "empty stage: a stage defines at least one statistic");
    return false;
  }
  return true;
}

bool Parser::checkDepth(const Expr &e) {
  if (e.depth <= kMaxExprDepth)
    return true;
  diags.error(e.loc, "expression is nested too deeply (more than " + llvm::Twine(kMaxExprDepth) +
                         " levels)");
  fatal = true;
  return false;
}

/// The BinaryExpr code of an operator token (AST.h).
static char binaryOpCode(Token::Kind k) {
  switch (k) {
  case Token::LessEq: return 'l';
  case Token::GreaterEq: return 'g';
  case Token::EqEq: return '=';
  case Token::NotEq: return '!';
  case Token::AndAnd: return '&';
  case Token::OrOr: return '|';
  case Token::Less: return '<';
  case Token::Greater: return '>';
  case Token::Plus: return '+';
  case Token::Minus: return '-';
  case Token::Star: return '*';
  case Token::Slash: return '/';
  default: return '?';
  }
}

/// One left-associative precedence level: operand ((op1 | op2) operand)*.
ExprPtr Parser::parseBinaryLevel(ExprPtr (Parser::*operand)(), Token::Kind op1, Token::Kind op2) {
  ExprPtr lhs = (this->*operand)();
  if (!lhs)
    return nullptr;
  skipErrorTokens();
  while (tok.is(op1) || tok.is(op2)) {
    char op = binaryOpCode(tok.kind);
    llvm::SMLoc loc = tok.loc();
    advance();
    ExprPtr rhs = (this->*operand)();
    if (!rhs)
      return nullptr;
    unsigned depth = 1 + std::max(lhs->depth, rhs->depth);
    lhs = std::make_unique<BinaryExpr>(loc, op, std::move(lhs), std::move(rhs));
    lhs->depth = depth;
    if (!checkDepth(*lhs))
      return nullptr;
    skipErrorTokens();
  }
  return lhs;
}

// Precedence, loosest first (as in C, with one level for every comparison):
// ||, &&, comparisons (non-associative), + -, * /, unary - and !.
ExprPtr Parser::parseExpr() { return parseBinaryLevel(&Parser::parseAnd, Token::OrOr, Token::OrOr); }

ExprPtr Parser::parseAnd() { return parseBinaryLevel(&Parser::parseComparison, Token::AndAnd, Token::AndAnd); }

ExprPtr Parser::parseComparison() {
  ExprPtr lhs = parseSum();
  if (!lhs)
    return nullptr;
  skipErrorTokens();
  if (!(tok.is(Token::Less) || tok.is(Token::LessEq) || tok.is(Token::Greater) || tok.is(Token::GreaterEq) ||
        tok.is(Token::EqEq) || tok.is(Token::NotEq)))
    return lhs;
  char op = binaryOpCode(tok.kind);
  llvm::SMLoc loc = tok.loc();
  advance();
  ExprPtr rhs = parseSum();
  if (!rhs)
    return nullptr;
  skipErrorTokens();
  if (tok.is(Token::Less) || tok.is(Token::LessEq) || tok.is(Token::Greater) || tok.is(Token::GreaterEq) ||
      tok.is(Token::EqEq) || tok.is(Token::NotEq)) {
    errorAtToken("comparisons do not chain: write 'a < b && b < c'");
    return nullptr;
  }
  unsigned depth = 1 + std::max(lhs->depth, rhs->depth);
  auto e = std::make_unique<BinaryExpr>(loc, op, std::move(lhs), std::move(rhs));
  e->depth = depth;
  if (!checkDepth(*e))
    return nullptr;
  return e;
}

ExprPtr Parser::parseSum() { return parseBinaryLevel(&Parser::parseTerm, Token::Plus, Token::Minus); }

ExprPtr Parser::parseTerm() { return parseBinaryLevel(&Parser::parseUnary, Token::Star, Token::Slash); }

namespace {
/// Bounds the parser's own recursion (parentheses, unary minus, call arguments).
struct RecursionGuard {
  unsigned &counter;
  explicit RecursionGuard(unsigned &c) : counter(c) { ++counter; }
  ~RecursionGuard() { --counter; }
};
} // namespace

ExprPtr Parser::parseUnary() {
  RecursionGuard guard(recursion);
  if (recursion > kMaxExprDepth) {
    diags.error(tok.loc(), "expression is nested too deeply (more than " +
                               llvm::Twine(kMaxExprDepth) + " levels)");
    fatal = true;
    return nullptr;
  }
  if (tok.is(Token::Minus) || tok.is(Token::Bang)) {
    llvm::SMLoc loc = tok.loc();
    char op = tok.is(Token::Bang) ? '!' : '-';
    advance();
    ExprPtr operand = parseUnary();
    if (!operand)
      return nullptr;
    unsigned depth = operand->depth + 1;
    auto e = std::make_unique<UnaryExpr>(loc, op, std::move(operand));
    e->depth = depth;
    if (!checkDepth(*e))
      return nullptr;
    return e;
  }
  return parsePostfix();
}

ExprPtr Parser::parsePostfix() {
  llvm::SMLoc loc = tok.loc();
  switch (tok.kind) {
  case Token::Number: {
    auto e = std::make_unique<NumberExpr>(loc, tok.number, tok.text.str());
    advance();
    return e;
  }
  case Token::Error: {
    // A malformed number or character, already reported: stand in a 0 so the
    // rest of the statement parses without a second error.
    auto e = std::make_unique<NumberExpr>(loc, 0.0, tok.text.str());
    advance();
    return e;
  }
  case Token::LParen: {
    advance();
    ExprPtr inner = parseExpr();
    if (!inner)
      return nullptr;
    if (!tok.is(Token::RParen)) {
      errorAtToken("expected ')' to close the parenthesis");
      diags.note(loc, "the parenthesis opened here");
      return nullptr;
    }
    advance();
    // Parentheses count towards nesting so that ((((x)))) is bounded too.
    inner->depth += 1;
    if (!checkDepth(*inner))
      return nullptr;
    return inner;
  }
  case Token::Ident: {
    std::string name = tok.text.str();
    advance();
    if (tok.is(Token::LParen)) {
      llvm::SMLoc open = tok.loc();
      advance();
      std::vector<ExprPtr> args;
      unsigned depth = 1;
      if (!tok.is(Token::RParen)) {
        for (;;) {
          ExprPtr a = parseExpr();
          if (!a)
            return nullptr;
          depth = std::max(depth, a->depth + 1);
          args.push_back(std::move(a));
          if (consumeIf(Token::Comma))
            continue;
          if (tok.is(Token::RParen))
            break;
          errorAtToken("expected ',' or ')' in the argument list of '" + name + "'");
          diags.note(open, "the argument list opened here");
          return nullptr;
        }
      }
      advance(); // ')'
      auto e = std::make_unique<CallExpr>(loc, name, std::move(args));
      e->depth = depth;
      if (!checkDepth(*e))
        return nullptr;
      return e;
    }
    if (tok.is(Token::LBracket)) {
      // Neighbour access: x[i], x[i+k], x[i-k].
      advance();
      if (!tok.is(Token::Ident) || tok.text != "i") {
        errorAtToken("expected the element index 'i' in '" + name +
                     "[...]' (neighbour access is written x[i-1], x[i+2])");
        return nullptr;
      }
      advance();
      long long offset = 0;
      if (tok.is(Token::Plus) || tok.is(Token::Minus)) {
        bool neg = tok.is(Token::Minus);
        advance();
        if (!tok.is(Token::Number) || tok.text.find_first_of(".eE") != llvm::StringRef::npos ||
            tok.number > 1e9) {
          errorAtToken("expected a whole-number offset after 'i'");
          return nullptr;
        }
        offset = static_cast<long long>(tok.number);
        if (neg)
          offset = -offset;
        advance();
      }
      if (!tok.is(Token::RBracket)) {
        errorAtToken("expected ']' after the index");
        return nullptr;
      }
      advance();
      return std::make_unique<IndexExpr>(loc, name, loc, offset);
    }
    if (name == "inf") // the literal; -inf is its negation
      return std::make_unique<NumberExpr>(loc, std::numeric_limits<double>::infinity(), name);
    return std::make_unique<NameExpr>(loc, name);
  }
  default:
    errorAtToken("expected an expression");
    return nullptr;
  }
}

Module credit::parseModule(DiagEngine &diags, unsigned bufferId) {
  Parser p(diags, bufferId);
  return p.parseModule();
}
