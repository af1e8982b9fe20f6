// The generated file's text, read line by line: the emitter writes each kernel line,
// the signature and the profile tables in a fixed form (CudaEmitter's printers).
#include "GeneratedFile.h"

#include <cctype>
#include <cstdlib>
#include <sstream>

namespace credit::capi {

namespace {

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

bool startsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

std::vector<std::string> splitArgs(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ',') {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(trim(cur));
  return out;
}

bool isIdentifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != ':') return false;
  return true;
}

// A kernel line, or "" with `matched` false when the line is none.
std::string parseKernelLine(const std::string& line, bool& matched, KernelLine& k) {
  struct Macro {
    const char* prefix;
    int args, nameAt, workloadAt, formAt, vecAt, vec;
  };
  static const Macro macros[] = {
      {"CREDIT_ROW_KERNEL(", 5, 0, 2, 3, 4, 0},
      {"CREDIT_CLUSTER_KERNEL(", 5, 0, 2, 3, 4, 0},
      {"CREDIT_PERSISTENT_KERNEL(", 4, 0, 2, 3, -1, 4},
      {"CREDIT_CONTROL_KERNEL(", 3, 0, 1, 2, -1, 1},
  };
  matched = false;
  for (const Macro& m : macros) {
    if (!startsWith(line, m.prefix)) continue;
    matched = true;
    const std::string body = trim(line.substr(std::string(m.prefix).size()));
    if (body.empty() || body.back() != ')') return "unterminated kernel line: " + line;
    const std::vector<std::string> a = splitArgs(body.substr(0, body.size() - 1));
    if (static_cast<int>(a.size()) != m.args) return "unexpected kernel line: " + line;
    k.name = a[m.nameAt];
    k.workload = a[m.workloadAt];
    k.form = a[m.formAt];
    k.vec = m.vec;
    if (m.vecAt >= 0) k.vec = a[m.vecAt] == "4" ? 4 : a[m.vecAt] == "1" ? 1 : 0;
    if (!isIdentifier(k.name) || !isIdentifier(k.workload) || !isIdentifier(k.form) || k.vec == 0)
      return "unexpected kernel line: " + line;
    return "";
  }
  return "";
}

// The text of a braced initializer that starts on the line containing `marker`, up to
// the line "};", without // comments.
bool initializer(const std::vector<std::string>& lines, const char* marker, std::string& out) {
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find(marker) == std::string::npos) continue;
    out.clear();
    for (size_t j = i; j < lines.size(); ++j) {
      std::string l = lines[j];
      if (j == i) l = l.substr(l.find('=') == std::string::npos ? 0 : l.find('=') + 1);
      const size_t c = l.find("//");
      if (c != std::string::npos) l = l.substr(0, c);
      out += l + "\n";
      if (trim(lines[j]) == "};" || (j == i && trim(l).size() >= 2 && trim(l).substr(trim(l).size() - 2) == "};"))
        return true;
    }
    return false;
  }
  return false;
}

// The numbers of an initializer, in order; identifiers are skipped.
std::vector<double> numbers(const std::string& text) {
  std::vector<double> out;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) ++i;
    } else if (std::isdigit(static_cast<unsigned char>(c)) || ((c == '-' || c == '.') && i + 1 < text.size() &&
                                                                  (std::isdigit(static_cast<unsigned char>(text[i + 1])) ||
                                                                   text[i + 1] == '.'))) {
      char* end = nullptr;
      out.push_back(std::strtod(text.c_str() + i, &end));
      i = static_cast<size_t>(end - text.c_str());
      while (i < text.size() && (std::isalpha(static_cast<unsigned char>(text[i])))) ++i;  // suffixes: f, LL
    } else {
      ++i;
    }
  }
  return out;
}

