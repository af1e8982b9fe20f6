//===- Lexer.h - Tokens of the .credit language ------------------*- C++ -*-===//
#ifndef CREDIT_LANG_LEXER_H
#define CREDIT_LANG_LEXER_H

#include "credit/Lang/Diagnostics.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

namespace credit {

struct Token {
  enum Kind {
    Eof,
    Error, // a malformed token; the lexer has already reported it
    Ident,
    Number,
    // keywords
    KwKernel,
    KwIn,
    KwOut,
    KwParam,
    KwStage,
    KwLet,
    KwBroadcast,
    // punctuation
    LBrace,
    RBrace,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Comma,
    Colon,
    Semi,
    Equal,
    Plus,
    Minus,
    Star,
    Slash,
    // comparisons and logic
    Less,
    LessEq,
    Greater,
    GreaterEq,
    EqEq,
    NotEq,
    AndAnd,
    OrOr,
    Bang,
  };
  Kind kind = Eof;
  llvm::StringRef text;
  double number = 0; // for Number

  llvm::SMLoc loc() const { return llvm::SMLoc::getFromPointer(text.data()); }
  bool is(Kind k) const { return kind == k; }
};

llvm::StringRef tokenKindSpelling(Token::Kind k);

/// Hand-written lexer over one SourceMgr buffer. `#` starts a comment to the end
/// of the line; newlines are ordinary white space.
class Lexer {
public:
  Lexer(DiagEngine &diags, unsigned bufferId);
  Token next();

private:
  Token lexNumber(const char *start);
  Token make(Token::Kind k, const char *start) {
    Token t;
    t.kind = k;
    t.text = llvm::StringRef(start, cur - start);
    return t;
  }

  DiagEngine &diags;
  const char *cur;
  const char *end;
};

} // namespace credit

#endif // CREDIT_LANG_LEXER_H
