//===- Lexer.cpp ----------------------------------------------------------===//
#include "credit/Lang/Lexer.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <string>

using namespace credit;

llvm::StringRef credit::tokenKindSpelling(Token::Kind k) {
  switch (k) {
  case Token::Eof: return "end of file";
  case Token::Error: return "invalid token";
  case Token::Ident: return "identifier";
  case Token::Number: return "number";
  case Token::KwKernel: return "'kernel'";
  case Token::KwIn: return "'in'";
  case Token::KwOut: return "'out'";
  case Token::KwParam: return "'param'";
  case Token::KwStage: return "'stage'";
  case Token::KwLet: return "'let'";
  case Token::KwBroadcast: return "'broadcast'";
  case Token::LBrace: return "'{'";
  case Token::RBrace: return "'}'";
  case Token::LParen: return "'('";
  case Token::RParen: return "')'";
  case Token::LBracket: return "'['";
  case Token::RBracket: return "']'";
  case Token::Comma: return "','";
  case Token::Colon: return "':'";
  case Token::Semi: return "';'";
  case Token::Equal: return "'='";
  case Token::Plus: return "'+'";
  case Token::Minus: return "'-'";
  case Token::Star: return "'*'";
  case Token::Slash: return "'/'";
  case Token::Less: return "'<'";
  case Token::LessEq: return "'<='";
  case Token::Greater: return "'>'";
  case Token::GreaterEq: return "'>='";
  case Token::EqEq: return "'=='";
  case Token::NotEq: return "'!='";
  case Token::AndAnd: return "'&&'";
  case Token::OrOr: return "'||'";
  case Token::Bang: return "'!'";
  }
  return "token";
}

Lexer::Lexer(DiagEngine &diags, unsigned bufferId) : diags(diags) {
  llvm::StringRef buf = diags.getSourceMgr().getMemoryBuffer(bufferId)->getBuffer();
  cur = buf.begin();
  end = buf.end();
}

static bool isIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool isDigit(char c) { return c >= '0' && c <= '9'; }
static bool isIdentChar(char c) { return isIdentStart(c) || isDigit(c); }

Token Lexer::next() {
  for (;;) {
    // Skip white space and comments.
    while (cur != end) {
      char c = *cur;
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        ++cur;
      } else if (c == '#') {
        while (cur != end && *cur != '\n')
          ++cur;
      } else {
        break;
      }
    }
    if (cur == end) {
      Token t;
      t.kind = Token::Eof;
      t.text = llvm::StringRef(end, 0);
      return t;
    }
    const char *start = cur;
    char c = *cur++;
    if (isIdentStart(c)) {
      while (cur != end && isIdentChar(*cur))
        ++cur;
      llvm::StringRef word(start, cur - start);
      Token::Kind k = llvm::StringSwitch<Token::Kind>(word)
                          .Case("kernel", Token::KwKernel)
                          .Case("in", Token::KwIn)
                          .Case("out", Token::KwOut)
                          .Case("param", Token::KwParam)
                          .Case("stage", Token::KwStage)
                          .Case("let", Token::KwLet)
                          .Case("broadcast", Token::KwBroadcast)
                          .Default(Token::Ident);
      return make(k, start);
    }
    if (isDigit(c) || (c == '.' && cur != end && isDigit(*cur)))
      return lexNumber(start);
    switch (c) {
    case '{': return make(Token::LBrace, start);
    case '}': return make(Token::RBrace, start);
    case '(': return make(Token::LParen, start);
    case ')': return make(Token::RParen, start);
    case '[': return make(Token::LBracket, start);
    case ']': return make(Token::RBracket, start);
    case ',': return make(Token::Comma, start);
    case ':': return make(Token::Colon, start);
    case ';': return make(Token::Semi, start);
    case '=':
      if (cur != end && *cur == '=') {
        ++cur;
        return make(Token::EqEq, start);
      }
      return make(Token::Equal, start);
    case '<':
    case '>': {
      const bool eq = cur != end && *cur == '=';
      if (eq)
        ++cur;
      return make(c == '<' ? (eq ? Token::LessEq : Token::Less) : (eq ? Token::GreaterEq : Token::Greater),
                  start);
    }
    case '!':
      if (cur != end && *cur == '=') {
        ++cur;
        return make(Token::NotEq, start);
      }
      return make(Token::Bang, start);
    case '&':
    case '|':
      if (cur != end && *cur == c) {
        ++cur;
        return make(c == '&' ? Token::AndAnd : Token::OrOr, start);
      }
      break; // a single '&' or '|' is no operator
    case '+': return make(Token::Plus, start);
    case '-': return make(Token::Minus, start);
    case '*': return make(Token::Star, start);
    case '/': return make(Token::Slash, start);
    default:
      break;
    }
    unsigned char u = static_cast<unsigned char>(c);
    std::string shown = (u >= 0x21 && u < 0x7f)
                            ? std::string("'") + c + "'"
                            : llvm::formatv("byte 0x{0:x-2}", static_cast<unsigned>(u)).str();
    diags.error(llvm::SMLoc::getFromPointer(start), "invalid character " + shown + " in source");
    // Skip the rest of a run of invalid bytes so one binary blob gives one error.
    while (cur != end) {
      unsigned char n = static_cast<unsigned char>(*cur);
      bool printable = n == ' ' || n == '\t' || n == '\n' || n == '\r' || (n >= 0x21 && n < 0x7f);
      if (printable)
        break;
      ++cur;
    }
    return make(Token::Error, start);
  }
}