std::string parseProfile(const std::vector<std::string>& lines, ProfileFigures& p) {
  std::string ctrlText, profileText;
  const bool hasCtrl = initializer(lines, "credit::model::CtrlPoint kCtrl[]", ctrlText);
  const bool hasProfile = initializer(lines, "credit::host::Profile kProfile", profileText);
  if (!hasCtrl && !hasProfile) return "";
  if (!hasCtrl || !hasProfile) return "the device profile's tables (kCtrl, kProfile) are incomplete";
  const std::vector<double> c = numbers(ctrlText);
  if (c.size() % 5 != 0) return "kCtrl: expected {protocol, P, M, N, ms} entries";
  for (size_t i = 0; i < c.size(); i += 5)
    p.ctrl.push_back(model::CtrlPoint{static_cast<int>(c[i]), static_cast<int>(c[i + 1]),
                                      static_cast<long long>(c[i + 2]), static_cast<long long>(c[i + 3]), c[i + 4]});
  // {S, f, B_r, B_w}, {{B_DSM sync x5}, {B_DSM mbarrier x5}}, kCtrl, count, {traffic x6}
  const std::vector<double> v = numbers(profileText);
  if (v.size() != 21) return "kProfile: expected 21 figures, found " + std::to_string(v.size());
  p.rates = model::Rates{static_cast<int>(v[0]), v[1], v[2], v[3]};
  for (int k = 0; k < 10; ++k) p.dsmStore[k / 5][k % 5] = v[4 + k];
  // The count may be below the table's length: an empty table holds one placeholder.
  if (v[14] < 0 || static_cast<size_t>(v[14]) > p.ctrl.size()) return "kProfile: more T_ctrl points than kCtrl holds";
  p.ctrl.resize(static_cast<size_t>(v[14]));
  p.traffic = model::Traffic{static_cast<long long>(v[15]), static_cast<long long>(v[16]), static_cast<long long>(v[17]),
                             static_cast<long long>(v[18]), static_cast<long long>(v[19]), static_cast<int>(v[20])};
  p.present = true;
  return "";
}

}  // namespace

std::string parseGeneratedFile(const std::string& source, GeneratedFile& out) {
  out = GeneratedFile();
  std::vector<std::string> lines;
  {
    std::istringstream in(source);
    std::string l;
    while (std::getline(in, l)) lines.push_back(l);
  }
  for (const std::string& raw : lines) {
    const std::string line = trim(raw);
    bool matched = false;
    KernelLine k;
    const std::string err = parseKernelLine(line, matched, k);
    if (!err.empty()) return err;
    if (matched) out.kernels.push_back(k);
    // const char* credit_<K>_signature() { return "..."; }
    if (startsWith(line, "const char* credit_") && line.find("_signature()") != std::string::npos) {
      const size_t nameEnd = line.find("_signature()");
      out.kernel = line.substr(std::string("const char* credit_").size(), nameEnd - std::string("const char* credit_").size());
      const size_t q0 = line.find('"'), q1 = line.rfind('"');
      if (q0 == std::string::npos || q1 <= q0) return "unexpected signature line: " + line;
      out.signature = line.substr(q0 + 1, q1 - q0 - 1);
    }
    const size_t t = line.find("credit::findTarget(\"");
    if (t != std::string::npos && line.find("target") != std::string::npos && out.arch.empty()) {
      const size_t b = t + std::string("credit::findTarget(\"").size(), e = line.find('"', b);
      if (e != std::string::npos) out.arch = line.substr(b, e - b);
    }
  }
  if (out.kernels.empty())
    return "no kernels found (CREDIT_*_KERNEL lines): is this a file creditc generated?";
  if (out.signature.empty()) return "no credit_<kernel>_signature() found: is this a file creditc generated?";
  for (const KernelLine& k : out.kernels) {
    if (k.workload != out.kernels[0].workload) return "the kernel lines name two workload types";
    if (k.name.rfind("credit_" + out.kernel + "_", 0) != 0)
      return "kernel " + k.name + " does not belong to credit_" + out.kernel;
  }
  return parseProfile(lines, out.profile);
}

}  // namespace credit::capi
