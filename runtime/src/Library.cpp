// The embedded library headers (Library.h).
#include "credit/runtime/Library.h"

#include "credit/runtime/KernelCache.h"

namespace credit {

namespace {
template <std::size_t N>
const EmbeddedHeader* table(const EmbeddedHeader (&t)[N], std::size_t* count) {
  if (count != nullptr) *count = N;
  return t;
}

// `text` without its lines that #include a credit/ header.
void appendWithoutProjectIncludes(std::string& out, const char* text) {
  const std::string s = text;
  std::size_t pos = 0;
  while (pos < s.size()) {
    std::size_t end = s.find('\n', pos);
    end = end == std::string::npos ? s.size() : end + 1;
    const std::string line = s.substr(pos, end - pos);
    if (line.rfind("#include \"credit/", 0) != 0 && line.rfind("#include <credit/", 0) != 0) out += line;
    pos = end;
  }
}
}  // namespace

const EmbeddedHeader* deviceLibraryHeaders(std::size_t* count) { return table(embedded::kLibraryHeaders, count); }
const EmbeddedHeader* hostLibraryHeaders(std::size_t* count) { return table(embedded::kHostHeaders, count); }

std::string inlineLibraryHeaders(bool host) {
  std::string out;
  std::size_t n = 0;
  const EmbeddedHeader* h = deviceLibraryHeaders(&n);
  for (std::size_t i = 0; i < n; ++i) appendWithoutProjectIncludes(out, h[i].text);
  if (host) {
    h = hostLibraryHeaders(&n);
    for (std::size_t i = 0; i < n; ++i) appendWithoutProjectIncludes(out, h[i].text);
  }
  return out;
}

const std::string& libraryDigest() {
  static const std::string digest = [] {
    Sha256 sha;
    for (bool host : {false, true}) {
      std::size_t n = 0;
      const EmbeddedHeader* h = host ? hostLibraryHeaders(&n) : deviceLibraryHeaders(&n);
      for (std::size_t i = 0; i < n; ++i) {
        const std::string name = h[i].name, text = h[i].text;
        const std::string lengths = std::to_string(name.size()) + ":" + std::to_string(text.size()) + ":";
        sha.update(lengths);
        sha.update(name);
        sha.update(text);
      }
    }
    return sha.finishHex();
  }();
  return digest;
}

}  // namespace credit
