//===- Profile.cpp - The device profile: parsing and validation -----------===//
//
// Schema credit-device-profile, versions 1 and 2 (docs/cost-model.md, "The
// device profile"): the device's figures only; version 1's control-kernel
// timings are reduced to the control grid (ControlFit.cpp). Every error names
// the key it is about, or the position of malformed JSON.
//
//===----------------------------------------------------------------------===//
#include "credit/Model/CostModel.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>
#include <cstdio>

using namespace llvm;
using namespace credit::model;

namespace {

std::string shortNumber(double d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", d);
  return buf;
}

/// Reads typed values out of a json::Object, naming the full key path in
/// every error.
class ProfileReader {
public:
  explicit ProfileReader(StringRef name) : name(name.str()) {}

  Error error(const Twine &key, const Twine &msg) const {
    return createStringError(inconvertibleErrorCode(),
                             name + ": key '" + key.str() + "': " + msg.str());
  }

  static std::string kindOf(const json::Value &v) {
    switch (v.kind()) {
    case json::Value::Null:
      return "null";
    case json::Value::Boolean:
      return "a boolean";
    case json::Value::Number:
      return "a number";
    case json::Value::String:
      return "a string";
    case json::Value::Array:
      return "an array";
    case json::Value::Object:
      return "an object";
    }
    return "a value";
  }

  Expected<const json::Value *> get(const json::Object &o, StringRef key, const Twine &path) const {
    const json::Value *v = o.get(key);
    if (!v)
      return error(path, "missing");
    return v;
  }

  Expected<const json::Object *> object(const json::Object &o, StringRef key,
                                        const Twine &path) const {
    auto v = get(o, key, path);
    if (!v)
      return v.takeError();
    const json::Object *r = (*v)->getAsObject();
    if (!r)
      return error(path, "expected an object, got " + kindOf(**v));
    return r;
  }

  Expected<std::string> string(const json::Object &o, StringRef key, const Twine &path) const {
    auto v = get(o, key, path);
    if (!v)
      return v.takeError();
    std::optional<StringRef> s = (*v)->getAsString();
    if (!s)
      return error(path, "expected a string, got " + kindOf(**v));
    return s->str();
  }

  /// A finite number; `positive`: > 0, else >= 0.
  Expected<double> number(const json::Value &v, const Twine &path, bool positive) const {
    std::optional<double> d = v.getAsNumber();
    if (!d)
      return error(path, "expected a number, got " + kindOf(v));
    if (!std::isfinite(*d))
      return error(path, "must be finite");
    if (positive && !(*d > 0))
      return error(path, "must be positive, got " + shortNumber(*d));
    if (!positive && *d < 0)
      return error(path, "must not be negative, got " + shortNumber(*d));
    return *d;
  }
  Expected<double> number(const json::Object &o, StringRef key, const Twine &path,
                          bool positive) const {
    auto v = get(o, key, path);
    if (!v)
      return v.takeError();
    return number(**v, path, positive);
  }

  /// An integer in [lo, hi].
  Expected<int64_t> integer(const json::Value &v, const Twine &path, int64_t lo, int64_t hi) const {
    std::optional<int64_t> i = v.getAsInteger();
    if (!i)
      return error(path, "expected an integer, got " + kindOf(v));
    if (*i < lo || *i > hi)
      return error(path, formatv("must be in [{0}, {1}], got {2}", lo, hi, *i).str());
    return *i;
  }
  Expected<int64_t> integer(const json::Object &o, StringRef key, const Twine &path, int64_t lo,
                            int64_t hi) const {
    auto v = get(o, key, path);
    if (!v)
      return v.takeError();
    return integer(**v, path, lo, hi);
  }

  /// A cluster size key: "2", "4", "8", "16" (and "1" where `allowOne`).
  Expected<int> clusterSize(StringRef key, const Twine &path, bool allowOne) const {
    int P = 0;
    if (!to_integer(key, P, 10) || log2P(P) < (allowOne ? 0 : 1))
      return error(path, allowOne ? "cluster sizes are \"1\", \"2\", \"4\", \"8\" or \"16\""
                                  : "cluster sizes are \"2\", \"4\", \"8\" or \"16\"");
    return P;
  }

