//===- Diagnostics.h - Located diagnostics for .credit sources ---*- C++ -*-===//
//
// LLVM-style diagnostics (`file:line:col: error: msg`, the source line and a
// caret) on top of llvm::SourceMgr. Adds an error limit (binary input would
// otherwise print thousands of errors) and trims very long source lines to a
// window around the caret so a 1 MB line still gives a readable message.
//
//===----------------------------------------------------------------------===//
#ifndef CREDIT_LANG_DIAGNOSTICS_H
#define CREDIT_LANG_DIAGNOSTICS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace credit {

class DiagEngine {
public:
  explicit DiagEngine(llvm::SourceMgr &sm, llvm::raw_ostream &os = llvm::errs(),
                      unsigned errorLimit = 20)
      : sm(sm), os(os), errorLimit(errorLimit) {}

  void error(llvm::SMLoc loc, const llvm::Twine &msg);
  void warning(llvm::SMLoc loc, const llvm::Twine &msg);
  void note(llvm::SMLoc loc, const llvm::Twine &msg);

  unsigned numErrors() const { return errors; }
  bool hadError() const { return errors != 0; }
  /// True once the error limit has been reached; callers stop early.
  bool tooManyErrors() const { return errorLimit && errors >= errorLimit; }

  llvm::SourceMgr &getSourceMgr() { return sm; }
  /// "file:line:col" for a location (used by the report's `location` key).
  std::string formatLocation(llvm::SMLoc loc) const;
  /// Line and column (1-based) of a location.
  std::pair<unsigned, unsigned> lineAndColumn(llvm::SMLoc loc) const;
  llvm::StringRef bufferName(llvm::SMLoc loc) const;

private:
  void emit(llvm::SMLoc loc, llvm::SourceMgr::DiagKind kind, const llvm::Twine &msg);

  llvm::SourceMgr &sm;
  llvm::raw_ostream &os;
  unsigned errorLimit;
  unsigned errors = 0;
  bool limitAnnounced = false;
};

} // namespace credit

#endif // CREDIT_LANG_DIAGNOSTICS_H
