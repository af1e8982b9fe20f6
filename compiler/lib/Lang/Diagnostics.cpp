//===- Diagnostics.cpp ----------------------------------------------------===//
#include "credit/Lang/Diagnostics.h"

#include "llvm/ADT/SmallString.h"

using namespace credit;

namespace {
// Longest source line we echo; longer lines are cut to a window around the caret.
constexpr size_t kMaxEchoedLine = 160;

// Printable copy of a source line: control bytes and non-ASCII bytes become '?',
// so binary input cannot corrupt the terminal.
std::string sanitizeLine(llvm::StringRef line) {
  std::string out;
  out.reserve(line.size());
  for (char c : line) {
    unsigned char u = static_cast<unsigned char>(c);
    out.push_back(c == '\t' ? ' ' : (u < 0x20 || u >= 0x7f) ? '?' : c);
  }
  return out;
}
} // namespace

std::pair<unsigned, unsigned> DiagEngine::lineAndColumn(llvm::SMLoc loc) const {
  if (!loc.isValid())
    return {0, 0};
  return sm.getLineAndColumn(loc);
}

llvm::StringRef DiagEngine::bufferName(llvm::SMLoc loc) const {
  unsigned id = loc.isValid() ? sm.FindBufferContainingLoc(loc) : sm.getMainFileID();
  if (!id)
    id = sm.getMainFileID();
  return sm.getMemoryBuffer(id)->getBufferIdentifier();
}

std::string DiagEngine::formatLocation(llvm::SMLoc loc) const {
  auto [line, col] = lineAndColumn(loc);
  return (bufferName(loc) + ":" + llvm::Twine(line) + ":" + llvm::Twine(col)).str();
}

void DiagEngine::emit(llvm::SMLoc loc, llvm::SourceMgr::DiagKind kind,
                      const llvm::Twine &msg) {
  if (!loc.isValid()) {
    llvm::SMDiagnostic diag(bufferName(loc), kind, msg.str());
    diag.print(nullptr, os);
    return;
  }
  unsigned id = sm.FindBufferContainingLoc(loc);
  llvm::StringRef buf = sm.getMemoryBuffer(id)->getBuffer();
  const char *p = loc.getPointer();
  const char *lineStart = p;
  while (lineStart != buf.begin() && lineStart[-1] != '\n' && lineStart[-1] != '\r')
    --lineStart;
  const char *lineEnd = p;
  while (lineEnd != buf.end() && *lineEnd != '\n' && *lineEnd != '\r')
    ++lineEnd;
  auto [line, col] = sm.getLineAndColumn(loc, id);
  size_t caret = static_cast<size_t>(p - lineStart);
  llvm::StringRef lineText(lineStart, lineEnd - lineStart);
  // Trim long lines: keep a window around the caret, marked with "...".
  std::string shown;
  size_t caretCol = caret;
  if (lineText.size() > kMaxEchoedLine) {
    size_t begin = caret > kMaxEchoedLine / 2 ? caret - kMaxEchoedLine / 2 : 0;
    size_t end = std::min(lineText.size(), begin + kMaxEchoedLine);
    shown = (begin ? "..." : "") + sanitizeLine(lineText.slice(begin, end)) +
            (end < lineText.size() ? "..." : "");
    caretCol = caret - begin + (begin ? 3 : 0);
  } else {
    shown = sanitizeLine(lineText);
  }
  // Print header with the real column, then the (possibly trimmed) line and caret.
  os << bufferName(loc) << ":" << line << ":" << col << ": ";
  // Colours only on a terminal, like clang.
  bool color = os.has_colors();
  auto label = [&](llvm::raw_ostream::Colors c, const char *text) {
    if (color)
      os.changeColor(c, true);
    os << text;
    if (color)
      os.resetColor();
  };
  switch (kind) {
  case llvm::SourceMgr::DK_Error: label(llvm::raw_ostream::RED, "error: "); break;
  case llvm::SourceMgr::DK_Warning: label(llvm::raw_ostream::MAGENTA, "warning: "); break;
  case llvm::SourceMgr::DK_Note: label(llvm::raw_ostream::BLACK, "note: "); break;
  case llvm::SourceMgr::DK_Remark: label(llvm::raw_ostream::BLUE, "remark: "); break;
  }
  os << msg << "\n" << shown << "\n";
  os.indent(static_cast<unsigned>(caretCol)) << "^\n";
}

void DiagEngine::error(llvm::SMLoc loc, const llvm::Twine &msg) {
  if (tooManyErrors()) {
    if (!limitAnnounced) {
      limitAnnounced = true;
      os << "error: too many errors emitted, stopping now\n";
    }
    return;
  }
  ++errors;
  emit(loc, llvm::SourceMgr::DK_Error, msg);
  if (tooManyErrors() && !limitAnnounced) {
    limitAnnounced = true;
    os << "error: too many errors emitted, stopping now\n";
  }
}

void DiagEngine::warning(llvm::SMLoc loc, const llvm::Twine &msg) {
  emit(loc, llvm::SourceMgr::DK_Warning, msg);
}

void DiagEngine::note(llvm::SMLoc loc, const llvm::Twine &msg) {
  if (tooManyErrors() && limitAnnounced)
    return;
  emit(loc, llvm::SourceMgr::DK_Note, msg);
}
