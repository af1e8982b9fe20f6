// Private: the CUDA driver API resolved at run time with dlopen/dlsym.
// Only <cuda.h>'s declarations are used (for the function types); libcuda is
// never linked.
#ifndef CREDIT_RUNTIME_SRC_CUDA_DRIVER_H
#define CREDIT_RUNTIME_SRC_CUDA_DRIVER_H

#include "credit/runtime/Runtime.h"

#include <cuda.h>

#include <string>

namespace credit::detail {

// X(member, prototype, exported name). `prototype` goes through <cuda.h>'s
// versioning macros (cuMemAlloc -> cuMemAlloc_v2), so the member's type is the
// prototype of exactly the exported symbol named in the third column.
#define CREDIT_CUDA_DRIVER_SYMBOLS(X)                                                   \
  X(init, cuInit, "cuInit")                                                             \
  X(driverGetVersion, cuDriverGetVersion, "cuDriverGetVersion")                         \
  X(getErrorName, cuGetErrorName, "cuGetErrorName")                                     \
  X(getErrorString, cuGetErrorString, "cuGetErrorString")                               \
  X(deviceGetCount, cuDeviceGetCount, "cuDeviceGetCount")                               \
  X(deviceGet, cuDeviceGet, "cuDeviceGet")                                              \
  X(deviceGetAttribute, cuDeviceGetAttribute, "cuDeviceGetAttribute")                   \
  X(deviceGetName, cuDeviceGetName, "cuDeviceGetName")                                  \
  X(devicePrimaryCtxRetain, cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")       \
  X(devicePrimaryCtxRelease, cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2") \
  X(ctxGetCurrent, cuCtxGetCurrent, "cuCtxGetCurrent")                                  \
  X(ctxSetCurrent, cuCtxSetCurrent, "cuCtxSetCurrent")                                  \
  X(ctxSynchronize, cuCtxSynchronize, "cuCtxSynchronize")                               \
  X(moduleLoadData, cuModuleLoadData, "cuModuleLoadData")                               \
  X(moduleGetFunction, cuModuleGetFunction, "cuModuleGetFunction")                      \
  X(moduleUnload, cuModuleUnload, "cuModuleUnload")                                     \
  X(funcSetAttribute, cuFuncSetAttribute, "cuFuncSetAttribute")                         \
  X(funcGetAttribute, cuFuncGetAttribute, "cuFuncGetAttribute")                         \
  X(launchKernelEx, cuLaunchKernelEx, "cuLaunchKernelEx")                               \
  X(occupancyMaxPotentialClusterSize, cuOccupancyMaxPotentialClusterSize,               \
    "cuOccupancyMaxPotentialClusterSize")                                               \
  X(memAlloc, cuMemAlloc, "cuMemAlloc_v2")                                              \
  X(memFree, cuMemFree, "cuMemFree_v2")                                                 \
  X(memcpyHtoD, cuMemcpyHtoD, "cuMemcpyHtoD_v2")                                        \
  X(memcpyDtoH, cuMemcpyDtoH, "cuMemcpyDtoH_v2")                                        \
  X(streamSynchronize, cuStreamSynchronize, "cuStreamSynchronize")                     \
  X(memsetD8, cuMemsetD8, "cuMemsetD8_v2")                                              \
  X(eventCreate, cuEventCreate, "cuEventCreate")                                        \
  X(eventRecord, cuEventRecord, "cuEventRecord")                                        \
  X(eventSynchronize, cuEventSynchronize, "cuEventSynchronize")                         \
  X(eventElapsedTime, cuEventElapsedTime, "cuEventElapsedTime_v2")                      \
  X(eventDestroy, cuEventDestroy, "cuEventDestroy_v2")

struct CudaDriver {
  std::string libraryPath;
  void* handle = nullptr;
  Status status;  // of dlopen + symbol resolution + cuInit
  int driverVersion = 0;

#define CREDIT_CUDA_DRIVER_MEMBER(member, proto, abi) decltype(&::proto) member = nullptr;
  CREDIT_CUDA_DRIVER_SYMBOLS(CREDIT_CUDA_DRIVER_MEMBER)
#undef CREDIT_CUDA_DRIVER_MEMBER

  // "cuFoo: CUDA_ERROR_X (text)" as a Status with code = rc (ok for CUDA_SUCCESS).
  Status check(CUresult rc, const char* what) const;
  std::string errorText(CUresult rc) const;
};

// The driver at `libraryPath`, opened, resolved and cuInit()ed once per path
// per process (never unloaded). Check ->status before using the functions.
const CudaDriver& loadCudaDriver(const std::string& libraryPath);

}  // namespace credit::detail

#endif  // CREDIT_RUNTIME_SRC_CUDA_DRIVER_H
