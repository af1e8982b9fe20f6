//===- CostModel.cpp - The paper's profitability model --------------------===//
//
// docs/cost-model.md is the reference for every formula here. Units: bytes,
// cycles, milliseconds; rates in bytes per cycle per SM; f in MHz, so one
// millisecond is f * 1e3 cycles.
//
//===----------------------------------------------------------------------===//
#include "credit/Model/CostModel.h"
#include "credit/runtime/Model.h"


#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

using namespace llvm;
using namespace credit::model;
using ::credit::Protocol;

const char *credit::model::protocolName(Protocol p) {
  return p == Protocol::Sync ? "sync" : "mbarrier";
}

int KernelFacts::qSum() const {
  int s = 0;
  for (int x : q)
    s += x;
  return s;
}

bool KernelFacts::stagedLegal() const {
  for (const LegalityAtN &l : legality)
    if (l.P == 1)
      return l.legalSync;
  return false;
}

//===----------------------------------------------------------------------===//
// Profile parsing and validation.
//===----------------------------------------------------------------------===//

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

  Expected<const json::Array *> array(const json::Object &o, StringRef key,
                                      const Twine &path) const {
    auto v = get(o, key, path);
    if (!v)
      return v.takeError();
    const json::Array *r = (*v)->getAsArray();
    if (!r)
      return error(path, "expected an array, got " + kindOf(**v));
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

  /// A finite number; `positive`: > 0.
  Expected<double> number(const json::Value &v, const Twine &path, bool positive) const {
    std::optional<double> d = v.getAsNumber();
    if (!d)
      return error(path, "expected a number, got " + kindOf(v));
    if (!std::isfinite(*d))
      return error(path, "must be finite");
    if (positive && !(*d > 0))
      return error(path, "must be positive, got " + shortNumber(*d));
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
  Expected<int64_t> integer(const json::Object &o, StringRef key, const Twine &path, int64_t lo,
                            int64_t hi) const {
    auto v = get(o, key, path);
    if (!v)
      return v.takeError();
    std::optional<int64_t> i = (*v)->getAsInteger();
    if (!i)
      return error(path, "expected an integer, got " + kindOf(**v));
    if (*i < lo || *i > hi)
      return error(path, formatv("must be in [{0}, {1}], got {2}", lo, hi, *i).str());
    return *i;
  }

  /// {"2": rate, "4": rate, ...}: cluster size -> positive number.
  Expected<std::map<int, double>> rateByP(const json::Object &o, StringRef key,
                                          const Twine &path) const {
    auto obj = object(o, key, path);
    if (!obj)
      return obj.takeError();
    std::map<int, double> out;
    for (const auto &kv : **obj) {
      std::string sub = (path + "." + kv.first.str()).str();
      int P = 0;
      if (!to_integer(StringRef(kv.first), P, 10) || (P != 2 && P != 4 && P != 8 && P != 16))
        return error(sub, "cluster sizes are \"2\", \"4\", \"8\" or \"16\"");
      auto d = number(kv.second, sub, /*positive=*/true);
      if (!d)
        return d.takeError();
      out[P] = *d;
    }
    return out;
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

} // namespace

Expected<DeviceProfile> credit::model::parseProfile(StringRef text, StringRef name) {
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

  auto schema = r.string(*root, "schema", "schema");
  if (!schema)
    return schema.takeError();
  if (*schema != "credit-device-profile")
    return r.error("schema", "expected \"credit-device-profile\", got \"" + *schema + "\"");
  auto version = r.integer(*root, "version", "version", 1, 1);
  if (!version)
    return version.takeError();

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
  p.sms = static_cast<int>(*sms);
  auto f = r.number(**device, "sm_clock_MHz", "device.sm_clock_MHz", true);
  if (!f)
    return f.takeError();
  p.smClockMHz = *f;
  // Optional (the occupancy note of predict): the SMEM sizes that decide how
  // many staged CTAs share an SM (credit::stagedForm).
  for (auto [key, out] : {std::pair{"smem_per_sm_bytes", &p.smemPerSmBytes},
                          std::pair{"smem_per_block_optin_bytes", &p.smemOptinBytes}}) {
    if (!(*device)->get(key))
      continue;
    auto v = r.integer(**device, key, (std::string("device.") + key).c_str(), 1, 1LL << 40);
    if (!v)
      return v.takeError();
    *out = *v;
  }

  auto rates = r.object(*root, "rates_Bpc", "rates_Bpc");
  if (!rates)
    return rates.takeError();
  auto rd = r.number(**rates, "smem_read", "rates_Bpc.smem_read", true);
  if (!rd)
    return rd.takeError();
  p.smemReadBpc = *rd;
  auto wr = r.number(**rates, "smem_write", "rates_Bpc.smem_write", true);
  if (!wr)
    return wr.takeError();
  p.smemWriteBpc = *wr;
  auto st = r.rateByP(**rates, "dsmem_store", "rates_Bpc.dsmem_store");
  if (!st)
    return st.takeError();
  p.dsmemStoreBpc = std::move(*st);
  auto sta = r.rateByP(**rates, "dsmem_store_async", "rates_Bpc.dsmem_store_async");
  if (!sta)
    return sta.takeError();
  p.dsmemStoreAsyncBpc = std::move(*sta);

  auto control = r.object(*root, "control", "control");
  if (!control)
    return control.takeError();
  auto entries = r.array(**control, "entries", "control.entries");
  if (!entries)
    return entries.takeError();
  for (size_t i = 0; i < (*entries)->size(); ++i) {
    std::string at = formatv("control.entries[{0}]", i).str();
    const json::Object *e = (**entries)[i].getAsObject();
    if (!e)
      return r.error(at, "expected an object, got " + ProfileReader::kindOf((**entries)[i]));
    ControlEntry c;
    auto kernel = r.string(*e, "kernel", at + ".kernel");
    if (!kernel)
      return kernel.takeError();
    c.kernel = *kernel;
    auto proto = r.string(*e, "protocol", at + ".protocol");
    if (!proto)
      return proto.takeError();
    if (*proto == "sync")
      c.protocol = Protocol::Sync;
    else if (*proto == "mbarrier")
      c.protocol = Protocol::Mbarrier;
    else
      return r.error(at + ".protocol", "expected \"sync\" or \"mbarrier\", got \"" + *proto + "\"");
    auto P = r.integer(*e, "P", at + ".P", 2, 16);
    if (!P)
      return P.takeError();
    if (*P != 2 && *P != 4 && *P != 8 && *P != 16)
      return r.error(at + ".P", formatv("must be 2, 4, 8 or 16, got {0}", *P).str());
    c.P = static_cast<int>(*P);
    auto M = r.integer(*e, "M", at + ".M", 1, int64_t(1) << 40);
    if (!M)
      return M.takeError();
    c.M = *M;
    auto N = r.integer(*e, "N", at + ".N", 1, ::credit::kMaxRowElems);
    if (!N)
      return N.takeError();
    c.N = *N;
    auto t = r.number(*e, "t_ctrl_ms", at + ".t_ctrl_ms", /*positive=*/false);
    if (!t)
      return t.takeError();
    c.tCtrlMs = *t;
    if (e->get("geometry")) {
      auto g = r.object(*e, "geometry", at + ".geometry");
      if (!g)
        return g.takeError();
      ::credit::WorkloadGeometry geo{};
      const std::string gp = at + ".geometry.";
      auto keep = r.integer(**g, "keep_bytes_per_element", gp + "keep_bytes_per_element", 0, 1 << 20);
      auto L = keep ? r.integer(**g, "L", gp + "L", 0, 1 << 20) : Expected<int64_t>(keep.takeError());
      auto qMax = L ? r.integer(**g, "q_max", gp + "q_max", 0, 1 << 20) : Expected<int64_t>(L.takeError());
      auto qSum = qMax ? r.integer(**g, "q_sum", gp + "q_sum", 0, 1 << 20)
                       : Expected<int64_t>(qMax.takeError());
      auto thr = qSum ? r.integer(**g, "threads", gp + "threads", 32, 1024)
                      : Expected<int64_t>(qSum.takeError());
      if (!thr)
        return thr.takeError();
      geo.keepBytesPerElem = static_cast<int>(*keep);
      geo.numStages = static_cast<int>(*L);
      geo.qMax = static_cast<int>(*qMax);
      geo.qSum = static_cast<int>(*qSum);
      geo.threads = static_cast<int>(*thr);
      c.geometry = geo;
    }
    p.control.push_back(std::move(c));
  }
  return p;
}

Expected<DeviceProfile> credit::model::loadProfile(StringRef path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> buf = MemoryBuffer::getFile(path, /*IsText=*/true);
  if (std::error_code ec = buf.getError())
    return createStringError(ec, "cannot read profile '" + path + "': " + ec.message());
  return parseProfile((*buf)->getBuffer(), path);
}

//===----------------------------------------------------------------------===//
// Kernel facts.
//===----------------------------------------------------------------------===//

std::vector<LegalityAtN> credit::model::legalityAt(const ::credit::WorkloadGeometry &g,
                                                   const ::credit::TargetInfo &target,
                                                   long long N) {
  std::vector<LegalityAtN> rows;
  for (int P : {1, 2, 4, 8, 16}) {
    if (P > target.maxNonPortableCluster)
      break;
    LegalityAtN l;
    l.P = P;
    l.smemSync = ::credit::smemBytes(g, N, P, Protocol::Sync);
    l.smemMbarrier = ::credit::smemBytes(g, N, P, Protocol::Mbarrier);
    l.legalSync = l.smemSync <= target.smemOptinBytes;
    l.legalMbarrier = l.smemMbarrier <= target.smemOptinBytes;
    rows.push_back(l);
  }
  return rows;
}

//===----------------------------------------------------------------------===//
// T_ctrl lookup.
//===----------------------------------------------------------------------===//

namespace {

bool sameGeometry(const ::credit::WorkloadGeometry &a, const ::credit::WorkloadGeometry &b) {
  return a.keepBytesPerElem == b.keepBytesPerElem && a.numStages == b.numStages &&
         a.qMax == b.qMax && a.qSum == b.qSum && a.threads == b.threads;
}

std::string geometryText(const ::credit::WorkloadGeometry &g) {
  return formatv("keep {0} B/element, L {1}, q max {2} sum {3}, {4} threads", g.keepBytesPerElem,
                 g.numStages, g.qMax, g.qSum, g.threads)
      .str();
}

} // namespace

Error credit::model::checkControlFootprint(const DeviceProfile &profile, const ControlEntry &e,
                                           StringRef kernel, const ::credit::WorkloadGeometry &g) {
  if (!e.geometry || sameGeometry(*e.geometry, g))
    return Error::success();
  return createStringError(
      inconvertibleErrorCode(),
      formatv("{0}: T_ctrl of '{1}' was measured with {2}; this kernel has {3} (recalibrate "
              "with a file generated by this creditc, same --cta-threads)",
              profile.path, kernel, geometryText(*e.geometry), geometryText(g))
          .str());
}

Expected<CtrlLookup> credit::model::lookupControl(const DeviceProfile &profile,
                                                  const KernelFacts &facts, Protocol protocol,
                                                  int P, long long M, long long N) {
  // The geometry check, then the arithmetic of credit/runtime/Model.h (the
  // same lookup the generated dispatch runs).
  std::vector<::credit::model::CtrlPoint> points;
  for (const ControlEntry &e : profile.control) {
    if (e.kernel != facts.name || e.protocol != protocol || e.P != P)
      continue;
    if (Error footprint = checkControlFootprint(profile, e, facts.name, facts.geometry))
      return std::move(footprint);
    points.push_back({static_cast<int>(e.protocol), e.P, e.M, e.N, e.tCtrlMs});
  }
  ::credit::model::CtrlValue v = ::credit::model::lookupCtrl(
      points.data(), static_cast<int>(points.size()), static_cast<int>(protocol), P, M, N);
  if (!v.found)
    return createStringError(inconvertibleErrorCode(),
                             formatv("no T_ctrl for kernel '{0}', {1} protocol, P = {2} in {3}",
                                     facts.name, protocolName(protocol), P, profile.path)
                                 .str());
  auto range = [](long long lo, long long hi) {
    return lo == hi ? formatv("{0}", lo).str() : formatv("{0}..{1}", lo, hi).str();
  };
  std::string detail;
  if (v.clampedM)
    detail = formatv("M scaled from {0}", v.mLo).str();
  else if (!v.exactM)
    detail = "M in " + range(v.mLo, v.mHi);
  if (!v.allExactN) {
    if (!detail.empty())
      detail += ", ";
    detail += v.anyClampedN ? "N clamped to " + range(v.nLo, v.nHi)
                            : "N in " + range(v.nLo, v.nHi) + " (log2)";
  }
  CtrlLookup out;
  out.ms = v.ms;
  out.source = v.source == ::credit::model::kCtrlExtrapolated   ? "extrapolated"
               : v.source == ::credit::model::kCtrlMeasured     ? "measured"
                                                                : "interpolated";
  out.detail = detail;
  return out;
}

//===----------------------------------------------------------------------===//
// The model.
//===----------------------------------------------------------------------===//

Expected<Prediction> credit::model::predict(const KernelFacts &facts, const DeviceProfile &profile,
                                            const Query &query) {
  auto err = [](const Twine &msg) { return createStringError(inconvertibleErrorCode(), msg); };
  if (!facts.accepted)
    return err("kernel '" + facts.name + "' is rejected (" + facts.category + "): " + facts.reason);
  if (query.M < 1)
    return err("M must be at least 1");
  if (query.N < 1 || query.N > ::credit::kMaxRowElems)
    return err(formatv("N must be in [1, {0}]", ::credit::kMaxRowElems).str());
  if (!(query.tBMs > 0) || !std::isfinite(query.tBMs))
    return err("T_B must be a positive time in ms");
  for (const auto &[P, ms] : query.tSliceMs) {
    if (P != 2 && P != 4 && P != 8 && P != 16)
      return err(formatv("T_slice is given for P = {0}; cluster sizes are 2, 4, 8 and 16", P).str());
    if (!(ms > 0) || !std::isfinite(ms))
      return err(formatv("T_slice for P = {0} must be a positive time in ms", P).str());
  }
  if (facts.legalityN != query.N)
    return err(formatv("the kernel facts were computed for N = {0}, not {1}", facts.legalityN,
                       query.N)
                   .str());

  Prediction p;
  p.kernel = facts.name;
  p.query = query;
  p.deviceName = profile.deviceName;
  p.profilePath = profile.path;
  p.profileArch = profile.arch;
  p.targetArch = facts.target.arch ? facts.target.arch : "";
  p.sms = profile.sms;
  p.smClockMHz = profile.smClockMHz;
  p.smemReadBpc = profile.smemReadBpc;
  p.smemWriteBpc = profile.smemWriteBpc;
  if (!p.profileArch.empty() && p.profileArch != p.targetArch)
    p.notes.push_back("the profile was measured on " + p.profileArch + "; Eq. 3 uses target " +
                      p.targetArch);

  // The non-clustered kernel T_B timed: staged where Eq. 3 allows P = 1.
  const bool stagedLegal = facts.stagedLegal();
  p.baselineAuto = query.baseline == BaselineKind::Auto;
  if (query.baseline == BaselineKind::Staged && !stagedLegal)
    return err(formatv("the staged kernel is not legal at N = {0} (Eq. 3, P = 1)", query.N).str());
  p.baselineKernel = query.baseline == BaselineKind::Reread   ? "reread"
                     : query.baseline == BaselineKind::Staged ? "staged"
                     : stagedLegal                            ? "staged"
                                                              : "reread";

  // Eq. 5 / 7: the bytes the timed baseline moves (reread: row inputs per pass,
  // outputs once, D_fixed; staged: each input once), over T_B.
  p.bBase = facts.baseline;
  p.bReread = facts.reread;
  p.bKeep = facts.keep;
  p.dFixedPerElement = facts.fixedBroadcastPerElement;
  p.dFixedPerRow = facts.fixedPerRow;
  const ::credit::model::Traffic traffic{facts.baseline,
                                          facts.reread,
                                          facts.keep,
                                          facts.fixedBroadcastPerElement,
                                          facts.fixedPerRow,
                                          facts.qSum()};
  const ::credit::model::Rates rates{profile.sms, profile.smClockMHz, profile.smemReadBpc,
                                     profile.smemWriteBpc};
  const ::credit::model::BaselineTerms base =
      ::credit::model::baselineTerms(traffic, query.M, query.N, query.tBMs,
                                     p.baselineKernel == "staged");
  p.dBaseBytes = base.dBaseBytes;
  p.rateBytesPerMs = base.rateBytesPerMs;
  p.tRereadSaved = base.tRereadSaved;
  p.tInput = base.tInput;
  const bool stagedBaseline = p.baselineKernel == "staged";
  p.anySlice = stagedBaseline && !query.tSliceMs.empty();
  if (stagedBaseline && profile.smemPerSmBytes > 0 && profile.smemOptinBytes > 0)
    p.stagedOneCtaPerSm = ::credit::isOneCtaPerSmForm(::credit::stagedForm(
        facts.geometry, query.N, true, profile.smemPerSmBytes, profile.smemOptinBytes));
  if (facts.reread == 0)
    p.notes.push_back("b_reread = 0: nothing to save, no P can win");
  else if (stagedBaseline && !p.anySlice)
    p.notes.push_back("T_B is the staged kernel's, which rereads nothing from HBM: no HBM time to "
                      "save (T_saved = 0), no P can win");
  else if (stagedBaseline)
    p.notes.push_back("T_B is the staged kernel's, which rereads nothing from HBM (T_saved = 0); "
                      "a P can win only by occupancy, T_occ = T_B - T_slice(P)");
  if (!query.tSliceMs.empty() && !stagedBaseline)
    p.notes.push_back("T_slice is ignored: T_B is the reread kernel's, whose saving is T_saved");
  // Where the staged kernel fills an SM with one CTA, nothing overlaps its
  // rows, and a cluster's smaller slices (several CTAs per SM) can stream
  // faster: T_occ prices that, from T_slice. Without it, say so.
  if (p.stagedOneCtaPerSm && !p.anySlice)
    p.notes.push_back("the staged kernel runs one CTA per SM at this N (its row fills an SM), where a "
                      "cluster's higher occupancy can win (measured on the H200: by up to 14%); give "
                      "--t-slice (or --measure-tB, which measures it) to price it as T_occ");

  std::vector<std::string> missing;
  for (Protocol proto : {Protocol::Sync, Protocol::Mbarrier}) {
    for (const LegalityAtN &l : facts.legality) {
      if (l.P < 2)
        continue;
      Candidate c;
      c.protocol = proto;
      c.P = l.P;
      c.legal = proto == Protocol::Sync ? l.legalSync : l.legalMbarrier;
      c.smemBytes = proto == Protocol::Sync ? l.smemSync : l.smemMbarrier;
      c.slice = ::credit::sliceElems(query.N, l.P);
      c.clustersPerWave = profile.sms / l.P;
      if (!c.legal) {
        c.note = "not legal (Eq. 3)";
        p.candidates.push_back(c);
        continue;
      }
      if (c.clustersPerWave < 1) {
        c.note = formatv("a cluster of {0} needs more than the device's {1} SMs", l.P, profile.sms);
        p.candidates.push_back(c);
        continue;
      }
      const std::map<int, double> &dsm =
          proto == Protocol::Sync ? profile.dsmemStoreBpc : profile.dsmemStoreAsyncBpc;
      auto rate = dsm.find(l.P);
      if (rate == dsm.end()) {
        c.note = formatv("no rates_Bpc.{0}.\"{1}\" in the profile",
                         proto == Protocol::Sync ? "dsmem_store" : "dsmem_store_async", l.P)
                     .str();
        missing.push_back(c.note);
        p.candidates.push_back(c);
        continue;
      }
      Expected<CtrlLookup> ctrl =
          lookupControl(profile, facts, proto, l.P, query.M, query.N);
      if (!ctrl) {
        c.note = toString(ctrl.takeError());
        missing.push_back(c.note);
        p.candidates.push_back(c);
        continue;
      }
      c.tCtrl = ctrl->ms;
      c.ctrlSource = ctrl->source;
      c.ctrlDetail = ctrl->detail;
      // Eq. 8 with one CTA per SM (W waves of floor(S / P) concurrent
      // clusters), the deposit-overlap rule, Eq. 9: credit/runtime/Model.h.
      auto slice = stagedBaseline ? query.tSliceMs.find(l.P) : query.tSliceMs.end();
      c.tSlice = slice != query.tSliceMs.end() ? slice->second : 0.0;
      const ::credit::model::CandidateTerms t = ::credit::model::candidateTerms(
          rates, traffic, base, l.P, query.M, c.slice, rate->second, c.tCtrl,
          ::credit::model::occupancySaving(stagedBaseline, query.tBMs, c.tSlice));
      c.tOcc = t.tOcc;
      c.W = t.W;
      c.replayBytesPerCta = t.replayBytesPerCta;
      c.dsmBytesPerCta = t.dsmBytesPerCta;
      c.depositBytesPerCta = t.depositBytesPerCta;
      c.tReplay = t.tReplay;
      c.tDSM = t.tDSM;
      c.tSmemW = t.tSmemW;
      c.tDeposit = t.tDeposit;
      c.deltaT = t.deltaT;
      c.evaluated = true;
      p.candidates.push_back(c);
    }
  }

  // Where the cluster launcher runs the persistent form (mbarrier protocol,
  // float4 rows; credit::usePersistent, as the generated launcher decides it
  // with this device's SMEM sizes), say so: the terms price one row per
  // cluster. The launcher tries it before the partial-retention form.
  std::map<int, ::credit::PersistentRing> persistentAtP;
  if (facts.hasPersistentForm && profile.smemPerSmBytes > 0 && profile.smemOptinBytes > 0 && query.N % 4 == 0) {
    const bool halves = !facts.persistentKeptReadLate;
    for (const Candidate &c : p.candidates)
      if (c.legal && c.P >= 2 && c.protocol == Protocol::Mbarrier &&
          ::credit::usePersistent(facts.persistentGeometry, facts.persistentHoisted, facts.geometry.threads, query.N,
                                  c.P, profile.smemPerSmBytes, profile.smemOptinBytes, halves))
        persistentAtP[c.P] = ::credit::persistentRing(facts.persistentGeometry, query.N, c.P,
                                                      profile.smemOptinBytes, halves);
    std::string ps;
    for (const auto &[P, ring] : persistentAtP)
      ps += (ps.empty() ? "" : "; ") +
            formatv("P = {0} ({1} {2} units)", P, ring.units, ring.pieces == 2 ? "half-slice" : "whole-slice").str();
    if (!ps.empty())
      p.notes.push_back(formatv("the cluster launcher runs the persistent form at {0}, mbarrier protocol, "
                                "16-byte-aligned rows: each resident cluster takes several rows and copies the "
                                "next rows' slices through a ring of SMEM units while it works on one "
                                "(docs/codegen.md); no term prices that overlap, so dT understates the clustered "
                                "kernel there",
                                ps)
                            .str());
  }

  // Where the cluster launcher runs the partial-retention form instead of the
  // one the terms describe (credit::usePartialRetention, as the generated
  // launcher decides it with this device's SMEM sizes), say so.
  if (facts.hasPartialForm && profile.smemPerSmBytes > 0 && profile.smemOptinBytes > 0) {
    std::map<int, std::string> protocolsAtP; // P -> "sync, mbarrier"
    for (const Candidate &c : p.candidates) {
      if (!c.legal || c.P < 2 || c.clustersPerWave < 1)
        continue;
      if (c.protocol == Protocol::Mbarrier && persistentAtP.count(c.P))
        continue;  // the persistent form runs there (aligned rows)
      const long long partialSmem =
          ::credit::smemBytes(facts.partialGeometry, query.N, c.P, c.protocol);
      if (!::credit::usePartialRetention(c.smemBytes, partialSmem, c.P, facts.partialDroppedReadLate,
                                         profile.smemPerSmBytes, profile.smemOptinBytes))
        continue;
      std::string &protos = protocolsAtP[c.P];
      protos += (protos.empty() ? "" : ", ") + std::string(protocolName(c.protocol));
    }
    std::string ps;
    for (const auto &[P, protos] : protocolsAtP)
      ps += (ps.empty() ? "" : "; ") + formatv("P = {0} ({1})", P, protos).str();
    if (!ps.empty())
      p.notes.push_back(formatv("the cluster launcher runs the partial-retention form at {0}: {1} is re-read "
                                "from L2 instead of retained, so more CTAs fit per SM (docs/codegen.md); "
                                "T_ctrl was calibrated with the full form's footprint and no term prices "
                                "the second read",
                                ps, facts.partialDropped)
                            .str());
  }

  auto better = [&](std::optional<size_t> cur, size_t i) {
    return !cur || p.candidates[i].deltaT > p.candidates[*cur].deltaT;
  };
  bool anyLegal = false;
  for (size_t i = 0; i < p.candidates.size(); ++i) {
    const Candidate &c = p.candidates[i];
    anyLegal |= c.legal;
    if (!c.evaluated)
      continue;
    if (better(p.chosen, i))
      p.chosen = i;
    std::optional<size_t> &perProto =
        c.protocol == Protocol::Sync ? p.chosenSync : p.chosenMbarrier;
    if (better(perProto, i))
      perProto = i;
  }
  if (!anyLegal) {
    p.verdict = "no legal cluster size";
    return p;
  }
  if (!p.chosen) {
    std::string all;
    for (const std::string &m : missing)
      all += "\n  " + m;
    return err("the profile cannot evaluate any legal cluster size:" + all);
  }
  p.profitable = p.candidates[*p.chosen].deltaT > 0;
  p.verdict = p.profitable ? "profitable" : "not profitable";
  return p;
}

//===----------------------------------------------------------------------===//
// Output.
//===----------------------------------------------------------------------===//

namespace {
/// "+0.0612" / "-0.0040": the sign of dT is the verdict, so it is always shown.
std::string signedMs(double v) {
  return (v >= 0 ? "+" : "") + formatv("{0:F4}", v).str();
}
} // namespace

void credit::model::printPrediction(const Prediction &p, raw_ostream &os) {
  const Query &q = p.query;
  os << formatv("prediction for '{0}' at M = {1}, N = {2} (target {3})\n", p.kernel, q.M, q.N,
                p.targetArch);
  os << formatv("profile: {0} ({1}): S = {2} SMs, f = {3:F1} MHz, B_SMEM^r = {4:F2} B/clk, "
                "B_SMEM^w = {5:F2} B/clk\n",
                p.deviceName, p.profilePath, p.sms, p.smClockMHz, p.smemReadBpc, p.smemWriteBpc);
  os << formatv("baseline: {0} kernel{1}, T_B = {2:F4} ms\n", p.baselineKernel,
                p.baselineAuto ? (p.baselineKernel == "staged"
                                      ? " (selected: Eq. 3 allows P = 1)"
                                      : " (selected: the row does not fit one CTA)")
                               : "",
                q.tBMs);
  const bool staged = p.baselineKernel == "staged";
  if (staged)  // each input read once: b_B - b_reread
    os << formatv("  D_base    = M (N (b_B - b_reread {0} + D_fixed {1}) + {2}) = {3:F0} B        (Eq. 5)\n",
                  p.bBase - p.bReread, p.dFixedPerElement, p.dFixedPerRow, p.dBaseBytes);
  else
    os << formatv("  D_base    = M (N (b_B {0} + D_fixed {1}) + {2}) = {3:F0} B        (Eq. 5)\n",
                  p.bBase, p.dFixedPerElement, p.dFixedPerRow, p.dBaseBytes);
  os << formatv("  R_B       = D_base / T_B = {0:F1} GB/s                            (Eq. 7)\n",
                p.rateBytesPerMs / 1e6);
  if (staged)
    os << formatv("  T_saved   = 0 ms (the staged kernel rereads nothing from HBM)\n");
  else
    os << formatv("  T_saved   = M N b_reread {0} / R_B = {1:F4} ms\n", p.bReread, p.tRereadSaved);
  os << formatv("  T_input   = M N b_keep {0} / R_B = {1:F4} ms\n", p.bKeep, p.tInput);
  if (p.anySlice)
    os << "  T_occ(P)  = T_B - T_slice(P), T_slice: the staged kernel (SMEM form) at M*P rows of slice(N, P)\n";
  os << "\n";
  os << formatv("  {0,-9} {1,3} {2,-5} {3,8} {4,5} {5,10} {6,-13} {7,10} {8,10} {9,10} {10,10} "
                "{11,10}\n",
                "protocol", "P", "Eq.3", "smem B", "W", "T_ctrl", "(source)", "T_replay", "T_DSM",
                "T_SMEM^w", "T_deposit", "dT (ms)");
  for (size_t i = 0; i < p.candidates.size(); ++i) {
    const Candidate &c = p.candidates[i];
    os << formatv("  {0,-9} {1,3} {2,-5} {3,8} ", protocolName(c.protocol), c.P,
                  c.legal ? "yes" : "no", c.smemBytes);
    if (!c.evaluated) {
      os << "  not evaluated: " << c.note << "\n";
      continue;
    }
    os << formatv("{0,5} {1,10:F4} {2,-13} {3,10:F4} {4,10:F6} {5,10:F4} {6,10:F4} {7,10}{8}\n",
                  c.W, c.tCtrl, c.ctrlSource, c.tReplay, c.tDSM, c.tSmemW, c.tDeposit,
                  signedMs(c.deltaT), p.chosen && *p.chosen == i ? "  <-" : "");
  }
  if (p.anySlice) {
    os << "\n  T_occ per P (added to dT above):";
    std::set<int> shown; // T_occ depends on P only
    for (const Candidate &c : p.candidates)
      if (c.evaluated && shown.insert(c.P).second)
        os << formatv(c.tSlice > 0 ? "  P = {0}: {1:F4} - {2:F4} = {3}" : "  P = {0}: not measured",
                      c.P, q.tBMs, c.tSlice, signedMs(c.tOcc));
    os << "\n";
  }
  os << "\n";
  for (const std::string &n : p.notes)
    os << "note: " << n << "\n";
  for (const Candidate &c : p.candidates)
    if (c.evaluated && c.ctrlSource != "measured")
      os << formatv("note: T_ctrl for {0} P = {1} is {2} ({3})\n", protocolName(c.protocol), c.P,
                    c.ctrlSource, c.ctrlDetail);
  if (!p.chosen) {
    os << formatv("verdict: {0}: Eq. 3 allows no cluster size at N = {1}\n", p.verdict, q.N);
    return;
  }
  const Candidate &c = p.candidates[*p.chosen];
  if (c.tSlice > 0)
    os << formatv("chosen: P = {0}, {1} protocol: dT = T_saved + T_occ - T_ctrl - T_replay - T_DSM - "
                  "T_deposit = {2:F4} + {3:F4} - {4:F4} - {5:F4} - {6:F6} - {7:F4} = {8} ms\n",
                  c.P, protocolName(c.protocol), p.tRereadSaved, c.tOcc, c.tCtrl, c.tReplay, c.tDSM,
                  c.tDeposit, signedMs(c.deltaT));
  else
    os << formatv("chosen: P = {0}, {1} protocol: dT = T_saved - T_ctrl - T_replay - T_DSM - "
                  "T_deposit = {2:F4} - {3:F4} - {4:F4} - {5:F6} - {6:F4} = {7} ms\n",
                  c.P, protocolName(c.protocol), p.tRereadSaved, c.tCtrl, c.tReplay, c.tDSM,
                  c.tDeposit, signedMs(c.deltaT));
  os << formatv("verdict: {0} (predicted clustered time T_B - dT = {1:F4} ms, {2:F3}x)\n",
                p.verdict, q.tBMs - c.deltaT, q.tBMs / (q.tBMs - c.deltaT));
}

json::Value credit::model::predictionToJSON(const Prediction &p) {
  json::Array cands;
  for (const Candidate &c : p.candidates) {
    json::Object o{{"protocol", protocolName(c.protocol)},
                   {"P", c.P},
                   {"legal", c.legal},
                   {"evaluated", c.evaluated},
                   {"smem_bytes", c.smemBytes},
                   {"slice", c.slice}};
    if (!c.evaluated) {
      o["note"] = c.note;
    } else {
      o["clusters_per_wave"] = c.clustersPerWave;
      o["W"] = c.W;
      o["T_ctrl_ms"] = c.tCtrl;
      o["T_ctrl_source"] = c.ctrlSource;
      if (!c.ctrlDetail.empty())
        o["T_ctrl_detail"] = c.ctrlDetail;
      o["replay_bytes_per_cta"] = c.replayBytesPerCta;
      o["dsm_bytes_per_cta"] = c.dsmBytesPerCta;
      o["deposit_bytes_per_cta"] = c.depositBytesPerCta;
      o["T_replay_ms"] = c.tReplay;
      o["T_DSM_ms"] = c.tDSM;
      o["T_SMEM_w_ms"] = c.tSmemW;
      o["T_deposit_ms"] = c.tDeposit;
      if (c.tSlice > 0) {
        o["T_slice_ms"] = c.tSlice;
        o["T_occ_ms"] = c.tOcc;
      }
      o["delta_T_ms"] = c.deltaT;
    }
    cands.push_back(std::move(o));
  }
  auto choice = [&](std::optional<size_t> i) -> json::Value {
    if (!i)
      return nullptr;
    const Candidate &c = p.candidates[*i];
    return json::Object{{"protocol", protocolName(c.protocol)},
                        {"P", c.P},
                        {"delta_T_ms", c.deltaT},
                        {"predicted_ms", p.query.tBMs - c.deltaT}};
  };
  json::Array notes;
  for (const std::string &n : p.notes)
    notes.push_back(n);
  return json::Object{
      {"kernel", p.kernel},
      {"M", p.query.M},
      {"N", p.query.N},
      {"target", p.targetArch},
      {"T_B_ms", p.query.tBMs},
      {"baseline", p.baselineKernel},
      {"baseline_selected", p.baselineAuto},
      {"profile",
       json::Object{{"path", p.profilePath},
                    {"device", p.deviceName},
                    {"arch", p.profileArch},
                    {"sms", p.sms},
                    {"sm_clock_MHz", p.smClockMHz},
                    {"smem_read_Bpc", p.smemReadBpc},
                    {"smem_write_Bpc", p.smemWriteBpc}}},
      {"bytes_per_element",
       json::Object{{"baseline", p.bBase},
                    {"reread", p.bReread},
                    {"keep", p.bKeep},
                    {"fixed_broadcast", p.dFixedPerElement}}},
      {"fixed_bytes_per_row", p.dFixedPerRow},
      {"D_base_bytes", p.dBaseBytes},
      {"R_B_GBps", p.rateBytesPerMs / 1e6},
      {"T_reread_saved_ms", p.tRereadSaved},
      {"T_input_ms", p.tInput},
      {"staged_one_cta_per_sm", p.stagedOneCtaPerSm},
      {"candidates", std::move(cands)},
      {"chosen", choice(p.chosen)},
      {"chosen_sync", choice(p.chosenSync)},
      {"chosen_mbarrier", choice(p.chosenMbarrier)},
      {"profitable", p.profitable},
      {"verdict", p.verdict},
      {"notes", std::move(notes)},
  };
}