  /// {"2": rate, ...}: cluster size -> positive number, into out[log2 P].
  Error rateByP(const json::Object &o, StringRef key, const Twine &path,
                double (&out)[kNumClusterSizes]) const {
    auto obj = object(o, key, path);
    if (!obj)
      return obj.takeError();
    for (const auto &kv : **obj) {
      std::string sub = (path + "." + kv.first.str()).str();
      auto P = clusterSize(kv.first, sub, false);
      if (!P)
        return P.takeError();
      auto d = number(kv.second, sub, /*positive=*/true);
      if (!d)
        return d.takeError();
      out[log2P(*P)] = *d;
    }
    return Error::success();
  }

private:
  std::string name;
};

/// "[3:17, byte=40]: Expected , or }" (llvm::json's ParseError text) ->
/// "<name>:3:17: invalid JSON: Expected , or }".
std::string locateParseError(StringRef name, StringRef msg) {
  size_t open = msg.find('['), colon = msg.find(':'), comma = msg.find(',');
  size_t close = msg.find("]: ");
  if (open == 0 && colon != StringRef::npos && comma != StringRef::npos && close != StringRef::npos &&
      colon < comma && comma < close) {
    StringRef line = msg.slice(1, colon), col = msg.slice(colon + 1, comma);
    return (name + ":" + line + ":" + col + ": invalid JSON: " + msg.drop_front(close + 3)).str();
  }
  return (name + ": invalid JSON: " + msg).str();
}

/// control_grid.<protocol>.<P>: the five figures of a GridCost.
Error readGridCost(const ProfileReader &r, const json::Object &o, const std::string &path, GridCost &c) {
  struct Field {
    const char *key;
    double *out;
  } fields[] = {{"launch_us", &c.launchUs},
                {"cta_cycles", &c.ctaCycles},
                {"stage_cycles", &c.stageCycles},
                {"statistic_cycles", &c.statisticCycles},
                {"issue_cycles", &c.issueCycles}};
  for (const Field &f : fields) {
    auto v = r.number(o, f.key, path + "." + f.key, /*positive=*/false);
    if (!v)
      return v.takeError();
    *f.out = *v;
  }
  return Error::success();
}

} // namespace

int credit::model::jsonDepth(StringRef text) {
  int depth = 0, deepest = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"')
      inString = true;
    else if (c == '[' || c == '{')
      deepest = std::max(deepest, ++depth);
    else if ((c == ']' || c == '}') && depth > 0)
      --depth;
  }
  return deepest;
}

