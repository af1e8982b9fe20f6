//===- LetNames.cpp - the source names of row- and element-level lets -----===//
#include "LetNames.h"

#include "credit/Dialect/Credit/IR/CreditDialect.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace ::credit::cuda;

static std::vector<std::string> splitLines(llvm::StringRef text) {
  llvm::SmallVector<llvm::StringRef> parts;
  text.split(parts, '\n');
  std::vector<std::string> lines;
  for (llvm::StringRef p : parts)
    lines.push_back(p.str());
  return lines;
}

LetNames::LetNames(llvm::StringRef file, llvm::StringRef text) {
  if (!file.empty() && !text.empty())
    files[file] = splitLines(text);
}

std::optional<llvm::StringRef> LetNames::line(llvm::StringRef file, unsigned lineNo) {
  // Only the text given: the file on disk may have changed since it was
  // compiled, or be a stream that cannot be read twice.
  auto it = files.find(file);
  if (it == files.end())
    return std::nullopt;
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
  if (n == 0 || !s.drop_front(n).ltrim().starts_with("="))
    return std::nullopt;
  // The root of the let's expression: no user on the same line.
  for (Operation *user : op->getResult(0).getUsers()) {
    auto userWhere = fileLine(user->getLoc());
    if (userWhere && *userWhere == *where && !llvm::isa<mlir::credit::YieldOp>(user))
      return std::nullopt;
  }
  return s.take_front(n).str();
}