Token Lexer::lexNumber(const char *start) {
  // Take the maximal run that could belong to a number so that "1.2.3" and
  // "1e" are reported as one bad number, not as two tokens.
  while (cur != end) {
    char c = *cur;
    if (isIdentChar(c) || c == '.') {
      ++cur;
    } else if ((c == '+' || c == '-') && (cur[-1] == 'e' || cur[-1] == 'E')) {
      // An exponent sign, only right after the e/E of a literal.
      ++cur;
    } else {
      break;
    }
  }
  llvm::StringRef text(start, cur - start);
  // Grammar: digits [ '.' digits? ] [ (e|E) [+-] digits ]  |  '.' digits [exp]
  size_t i = 0, n = text.size();
  size_t intDigits = 0, fracDigits = 0;
  while (i < n && isDigit(text[i]))
    ++i, ++intDigits;
  if (i < n && text[i] == '.') {
    ++i;
    while (i < n && isDigit(text[i]))
      ++i, ++fracDigits;
  }
  bool ok = intDigits + fracDigits > 0;
  if (ok && i < n && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < n && (text[i] == '+' || text[i] == '-'))
      ++i;
    size_t expDigits = 0;
    while (i < n && isDigit(text[i]))
      ++i, ++expDigits;
    ok = expDigits > 0;
  }
  ok = ok && i == n;
  Token t = make(Token::Number, start);
  if (!ok) {
    diags.error(t.loc(), "invalid number '" + text.take_front(64) +
                             (text.size() > 64 ? "..." : "") +
                             "' (expected digits, an optional fraction and an optional exponent "
                             "such as 1e-5)");
    t.kind = Token::Error;
    return t;
  }
  std::string copy = text.str();
  errno = 0;
  double v = std::strtod(copy.c_str(), nullptr);
  if (errno == ERANGE && std::fabs(v) > 1.0) {
    diags.error(t.loc(), "number '" + text.take_front(64) + "' is too large for f32");
    t.kind = Token::Error;
    return t;
  }
  if (std::fabs(v) > FLT_MAX) {
    diags.error(t.loc(), "number '" + text.take_front(64) + "' is too large for f32 (largest is " +
                             llvm::formatv("{0:e}", FLT_MAX).str() + ")");
    t.kind = Token::Error;
    return t;
  }
  // (In float, FLT_TRUE_MIN / 2 is itself 0: compare the rounded value.)
  if (v != 0.0 && static_cast<float>(v) == 0.0f) {
    diags.error(t.loc(), "number '" + text.take_front(64) + "' underflows to zero in f32");
    t.kind = Token::Error;
    return t;
  }
  t.number = v;
  return t;
}
