//===- Standalone.cpp - one self-contained generated file -----------------===//
#include "Standalone.h"

#include "credit/runtime/Library.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

namespace credit::cuda {
namespace {

/// The embedded text of a library header (the device library's or a launch
/// header of the host section).
std::optional<llvm::StringRef> embeddedHeader(llvm::StringRef path) {
  for (auto list : {&::credit::deviceLibraryHeaders, &::credit::hostLibraryHeaders}) {
    std::size_t count = 0;
    const ::credit::EmbeddedHeader *headers = (*list)(&count);
    for (std::size_t i = 0; i < count; ++i)
      if (path == headers[i].name)
        return llvm::StringRef(headers[i].text);
  }
  return std::nullopt;
}

/// The header named by an `#include <...>` or `#include "..."` line, resolved
/// against the including header's folder when it is not a credit/ path.
std::optional<std::string> includedPath(llvm::StringRef line, llvm::StringRef includer) {
  llvm::StringRef s = line.ltrim();
  if (!s.consume_front("#"))
    return std::nullopt;
  s = s.ltrim();
  if (!s.consume_front("include"))
    return std::nullopt;
  s = s.ltrim();
  if (s.empty() || (s[0] != '<' && s[0] != '"'))
    return std::nullopt;
  char close = s[0] == '<' ? '>' : '"';
  s = s.drop_front();
  llvm::StringRef path = s.take_until([&](char c) { return c == close; });
  if (path.starts_with("credit/"))
    return path.str();
  if (close == '"' && !includer.empty()) {
    llvm::SmallString<128> p(llvm::sys::path::parent_path(includer, llvm::sys::path::Style::posix));
    llvm::sys::path::append(p, llvm::sys::path::Style::posix, path);
    return std::string(p.str());
  }
  return std::nullopt;
}

struct Inliner {
  llvm::StringSet<> seen;
  std::string missing;

  bool run(llvm::StringRef text, llvm::StringRef self, llvm::raw_ostream &os) {
    llvm::SmallVector<llvm::StringRef> lines;
    text.split(lines, '\n');
    for (size_t i = 0; i < lines.size(); ++i) {
      llvm::StringRef line = lines[i];
      std::optional<std::string> path = includedPath(line, self);
      std::optional<llvm::StringRef> header = path ? embeddedHeader(*path) : std::nullopt;
      if (path && !header && llvm::StringRef(*path).starts_with("credit/")) {
        missing = *path;
        return false;
      }
      if (!header) {
        os << line << (i + 1 < lines.size() ? "\n" : "");
        continue;
      }
      if (!seen.insert(*path).second)
        continue; // already inlined (every header is guarded anyway)
      os << "// ===== " << *path << " =====\n";
      if (!run(*header, *path, os))
        return false;
      if (!header->ends_with("\n"))
        os << "\n";
      os << "// ===== end " << *path << " =====\n";
    }
    return true;
  }
};

} // namespace

mlir::LogicalResult inlineLibraryHeaders(std::string &text, mlir::credit::KernelOp kernel) {
  std::string out;
  llvm::raw_string_ostream os(out);
  Inliner inliner;
  if (!inliner.run(text, "", os))
    return kernel.emitError("--standalone: no embedded text of <") << inliner.missing << ">";
  text = std::move(out);
  return mlir::success();
}

} // namespace credit::cuda