Expected<DeviceProfile> credit::model::parseProfile(StringRef text, StringRef name) {
  // llvm::json parses recursively: bound the nesting before it does.
  if (int depth = jsonDepth(text); depth > kMaxProfileDepth)
    return createStringError(inconvertibleErrorCode(),
                             formatv("{0}: invalid profile: arrays and objects nested {1} deep (at most "
                                     "{2})",
                                     name, depth, kMaxProfileDepth)
                                 .str());
  Expected<json::Value> doc = json::parse(text);
  if (!doc)
    return createStringError(inconvertibleErrorCode(),
                             locateParseError(name, toString(doc.takeError())));
  const json::Object *root = doc->getAsObject();
  if (!root)
    return createStringError(inconvertibleErrorCode(),
                             name + ": the profile must be a JSON object");
  ProfileReader r(name);
  DeviceProfile p;
  p.path = name.str();
  Device &d = p.device;

  auto schema = r.string(*root, "schema", "schema");
  if (!schema)
    return schema.takeError();
  if (*schema != "credit-device-profile")
    return r.error("schema", "expected \"credit-device-profile\", got \"" + *schema + "\"");
  auto version = r.integer(*root, "version", "version", 1, 1000);
  if (!version)
    return version.takeError();
  if (*version != 1 && *version != 2)
    return r.error("version", formatv("expected 1 or 2, got {0}", *version).str());
  if (const json::Object *derived = root->getObject("derived"))
    if (std::optional<StringRef> from = derived->getString("from"))
      p.derived = from->str();

  // device
  auto device = r.object(*root, "device", "device");
  if (!device)
    return device.takeError();
  auto dname = r.string(**device, "name", "device.name");
  if (!dname)
    return dname.takeError();
  p.deviceName = *dname;
  if ((*device)->get("arch")) {
    auto arch = r.string(**device, "arch", "device.arch");
    if (!arch)
      return arch.takeError();
    p.arch = *arch;
  }
  auto sms = r.integer(**device, "sms", "device.sms", 1, 100000);
  if (!sms)
    return sms.takeError();
  d.sms = static_cast<int>(*sms);
  auto f = r.number(**device, "sm_clock_MHz", "device.sm_clock_MHz", true);
  if (!f)
    return f.takeError();
  d.smClockMHz = *f;
  auto perSm = r.integer(**device, "smem_per_sm_bytes", "device.smem_per_sm_bytes", 1, 1LL << 40);
  if (!perSm)
    return perSm.takeError();
  d.smemPerSm = *perSm;
  auto optin = r.integer(**device, "smem_per_block_optin_bytes", "device.smem_per_block_optin_bytes", 1,
                         1LL << 40);
  if (!optin)
    return optin.takeError();
  d.smemOptin = *optin;
  d.maxThreadsPerSm = 2048;
  d.maxCtasPerSm = 32;
  for (auto [key, out] : {std::pair{"max_threads_per_sm", &d.maxThreadsPerSm},
                          std::pair{"max_ctas_per_sm", &d.maxCtasPerSm}}) {
    if (!(*device)->get(key))
      continue;
    auto v = r.integer(**device, key, (std::string("device.") + key).c_str(), 1, 1 << 20);
    if (!v)
      return v.takeError();
    *out = static_cast<int>(*v);
  }

  // rates_Bpc
  auto rates = r.object(*root, "rates_Bpc", "rates_Bpc");
  if (!rates)
    return rates.takeError();
  auto rd = r.number(**rates, "smem_read", "rates_Bpc.smem_read", true);
  if (!rd)
    return rd.takeError();
  d.smemReadBpc = *rd;
  auto wr = r.number(**rates, "smem_write", "rates_Bpc.smem_write", true);
  if (!wr)
    return wr.takeError();
  d.smemWriteBpc = *wr;
  if (Error e = r.rateByP(**rates, "dsmem_store", "rates_Bpc.dsmem_store", d.dsmStoreBpc[0]))
    return std::move(e);
  if (Error e = r.rateByP(**rates, "dsmem_store_async", "rates_Bpc.dsmem_store_async", d.dsmStoreBpc[1]))
    return std::move(e);

  // latency_cycles.global_load and memory.copy_GBps (optional)
  if (const json::Object *lat = (*root).getObject("latency_cycles");
      lat && lat->get("global_load") && !lat->get("global_load")->getAsNull()) {
    auto g = r.number(*lat, "global_load", "latency_cycles.global_load", true);
    if (!g)
      return g.takeError();
    d.globalLoadCycles = *g;
  } else {
    p.missing.push_back("latency_cycles.global_load");
  }
  if (const json::Object *mem = (*root).getObject("memory");
      mem && mem->get("copy_GBps") && !mem->get("copy_GBps")->getAsNull()) {
    auto c = r.number(*mem, "copy_GBps", "memory.copy_GBps", true);
    if (!c)
      return c.takeError();
    d.copyBytesPerMs = *c * 1e6;
  } else {
    p.missing.push_back("memory.copy_GBps");
  }

  // occupancy.resident_clusters (optional): {"2": [k = 1, 2, ...], ...}
  if ((*root).get("occupancy")) {
    auto occ = r.object(*root, "occupancy", "occupancy");
    if (!occ)
      return occ.takeError();
    auto rc = r.object(**occ, "resident_clusters", "occupancy.resident_clusters");
    if (!rc)
      return rc.takeError();
    for (const auto &kv : **rc) {
      std::string path = "occupancy.resident_clusters." + kv.first.str();
      auto P = r.clusterSize(kv.first, path, false);
      if (!P)
        return P.takeError();
      const json::Array *a = kv.second.getAsArray();
      if (!a)
        return r.error(path, "expected an array (clusters resident at 1, 2, ... CTAs per SM), got " +
                                 ProfileReader::kindOf(kv.second));
      if (a->empty() || a->size() > static_cast<size_t>(kMaxResidentCtas))
        return r.error(path, formatv("expected 1 to {0} entries, got {1}", kMaxResidentCtas, a->size()).str());
      for (size_t i = 0; i < a->size(); ++i) {
        auto v = r.integer((*a)[i], path + formatv("[{0}]", i).str(), 0, 1 << 24);
        if (!v)
          return v.takeError();
        d.residentClusters[log2P(*P)][i] = static_cast<int>(*v);
      }
    }
  } else {
    p.missing.push_back("occupancy");
  }

  // control_grid: {"sync": {"1": {...}, "2": {...}, ...}, "mbarrier": {...}}, or
  // control.entries (control-kernel timings; version 1): the grid fitted to them.
  if (!root->get("control_grid")) {
    const json::Object *control = root->getObject("control");
    const json::Array *entries = control ? control->getArray("entries") : nullptr;
    if (!entries)
      return r.error("control_grid", "missing (and no control.entries to fit it to): measure the profile "
                                     "with credit-calibrate");
    if (Error e = fitControlGrid(*entries, name, d, p.fitted))
      return std::move(e);
    return p;
  }
  auto grid = r.object(*root, "control_grid", "control_grid");
  if (!grid)
    return grid.takeError();
  for (int protocol = 0; protocol < 2; ++protocol) {
    const std::string pname = protocol ? "mbarrier" : "sync";
    auto byP = r.object(**grid, pname, "control_grid." + pname);
    if (!byP)
      return byP.takeError();
    bool haveOne = false;
    for (const auto &kv : **byP) {
      std::string path = "control_grid." + pname + "." + kv.first.str();
      auto P = r.clusterSize(kv.first, path, true);
      if (!P)
        return P.takeError();
      const json::Object *o = kv.second.getAsObject();
      if (!o)
        return r.error(path, "expected an object, got " + ProfileReader::kindOf(kv.second));
      if (Error e = readGridCost(r, *o, path, d.grid[protocol][log2P(*P)]))
        return std::move(e);
      d.gridMeasured[protocol][log2P(*P)] = true;
      haveOne |= *P == 1;
    }
    if (!haveOne)
      return r.error("control_grid." + pname + ".1", "missing (the one-CTA grid T_ctrl is measured against)");
  }
  return p;
}

Expected<DeviceProfile> credit::model::loadProfile(StringRef path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> buf = MemoryBuffer::getFile(path, /*IsText=*/true);
  if (std::error_code ec = buf.getError())
    return createStringError(ec, "cannot read profile '" + path + "': " + ec.message());
  return parseProfile((*buf)->getBuffer(), path);
}
