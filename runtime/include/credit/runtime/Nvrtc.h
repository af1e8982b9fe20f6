// credit/runtime/Nvrtc.h -- compile generated CUDA source to a cubin with NVRTC.
//
// Needs only libnvrtc (no GPU, no libcuda). Never throws or aborts on a compile
// error: the result carries ok == false and the NVRTC log.
#ifndef CREDIT_RUNTIME_NVRTC_H
#define CREDIT_RUNTIME_NVRTC_H

#include <string>
#include <utility>
#include <vector>

namespace credit {

struct NvrtcOptions {
  std::string arch = "sm_90";              // --gpu-architecture=<arch>; an sm_* arch yields a cubin
  std::vector<std::string> includeDirs;    // empty: $CUDA_HOME/include and $CUDA_HOME/include/cccl
                                           // (CUDA_HOME, else the toolkit found at build time,
                                           //  else /usr/local/cuda)
  std::vector<std::string> defines;        // "NAME" or "NAME=VALUE" (passed as -D...)
  std::vector<std::string> extraFlags;     // passed verbatim, after the defaults
  std::vector<std::string> nameExpressions;  // e.g. "my_kernel<4>": instantiated and lowered
  bool ptxasVerbose = true;                // --ptxas-options=-v (fills NvrtcResult::kernels)
  bool libraryHeaders = true;              // the device library as NVRTC headers (Library.h): a
                                           // source #includes <credit/device/...> with no -I
};

// Parsed from ptxas -v lines of the NVRTC log; -1 where ptxas did not report it.
struct KernelResources {
  std::string name;          // as ptxas prints it (mangled unless extern "C")
  int registers = -1;        // "Used N registers"
  int barriers = -1;         // "used N barriers"
  int stackFrameBytes = -1;  // "N bytes stack frame"
  int spillStoreBytes = -1;  // "N bytes spill stores"
  int spillLoadBytes = -1;   // "N bytes spill loads"
  int cumulativeStackBytes = -1;  // "N bytes cumulative stack size" (includes callees)
  int sharedBytes = 0;       // "N bytes smem" (static SMEM; absent line -> 0)
  int constBytes = 0;        // sum of "N bytes cmem[k]"
};

struct NvrtcResult {
  bool ok = false;
  std::string log;                          // NVRTC program log (diagnostics + ptxas -v)
  std::vector<char> cubin;                  // empty unless ok and arch is sm_*
  std::vector<KernelResources> kernels;     // entry functions, in log order
  std::vector<KernelResources> functions;   // non-entry functions with their own
                                            // "Function properties" (stack/spill only)
  std::vector<std::pair<std::string, std::string>> loweredNames;  // nameExpression -> mangled
  std::vector<std::string> flags;           // the exact options passed to NVRTC
  std::string nvrtcVersion;                 // "13.0"
};

NvrtcResult compileToCubin(const std::string& source, const std::string& name,
                           const NvrtcOptions& options = NvrtcOptions());

// "major.minor" of the linked NVRTC.
std::string nvrtcVersionString();

// The exact options compileToCubin passes to NVRTC for `options`, in order
// (the kernel cache hashes them).
std::vector<std::string> nvrtcFlags(const NvrtcOptions& options);

// Parses ptxas -v output (exposed for tests). Entries go to `kernels`,
// properties of other functions to `functions`.
void parsePtxasLog(const std::string& log, std::vector<KernelResources>& kernels,
                   std::vector<KernelResources>& functions);

// The include dirs used when NvrtcOptions::includeDirs is empty.
std::vector<std::string> defaultNvrtcIncludeDirs();

}  // namespace credit

#endif  // CREDIT_RUNTIME_NVRTC_H
