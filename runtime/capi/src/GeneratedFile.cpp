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
    if (m.vecAt >= 0) k.vec = a[m.vecAt] == "8" ? 8 : a[m.vecAt] == "4" ? 4 : a[m.vecAt] == "1" ? 1 : 0;
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

// A braced initializer as a tree: numbers (true / false as 1 / 0) and nested lists.
struct Braced {
  bool leaf = false;
  double value = 0.0;
  std::vector<Braced> items;
};

bool parseBraced(const std::string& text, size_t& i, Braced& out, int depth) {
  if (depth > 8) return false;
  while (i < text.size() && text[i] != '{') ++i;
  if (i == text.size()) return false;
  ++i;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '}') {
      ++i;
      return true;
    }
    if (c == '{') {
      Braced kid;
      if (!parseBraced(text, i, kid, depth + 1)) return false;
      out.items.push_back(std::move(kid));
    } else if (text.compare(i, 4, "true") == 0 || text.compare(i, 5, "false") == 0) {
      Braced leaf;
      leaf.leaf = true;
      leaf.value = text[i] == 't' ? 1.0 : 0.0;
      out.items.push_back(leaf);
      i += text[i] == 't' ? 4 : 5;
    } else if (std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.') {
      char* end = nullptr;
      Braced leaf;
      leaf.leaf = true;
      leaf.value = std::strtod(text.c_str() + i, &end);
      if (end == text.c_str() + i) return false;
      out.items.push_back(leaf);
      i = static_cast<size_t>(end - text.c_str());
      while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) ++i;  // suffixes: f, LL
    } else {
      ++i;
    }
  }
  return false;
}

// The numbers of a list of leaves; false when an item is a list or the count is not `n`
// (n < 0: any count up to -n).
bool leaves(const Braced& b, int n, std::vector<double>& out) {
  out.clear();
  for (const Braced& x : b.items) {
    if (!x.leaf) return false;
    out.push_back(x.value);
  }
  return n >= 0 ? static_cast<int>(out.size()) == n : static_cast<int>(out.size()) <= -n;
}

std::string parseProfile(const std::vector<std::string>& lines, ProfileFigures& p) {
  std::string text;
  if (!initializer(lines, "credit::host::Profile kProfile", text)) return "";
  // {{S, f, SMEM per SM, per block, threads, CTAs per SM, B_r, B_w, {{B_DSM sync x5}, {mbarrier x5}},
  //   {resident clusters per P}, {{grid sync x5 x5}, {mbarrier}}, {{measured x5}, {x5}}, latency, copy},
  //  {traffic x6}}
  const std::string bad = "kProfile: not the layout this runtime reads (regenerate the file with this creditc)";
  Braced root;
  size_t i = 0;
  if (!parseBraced(text, i, root, 0) || root.items.size() != 2 || root.items[0].leaf) return bad;
  const std::vector<Braced>& d = root.items[0].items;
  if (d.size() != 14) return bad;
  for (int k : {0, 1, 2, 3, 4, 5, 6, 7, 12, 13})
    if (!d[k].leaf) return bad;
  model::Device& dev = p.device;
  dev = model::Device{};
  dev.sms = static_cast<int>(d[0].value);
  dev.smClockMHz = d[1].value;
  dev.smemPerSm = static_cast<long long>(d[2].value);
  dev.smemOptin = static_cast<long long>(d[3].value);
  dev.maxThreadsPerSm = static_cast<int>(d[4].value);
  dev.maxCtasPerSm = static_cast<int>(d[5].value);
  dev.smemReadBpc = d[6].value;
  dev.smemWriteBpc = d[7].value;
  std::vector<double> v;
  if (d[8].items.size() != 2) return bad;
  for (int proto = 0; proto < 2; ++proto) {
    if (!leaves(d[8].items[proto], model::kNumClusterSizes, v)) return bad;
    for (int l = 0; l < model::kNumClusterSizes; ++l) dev.dsmStoreBpc[proto][l] = v[l];
  }
  if (d[9].items.size() != static_cast<size_t>(model::kNumClusterSizes)) return bad;
  for (int l = 0; l < model::kNumClusterSizes; ++l) {
    if (!leaves(d[9].items[l], -model::kMaxResidentCtas, v)) return bad;
    for (size_t k = 0; k < v.size(); ++k) dev.residentClusters[l][k] = static_cast<int>(v[k]);
  }
  if (d[10].items.size() != 2 || d[11].items.size() != 2) return bad;
  for (int proto = 0; proto < 2; ++proto) {
    if (d[10].items[proto].items.size() != static_cast<size_t>(model::kNumClusterSizes)) return bad;
    for (int l = 0; l < model::kNumClusterSizes; ++l) {
      if (!leaves(d[10].items[proto].items[l], 5, v)) return bad;
      dev.grid[proto][l] = model::GridCost{v[0], v[1], v[2], v[3], v[4]};
    }
    if (!leaves(d[11].items[proto], model::kNumClusterSizes, v)) return bad;
    for (int l = 0; l < model::kNumClusterSizes; ++l) dev.gridMeasured[proto][l] = v[l] != 0.0;
  }
  dev.globalLoadCycles = d[12].value;
  dev.copyBytesPerMs = d[13].value;
  // Six figures, or seven where the reread kernel's re-reads differ (model::Traffic).
  const bool seven = leaves(root.items[1], 7, v);
  if (!seven && !leaves(root.items[1], 6, v)) return bad;
  p.traffic = model::Traffic{static_cast<long long>(v[0]), static_cast<long long>(v[1]), static_cast<long long>(v[2]),
                             static_cast<long long>(v[3]), static_cast<long long>(v[4]), static_cast<int>(v[5]),
                             seven ? static_cast<long long>(v[6]) : -1};
  if (!(dev.sms > 0) || !(dev.smClockMHz > 0.0)) return bad;
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
    // const char* <prefix>_signature() { return "..."; }: the prefix is credit_<K>, or
    // what creditc --prefix named.
    const std::string sigDecl = "const char* ", defaultPrefix = "credit_";
    const size_t nameEnd = startsWith(line, sigDecl.c_str()) ? line.find("_signature()") : std::string::npos;
    const std::string prefix =
        nameEnd != std::string::npos && nameEnd > sigDecl.size() ? line.substr(sigDecl.size(), nameEnd - sigDecl.size()) : "";
    if (isIdentifier(prefix)) {
      out.prefix = prefix;
      out.kernel = startsWith(prefix, defaultPrefix.c_str()) ? prefix.substr(defaultPrefix.size()) : prefix;
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
  if (out.signature.empty()) return "no <prefix>_signature() found: is this a file creditc generated?";
  // One workload type, except for the reread kernels, which may run their own (an online statistic).
  const KernelLine* first = nullptr;
  for (const KernelLine& k : out.kernels)
    if (k.form != "Reread" && first == nullptr) first = &k;
  for (const KernelLine& k : out.kernels) {
    if (first != nullptr && k.form != "Reread" && k.workload != first->workload)
      return "the kernel lines name two workload types";
    if (k.name.rfind(out.prefix + "_", 0) != 0) return "kernel " + k.name + " does not belong to " + out.prefix;
  }
  return parseProfile(lines, out.profile);
}

}  // namespace credit::capi
