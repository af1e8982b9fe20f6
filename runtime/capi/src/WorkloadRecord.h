// The launchers' description of a generated file's workload (credit::host::Workload,
// which the file's host section builds with describe<Workload>), made by NVRTC from the
// same Contract<Workload> the kernels use: recordSuffix() is appended to the source,
// the compiled image holds the record, decodeRecord() reads it back.
#ifndef CREDIT_CAPI_WORKLOAD_RECORD_H
#define CREDIT_CAPI_WORKLOAD_RECORD_H

#include "GeneratedFile.h"

#include "credit/runtime/LaunchSpec.h"

#include <string>
#include <vector>

namespace credit::capi {

inline constexpr int kRecordMagic = 0x43524543;  // "CERC"
inline constexpr int kRecordVersion = 3;
inline constexpr int kRecordMaxKernels = 64;
// magic, version, 4 geometries x 6 (narrow, wide, partial, reread), 4 flags, numArgs, numParams, argKind[32],
// argBytes[32], numKernels, form[64], vec[64]
inline constexpr int kRecordInts = 2 + 24 + 4 + 2 + 2 * host::kMaxArgs + 1 + 2 * kRecordMaxKernels;

// The record's symbol in the cubin: credit_capi_record_<kernel>.
std::string recordSymbol(const GeneratedFile& file);

// The lines appended to the generated file before NVRTC compiles it.
std::string recordSuffix(const GeneratedFile& file);

// The workload of the record (without its kernel table and row-claim counter) and the
// form and vector width of every kernel line, in order. "" or an error message.
struct DecodedRecord {
  host::Workload workload{};
  std::vector<Form> forms;
  std::vector<int> vecs;
};
std::string decodeRecord(const std::vector<char>& bytes, const GeneratedFile& file, DecodedRecord& out);

}  // namespace credit::capi

#endif  // CREDIT_CAPI_WORKLOAD_RECORD_H
