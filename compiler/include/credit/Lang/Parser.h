//===- Parser.h - Recursive-descent parser for .credit -----------*- C++ -*-===//
//
// Grammar (docs/dsl.md is the reference):
//
//   module     ::= kernel*
//   kernel     ::= 'kernel' ident '{' item* '}'
//   item       ::= 'in' ident ':' type ['broadcast']
//                | 'param' ident ':' type '=' ['-'] number
//                | 'out' ident ':' type
//                | 'stage' '{' (ident '=' expr [';'])* '}'
//                | 'let' ident '=' expr
//                | ident '=' expr
//                | ';'
//   type       ::= ident ['[' 'N' ']']
//   expr       ::= term (('+' | '-') term)*
//   term       ::= unary (('*' | '/') unary)*
//   unary      ::= '-' unary | postfix
//   postfix    ::= number | ident | ident '(' [expr (',' expr)*] ')'
//                | ident '[' 'i' [('+' | '-') integer] ']' | '(' expr ')'
//
// Errors are reported through DiagEngine; the parser recovers at the next item
// so one run reports several errors. Expression nesting is bounded
// (kMaxExprDepth) so adversarial input cannot overflow the stack.
//
//===----------------------------------------------------------------------===//
#ifndef CREDIT_LANG_PARSER_H
#define CREDIT_LANG_PARSER_H

#include "credit/Lang/AST.h"
#include "credit/Lang/Diagnostics.h"

namespace credit {

/// Deepest expression tree accepted (parenthesised or not, lets expanded).
constexpr unsigned kMaxExprDepth = 256;

/// Parses the buffer `bufferId`. Returns the module; check diags.hadError().
ast::Module parseModule(DiagEngine &diags, unsigned bufferId);

} // namespace credit

#endif // CREDIT_LANG_PARSER_H
