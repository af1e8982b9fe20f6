// CalibrateSupport.cpp -- see CalibrateSupport.h.
#include "CalibrateSupport.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace credit {
namespace calibrate {

// ---------------------------------------------------------------------------
// JSON.
// ---------------------------------------------------------------------------
std::string jsonQuote(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\r': o += "\\r"; break;
      case '\t': o += "\\t"; break;
      case '\b': o += "\\b"; break;
      case '\f': o += "\\f"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          o += buf;
        } else {
          o += static_cast<char>(c);
        }
    }
  }
  return o + "\"";
}

std::string jsonNumber(double d) {
  if (!std::isfinite(d)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", d);
  std::string s = buf;
  // "1e+20" is valid JSON; "inf"/"nan" were excluded above. Make integral
  // doubles visibly floating ("3" -> "3.0") so readers keep the type.
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

void JsonWriter::newline() {
  out_ += '\n';
  out_.append(2 * stack_.size(), ' ');
}

void JsonWriter::beforeValue() {
  if (stack_.empty()) {
    if (wroteRoot_) ok_ = false;  // a second root value
    wroteRoot_ = true;
    return;
  }
  Level& l = stack_.back();
  if (l.object) {
    if (!l.keyPending) ok_ = false;
    l.keyPending = false;
    return;  // key() already wrote the separator and the newline
  }
  if (l.count++ > 0) out_ += ',';
  newline();
}

void JsonWriter::key(const std::string& k) {
  if (stack_.empty() || !stack_.back().object || stack_.back().keyPending) {
    ok_ = false;
    return;
  }
  Level& l = stack_.back();
  if (l.count++ > 0) out_ += ',';
  newline();
  out_ += jsonQuote(k);
  out_ += ": ";
  l.keyPending = true;
}

void JsonWriter::beginObject() {
  beforeValue();
  out_ += '{';
  stack_.push_back({true, 0, false});
}

void JsonWriter::beginArray() {
  beforeValue();
  out_ += '[';
  stack_.push_back({false, 0, false});
}

void JsonWriter::endObject() {
  if (stack_.empty() || !stack_.back().object || stack_.back().keyPending) {
    ok_ = false;
    return;
  }
  const bool empty = stack_.back().count == 0;
  stack_.pop_back();
  if (!empty) newline();
  out_ += '}';
  if (stack_.empty()) out_ += '\n';
}

void JsonWriter::endArray() {
  if (stack_.empty() || stack_.back().object) {
    ok_ = false;
    return;
  }
  const bool empty = stack_.back().count == 0;
  stack_.pop_back();
  if (!empty) newline();
  out_ += ']';
  if (stack_.empty()) out_ += '\n';
}

void JsonWriter::value(const std::string& s) {
  beforeValue();
  out_ += jsonQuote(s);
}
void JsonWriter::value(const char* s) { value(std::string(s ? s : "")); }
void JsonWriter::value(double d) {
  beforeValue();
  out_ += jsonNumber(d);
}
void JsonWriter::value(long long i) {
  beforeValue();
  out_ += std::to_string(i);
}
void JsonWriter::value(bool b) {
  beforeValue();
  out_ += b ? "true" : "false";
}
void JsonWriter::null() {
  beforeValue();
  out_ += "null";
}

// ---------------------------------------------------------------------------
// Statistics and lists.
// ---------------------------------------------------------------------------
double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

bool parseIntList(const std::string& text, std::vector<long long>& out, std::string& error) {
  out.clear();
  size_t pos = 0;
  while (true) {
    size_t comma = text.find(',', pos);
    std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (item.empty()) {
      error = "empty item in list '" + text + "'";
      return false;
    }
    long long mult = 1;
    const char last = item.back();
    if (last == 'K' || last == 'k') mult = 1024;
    if (last == 'M' || last == 'm') mult = 1024 * 1024;
    if (mult != 1) item.pop_back();
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || errno != 0 || v < 1) {
      error = "'" + text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos) +
              "' is not a positive integer";
      return false;
    }
    out.push_back(v * mult);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return true;
}

// ---------------------------------------------------------------------------
// Generated sources.
// ---------------------------------------------------------------------------
namespace {

bool isIdent(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// The integer after `needle` (skipping spaces), e.g. needle "int K_sync =".
bool intAfter(const std::string& text, size_t from, const std::string& needle, int& out) {
  size_t p = text.find(needle, from);
  if (p == std::string::npos) return false;
  p += needle.size();
  while (p < text.size() && text[p] == ' ') ++p;
  char* end = nullptr;
  long v = std::strtol(text.c_str() + p, &end, 10);
  if (end == text.c_str() + p) return false;
  out = static_cast<int>(v);
  return true;
}

}  // namespace

bool parseGeneratedSource(const std::string& text, GeneratedKernel& out, std::string& error) {
  out = GeneratedKernel();
  // The control kernels: `CREDIT_CONTROL_KERNEL(credit_K_control_sync, ...)` (the device
  // library's macro), or spelled out as `credit_K_control_sync(long long M, int N, int P)`.
  const std::string macro = "CREDIT_CONTROL_KERNEL(";
  const std::string suffix = "_control_sync(long long M, int N, int P)";
  size_t s = std::string::npos;
  for (size_t m = text.find(macro); m != std::string::npos; m = text.find(macro, m + 1)) {
    size_t e = m + macro.size();
    while (e < text.size() && isIdent(text[e])) ++e;
    if (e >= 13 && text.compare(e - 13, 13, "_control_sync") == 0) {
      s = e - 13;
      break;
    }
  }
  const bool viaMacro = s != std::string::npos;
  if (!viaMacro) s = text.find(suffix);
  if (s == std::string::npos) {
    error = "no work-free control kernel (credit_<K>_control_sync) in the file; generate it with "
            "creditc's default variants or --variant=control";
    return false;
  }
  size_t b = s;
  while (b > 0 && isIdent(text[b - 1])) --b;
  const std::string fn = text.substr(b, s - b);  // credit_K
  if (fn.rfind("credit_", 0) != 0 || fn.size() <= 7) {
    error = "unexpected control kernel name '" + fn + "_control_sync'";
    return false;
  }
  out.kernel = fn.substr(7);
  out.controlSync = fn + "_control_sync";
  out.controlMbarrier = fn + "_control_mbarrier";
  const bool hasMbarrier = viaMacro ? text.find(macro + out.controlMbarrier + ",") != std::string::npos
                                    : text.find(out.controlMbarrier + "(long long M, int N, int P)") != std::string::npos;
  if (!hasMbarrier) {
    error = "no " + out.controlMbarrier + " kernel in the file";
    return false;
  }
  // "namespace CREDIT_LOCAL credit_K {" (hidden visibility); files of earlier
  // creditc versions open it without the macro.
  size_t nsPos = text.find("namespace CREDIT_LOCAL " + fn + " {");
  if (nsPos == std::string::npos)
    nsPos = text.find("namespace " + fn + " {");
  if (nsPos == std::string::npos) {
    error = "no metadata namespace '" + fn + "'";
    return false;
  }
  // inline constexpr credit::WorkloadGeometry geometry = {4, 2, 1, 2, 256, 2};
  // (files of creditc before hOnlyArrays have five fields; it is 0 there)
  const std::string geo = "credit::WorkloadGeometry geometry = {";
  size_t g = text.find(geo, nsPos);
  if (g == std::string::npos) {
    error = "no 'credit::WorkloadGeometry geometry = {...}' in namespace " + fn;
    return false;
  }
  int vals[6] = {0, 0, 0, 0, 0, 0};
  int fields = 0;
  const char* p = text.c_str() + g + geo.size();
  for (int i = 0; i < 6 && (i < 5 || *p != '}'); ++i, ++fields) {
    char* end = nullptr;
    long v = std::strtol(p, &end, 10);
    if (end == p) {
      error = "cannot read the geometry constant of namespace " + fn;
      return false;
    }
    vals[i] = static_cast<int>(v);
    p = end;
    while (*p == ' ' || *p == ',') ++p;
  }
  if (*p != '}') {
    error = "the geometry constant of namespace " + fn + " does not have 5 or 6 fields";
    return false;
  }
  out.keepBytesPerElem = vals[0];
  out.numStages = vals[1];
  out.qMax = vals[2];
  out.qSum = vals[3];
  out.threads = vals[4];
  out.hOnlyArrays = fields == 6 ? vals[5] : 0;
  // inline constexpr credit::WorkloadGeometry reread_geometry = {4, 1, 2, 2, 256, 0};
  const std::string rgeo = "credit::WorkloadGeometry reread_geometry = {";
  const size_t rg = text.find(rgeo, nsPos);
  if (rg != std::string::npos) {
    const char* q = text.c_str() + rg + rgeo.size();
    for (int i = 0; i < 6; ++i) {
      char* end = nullptr;
      const long v = std::strtol(q, &end, 10);
      if (end == q) {
        error = "cannot read the reread_geometry constant of namespace " + fn;
        return false;
      }
      out.rereadGeometry[i] = static_cast<int>(v);
      q = end;
      while (*q == ' ' || *q == ',') ++q;
    }
  }
  if (!intAfter(text, nsPos, "int K_sync =", out.Ksync) ||
      !intAfter(text, nsPos, "int K_mbarrier =", out.Kmbarrier)) {
    error = "no K_sync / K_mbarrier constants in namespace " + fn;
    return false;
  }
  const std::string tgt = "credit::TargetInfo target = credit::findTarget(\"";
  size_t t = text.find(tgt, nsPos);
  if (t != std::string::npos) {
    size_t e = text.find('"', t + tgt.size());
    if (e != std::string::npos) out.arch = text.substr(t + tgt.size(), e - t - tgt.size());
  }
  if (out.threads < 32 || out.threads % 32 != 0 || out.numStages < 0 || out.keepBytesPerElem < 0 ||
      out.hOnlyArrays < 0) {
    error = "implausible geometry in namespace " + fn;
    return false;
  }
  return true;
}

std::string geometryCheckSuffix(const GeneratedKernel& k) {
  const std::string ns = "credit_" + k.kernel;
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "\n// ---- appended by credit-calibrate: the figures it read from this file ----\n"
                "static_assert(%s::geometry.keepBytesPerElem == %d && %s::geometry.numStages == %d &&\n"
                "              %s::geometry.qMax == %d && %s::geometry.qSum == %d &&\n"
                "              %s::geometry.threads == %d && %s::geometry.hOnlyArrays == %d &&\n"
                "              %s::K_sync == %d && %s::K_mbarrier == %d,\n"
                "              \"credit-calibrate misread the kernel metadata\");\n",
                ns.c_str(), k.keepBytesPerElem, ns.c_str(), k.numStages, ns.c_str(), k.qMax,
                ns.c_str(), k.qSum, ns.c_str(), k.threads, ns.c_str(), k.hOnlyArrays, ns.c_str(), k.Ksync,
                ns.c_str(), k.Kmbarrier);
  return buf;
}

}  // namespace calibrate
}  // namespace credit
