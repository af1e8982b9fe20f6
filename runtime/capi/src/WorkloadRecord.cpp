#include "WorkloadRecord.h"

#include <cstring>

namespace credit::capi {

std::string recordSymbol(const GeneratedFile& file) { return "credit_capi_record_" + file.kernel; }

std::string recordSuffix(const GeneratedFile& file) {
  const std::string ns = "credit_capi_" + file.kernel;
  std::string forms, vecs;
  for (const KernelLine& k : file.kernels) {
    forms += "static_cast<int>(credit::Form::" + k.form + "), ";
    vecs += std::to_string(k.vec) + ", ";
  }
  const int n = static_cast<int>(file.kernels.size());
  // The kernels' workload type, and the reread kernels' (their own where their stages differ).
  std::string workload, rereadWorkload;
  for (const KernelLine& k : file.kernels) {
    if (k.form == "Reread") rereadWorkload = k.workload;
    else if (workload.empty()) workload = k.workload;
  }
  if (workload.empty()) workload = rereadWorkload;
  if (rereadWorkload.empty()) rereadWorkload = workload;
  // Mirrors credit::host::describe (LaunchSpec.h) field by field.
  return std::string(R"(
// ---- appended by the credit C API: the launchers' description of the workload ----
namespace )") + ns + R"( {
struct Record {
  int v[)" + std::to_string(kRecordInts) + R"(];
};
template <class W, class WR>
__host__ __device__ constexpr Record makeRecord() {
  using C = credit::device::Contract<W>;
  constexpr int forms[] = {)" + forms + R"(};
  constexpr int vecs[] = {)" + vecs + R"(};
  Record r{};
  int i = 0;
  r.v[i++] = )" + std::to_string(kRecordMagic) + R"(;
  r.v[i++] = )" + std::to_string(kRecordVersion) + R"(;
  const credit::WorkloadGeometry g[4] = {C::narrowGeometry(), C::wideGeometry(), C::partialGeometry(),
                                         credit::device::Contract<WR>::narrowGeometry()};
  for (int k = 0; k < 4; ++k) {
    r.v[i++] = g[k].keepBytesPerElem;
    r.v[i++] = g[k].numStages;
    r.v[i++] = g[k].qMax;
    r.v[i++] = g[k].qSum;
    r.v[i++] = g[k].threads;
    r.v[i++] = g[k].hOnlyArrays;
  }
  r.v[i++] = W::kPartialDrop >= 0 ? 1 : 0;
  r.v[i++] = W::kPartialDropReadLate ? 1 : 0;
  r.v[i++] = C::anyKeptReadLate() ? 1 : 0;
  r.v[i++] = credit::device::popcount(W::kHoisted);
  r.v[i++] = C::kNumInputs + C::kNumOutputs;
  r.v[i++] = C::kNumParams;
  const int kinds = i, bytes = i + )" + std::to_string(host::kMaxArgs) + R"(;
  for (int a = 0; a < C::kNumInputs; ++a) {
    const credit::device::Operand o = W::kInputs[a];
    r.v[kinds + a] = o.kind == credit::device::Kind::Row ? 0 : o.kind == credit::device::Kind::Broadcast ? 1 : 2;
    r.v[bytes + a] = credit::device::elemBytes(o.elem);
  }
  for (int a = 0; a < C::kNumOutputs; ++a) {
    const credit::device::Operand o = W::kOutputs[a];
    r.v[kinds + C::kNumInputs + a] = o.kind == credit::device::Kind::Row ? 0 : 2;
    r.v[bytes + C::kNumInputs + a] = credit::device::elemBytes(o.elem);
  }
  for (int a = C::kNumInputs + C::kNumOutputs; a < C::kNumInputs + C::kNumOutputs + C::kNumParams; ++a) {
    r.v[kinds + a] = 3;  // a runtime param: its value's address, 4-byte aligned
    r.v[bytes + a] = 4;
  }
  i = bytes + )" + std::to_string(host::kMaxArgs) + R"(;
  r.v[i++] = )" + std::to_string(n) + R"(;
  for (int k = 0; k < )" + std::to_string(n) + R"(; ++k) {
    r.v[i + k] = forms[k];
    r.v[i + )" + std::to_string(kRecordMaxKernels) + R"( + k] = vecs[k];
  }
  return r;
}
}  // namespace )" + ns + R"(
extern "C" __device__ const )" + ns + "::Record " + recordSymbol(file) + " = " + ns + "::makeRecord<" +
         workload + ", " + rereadWorkload + ">();\n";
}

std::string decodeRecord(const std::vector<char>& bytes, const GeneratedFile& file, DecodedRecord& out) {
  if (bytes.size() != sizeof(int) * kRecordInts) return "the workload record has an unexpected size";
  std::vector<int> v(kRecordInts);
  std::memcpy(v.data(), bytes.data(), bytes.size());
  if (v[0] != kRecordMagic || v[1] != kRecordVersion) return "the workload record has an unexpected format";
  int i = 2;
  host::Workload& w = out.workload;
  w = host::Workload{};
  WorkloadGeometry* g[4] = {&w.geometry, &w.wideGeometry, &w.partialGeometry, &w.rereadGeometry};
  for (WorkloadGeometry* x : g) {
    x->keepBytesPerElem = v[i++];
    x->numStages = v[i++];
    x->qMax = v[i++];
    x->qSum = v[i++];
    x->threads = v[i++];
    x->hOnlyArrays = v[i++];
  }
  w.hasPartial = v[i++] != 0;
  w.partialDropReadLate = v[i++] != 0;
  w.keptReadLate = v[i++] != 0;
  w.hoisted = v[i++];
  w.numArgs = v[i++];
  w.numParams = v[i++];
  if (w.numArgs < 2 || w.numParams < 0 || w.numArgs + w.numParams > host::kMaxArgs)
    return "the workload record has a bad argument count";
  for (int a = 0; a < host::kMaxArgs; ++a) {
    w.argKind[a] = v[i + a];
    w.argBytes[a] = v[i + host::kMaxArgs + a];
  }
  i += 2 * host::kMaxArgs;
  const int n = v[i++];
  if (n != static_cast<int>(file.kernels.size())) return "the workload record lists another number of kernels";
  out.forms.clear();
  out.vecs.clear();
  for (int k = 0; k < n; ++k) {
    const int f = v[i + k];
    if (f < 0 || f >= kNumForms) return "the workload record has an unknown form";
    out.forms.push_back(static_cast<Form>(f));
    out.vecs.push_back(v[i + kRecordMaxKernels + k]);
  }
  const TargetInfo t = findTarget(file.arch.empty() ? "sm_90" : file.arch.c_str());
  w.target = t.arch != nullptr ? t : findTarget("sm_90");
  w.kernels = nullptr;
  w.numKernels = 0;
  w.rowClaims = nullptr;
  return "";
}

}  // namespace credit::capi
