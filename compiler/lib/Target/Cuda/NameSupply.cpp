//===- NameSupply.cpp - C++ identifiers of the generated code -------------===//
#include "NameSupply.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace ::credit::cuda;

bool NameSupply::isKeyword(llvm::StringRef n) {
  // C++20 [lex.key] and [lex.digraph], and the C keywords C++ lacks.
  return llvm::StringSwitch<bool>(n)
      .Cases("alignas", "alignof", "asm", "auto", "bool", "break", "case", "catch", true)
      .Cases("char", "char8_t", "char16_t", "char32_t", "class", "concept", "const", true)
      .Cases("consteval", "constexpr", "constinit", "const_cast", "continue", "co_await", true)
      .Cases("co_return", "co_yield", "decltype", "default", "delete", "do", "double", true)
      .Cases("dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", true)
      .Cases("float", "for", "friend", "goto", "if", "inline", "int", "long", "mutable", true)
      .Cases("namespace", "new", "noexcept", "nullptr", "operator", "private", "protected", true)
      .Cases("public", "register", "reinterpret_cast", "requires", "return", "short", true)
      .Cases("signed", "sizeof", "static", "static_assert", "static_cast", "struct", true)
      .Cases("switch", "template", "this", "thread_local", "throw", "true", "try", true)
      .Cases("typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", true)
      .Cases("void", "volatile", "wchar_t", "while", true)
      .Cases("and", "and_eq", "bitand", "bitor", "compl", "not", "not_eq", "or", "or_eq", true)
      .Cases("xor", "xor_eq", "restrict", true)
      .Default(false);
}

/// Object-like macros with lower-case names: the C library's (errno,
/// math_errhandling, stdin/stdout/stderr, complex, noreturn, ...) and the GNU
/// dialects' system names (linux, unix, i386).
static bool isLowerCaseMacro(llvm::StringRef n) {
  return llvm::StringSwitch<bool>(n)
      .Cases("errno", "math_errhandling", "linux", "unix", "i386", true)
      .Cases("stdin", "stdout", "stderr", "complex", "imaginary", "noreturn", true)
      .Default(false);
}

/// Prefixes a library owns: the device library (`credit`), the CUDA runtime
/// and driver APIs (`cuda...`, `cuXxx`), NVIDIA's intrinsics (`nvXxx`).
static bool isLibraryPrefix(llvm::StringRef n) {
  auto upperAfter = [&](llvm::StringRef p) {
    return n.starts_with(p) && n.size() > p.size() && llvm::isUpper(n[p.size()]);
  };
  return n.starts_with("credit") || n.starts_with("cuda") || upperAfter("cu") || upperAfter("nv");
}

bool NameSupply::isPlain(llvm::StringRef n) {
  if (n.empty() || !llvm::isLower(n[0]) || n.ends_with("_") || n.contains("__"))
    return false;
  for (char c : n)
    if (!(llvm::isAlnum(c) || c == '_'))
      return false;
  return !isKeyword(n) && !isLowerCaseMacro(n) && !isLibraryPrefix(n);
}

bool NameSupply::isTaken(llvm::StringRef n) const {
  for (const NameSupply *s = this; s; s = s->parent)
    if (s->taken.contains(n))
      return true;
  return false;
}

llvm::StringRef NameSupply::claim(llvm::StringRef name) {
  return taken.insert(name).first->getKey();
}

std::string NameSupply::fresh(llvm::StringRef base) {
  if (isPlain(base) && !isTaken(base))
    return claim(base).str();
  // Sanitize: [A-Za-z0-9_] only, no leading `_`, no `__`, no leading digit.
  std::string s;
  for (char c : base) {
    char d = (llvm::isAlnum(c) || c == '_') ? c : '_';
    if (d == '_' && (s.empty() || s.back() == '_'))
      continue;
    s += d;
  }
  while (!s.empty() && s.back() == '_')
    s.pop_back();
  if (s.empty() || llvm::isDigit(s[0]))
    s = "v" + s;
  std::string candidate = s + "_";
  for (int i = 2; isTaken(candidate); ++i)
    candidate = s + "_" + std::to_string(i);
  return claim(candidate).str();
}

std::string NameSupply::derived(llvm::StringRef base, llvm::StringRef suffix) {
  llvm::StringRef stem = base;
  while (stem.ends_with("_"))
    stem = stem.drop_back();
  return fresh((stem + "_" + suffix).str());
}
