// A compiled generated file behind the C API: its text's description, its cubin, the
// launchers' workload rebuilt from the cubin's record, and, once loaded into the CUDA
// runtime, the kernel table the launchers and the dispatch read.
#ifndef CREDIT_CAPI_PROGRAM_H
#define CREDIT_CAPI_PROGRAM_H

#include "GeneratedFile.h"
#include "WorkloadRecord.h"

#include "credit/runtime/Dispatch.h"

#include <mutex>
#include <string>
#include <vector>

namespace credit::capi {

struct Program {
  GeneratedFile file;
  DecodedRecord record;
  std::vector<char> cubin;
  std::string info;  // credit_program_info's JSON

  std::mutex mutex;  // guards the load
  bool loaded = false;
  cudaLibrary_t library = nullptr;
  std::vector<host::Kernel> kernels;      // cudaKernel_t handles, once loaded
  std::vector<host::Kernel> placeholder;  // the forms only: what maxLegalN needs before a load
  host::Workload workload{};
  host::Profile profile{};
  host::PlanCache plans;
  host::Dispatch dispatch{};

  // The workload with a kernel table that names the forms (for rules that read no
  // kernel); the loaded one after load().
  host::Workload formsOnly() const;
};

// Parses, compiles (NVRTC with the kernel cache) and decodes; "" or an error message.
std::string createProgram(const std::string& source, const std::string& name, const std::string& arch,
                          const std::string& cacheDir, bool useCache, Program& out);

// cudaLibraryLoadData and the kernel handles; "" or an error message. Idempotent.
std::string loadProgram(Program& p);

// The structural rule of "auto" where the file has no device profile: the staged kernel
// where the row fits one CTA's SMEM, else the cluster kernel at the smallest legal P
// (mbarrier), else the reread kernel. Fills *plan (source 3).
int launchStructural(Program& p, const void* const* args, long long M, long long N, cudaStream_t stream,
                     credit_plan* plan);

}  // namespace credit::capi

#endif  // CREDIT_CAPI_PROGRAM_H
