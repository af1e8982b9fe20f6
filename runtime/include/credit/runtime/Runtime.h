// credit/runtime/Runtime.h -- a small CUDA driver-API layer for loading and
// launching generated kernels.
//
// libcuda is NOT linked: the driver is dlopen()ed at run time ("libcuda.so.1",
// or $CREDIT_LIBCUDA), so binaries using this start, and report a clean
// Status, on machines without a GPU driver. Only the *types* of <cuda.h> are
// used. No exceptions: every call returns a Status (or Expected<T>).
//
// Handles (Runtime, Module, Function, DeviceBuffer) are reference-counted:
// copies share the underlying object, which is released by the last copy
// (a Module is unloaded, a DeviceBuffer freed, the retained primary context
// released). A Function keeps its Module loaded, and every handle keeps its
// device context alive. The primary context is shared with the CUDA runtime
// API (cudart) of the same process. Calls may come from any thread: each
// makes the runtime's context current first.
#ifndef CREDIT_RUNTIME_RUNTIME_H
#define CREDIT_RUNTIME_RUNTIME_H

#include "credit/runtime/KernelCache.h"
#include "credit/runtime/Nvrtc.h"

#include <cuda.h>  // types only (CUstream, CUdeviceptr, ...); libcuda is never linked

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace credit {

struct Status {
  enum Code : int {
    kOk = 0,
    // Positive codes are CUresult values returned by the driver.
    kNoDriver = -1,         // libcuda.so.1 missing, a stub, or lacking symbols
    kNoDevice = -2,         // cuInit failed, no device, or ordinal out of range
    kInvalidArgument = -3,  // empty cubin, invalid handle, ...
    kInvalidLaunch = -4,    // launch configuration rejected before launching
    kCompileError = -5,     // NVRTC failed (message holds the log)
    kNotInitialized = -6,   // the Runtime was not created (Runtime::create)
  };
  int code = kOk;
  // Error text; on success it may hold a warning (e.g. a kernel-cache bypass).
  std::string message;

  bool ok() const { return code == kOk; }
  explicit operator bool() const { return ok(); }
  static Status success(std::string warning = std::string()) { return {kOk, std::move(warning)}; }
  static Status error(int code, std::string message) { return {code, std::move(message)}; }
};

template <class T>
struct Expected {
  Status status;
  T value{};
  bool ok() const { return status.ok(); }
  explicit operator bool() const { return ok(); }
};

struct DeviceInfo {
  int ordinal = -1;
  std::string name;
  int ccMajor = 0, ccMinor = 0;
  int smCount = 0;
  int smemOptinBytes = 0;  // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
  int smemPerSmBytes = 0;  // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR
  int l2Bytes = 0;
  int clockKHz = 0;     // -1 where the driver does not report it
  int memClockKHz = 0;  // -1 where the driver does not report it
  int memBusWidth = 0;  // bits; -1 where the driver does not report it
  int maxThreadsPerBlock = 0;
  bool clusterLaunch = false;  // CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH (sm_90+)
  int driverVersion = 0;       // cuDriverGetVersion, e.g. 13000
};

// How the hardware places the CTAs of a cluster on SMs
// (CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE, same values as
// CUclusterSchedulingPolicy). The launchers ask for LoadBalancing for every
// cluster form but the partial one (credit::clusterLoadBalancing, FormPolicy.h).
enum class ClusterPolicy : int { Default = 0, Spread = 1, LoadBalancing = 2 };

struct LaunchConfig {
  unsigned gridX = 1;         // CTAs (a multiple of clusterX)
  unsigned blockX = 1;        // threads per CTA
  std::size_t smemBytes = 0;  // dynamic shared memory per CTA
  unsigned clusterX = 1;      // CTAs per cluster; 1 = no cluster attribute
  CUstream stream = nullptr;
  ClusterPolicy clusterPolicy = ClusterPolicy::Default;  // clusterX > 1 only; Default: no attribute
};

namespace detail {
struct DeviceState;
struct ModuleState;
struct FunctionState;
struct BufferState;
}  // namespace detail

class Module {
 public:
  bool valid() const { return state_ != nullptr; }
  CUmodule handle() const;
  void reset() { state_.reset(); }  // unloads when this was the last reference

 private:
  friend class Runtime;
  std::shared_ptr<detail::ModuleState> state_;
};

class Function {
 public:
  bool valid() const { return state_ != nullptr; }
  CUfunction handle() const;
  const std::string& name() const;
  int numRegisters() const;        // CU_FUNC_ATTRIBUTE_NUM_REGS (-1 if invalid)
  int staticSmemBytes() const;     // CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES (-1 if invalid)
  int maxThreadsPerBlock() const;  // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK (-1 if invalid)

 private:
  friend class Runtime;
  std::shared_ptr<detail::FunctionState> state_;
};

class DeviceBuffer {
 public:
  bool valid() const { return state_ != nullptr; }
  CUdeviceptr ptr() const;  // 0 if invalid
  std::size_t size() const;
  void reset() { state_.reset(); }  // frees when this was the last reference

 private:
  friend class Runtime;
  std::shared_ptr<detail::BufferState> state_;
};

class Runtime {
 public:
  Runtime() = default;  // not created: every call returns kNotInitialized

  // Loads the driver (dlopen), cuInit, retains device `deviceOrdinal`'s
  // primary context and queries DeviceInfo. Fails with kNoDriver
  // ("no CUDA driver (libcuda.so.1 not found) ...") or kNoDevice
  // ("no CUDA device ...") where there is none; `out` is left uncreated then
  // (it is reset first). Repeated creates share the device's primary context.
  static Status create(Runtime& out, int deviceOrdinal = 0);

  bool valid() const { return state_ != nullptr; }
  const DeviceInfo& device() const;  // default DeviceInfo if !valid()
  std::string arch() const;          // "sm_<major><minor>", e.g. "sm_90"; "" if !valid()
  CUcontext context() const;

  // `cubin`: a cubin or fatbin image (PTX text is accepted too and JIT-compiled
  // by the driver). Unloaded when the last Module/Function copy goes away.
  Status loadModule(const std::vector<char>& cubin, Module& out);
  Status getFunction(const Module& module, const std::string& name, Function& out);

  // cuOccupancyMaxPotentialClusterSize for a launch of `fn` with this block
  // size and dynamic SMEM, after allowing non-portable cluster sizes and
  // raising MAX_DYNAMIC_SHARED_SIZE_BYTES to smemBytes (when > 48 KiB).
  // Cached per (blockX, smemBytes) on the Function.
  Expected<int> maxClusterSize(const Function& fn, unsigned gridX, unsigned blockX,
                               std::size_t smemBytes);

  // Validates `cfg` (grid/block >= 1, block <= the kernel's max threads,
  // grid a multiple of clusterX, clusters supported, dynamic + static SMEM <=
  // the opt-in limit, clusterX <= maxClusterSize) and returns kInvalidLaunch
  // without launching when it is not met. Then sets MAX_DYNAMIC_SHARED_SIZE_BYTES
  // (smemBytes > 48 KiB) and NON_PORTABLE_CLUSTER_SIZE_ALLOWED (clusterX > 8)
  // and calls cuLaunchKernelEx (with CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
  // {clusterX,1,1} when clusterX > 1). Asynchronous: errors of the kernel
  // itself surface at synchronize().
  Status launch(const Function& fn, const LaunchConfig& cfg, void** args);

  // compileCached(source, name, options with arch = arch(), cache) and
  // loadModule. On success the Status message carries the cache warning, if
  // any; `compileResult` (optional) receives the full compile result (log,
  // ptxas resources, lowered names, fromCache).
  Status jitCompileAndLoad(const std::string& source, const std::string& name, Module& out,
                           const NvrtcOptions& options = NvrtcOptions(),
                           const CacheOptions& cache = CacheOptions(),
                           CachedNvrtcResult* compileResult = nullptr);

  // Times `fn`: `warmups` untimed launches, then `reps` launches each between
  // two CUDA events on cfg.stream, each preceded (outside the events) by a
  // cuMemsetD8 of `flushBytes` scratch bytes (0: none) that evicts the L2.
  // Returns the median in ms (and the minimum in *minMs). reps in [1, 1000].
  Expected<double> timeLaunches(const Function& fn, const LaunchConfig& cfg, void** args,
                                int warmups, int reps, std::size_t flushBytes,
                                double* minMs = nullptr);

  Status allocate(std::size_t bytes, DeviceBuffer& out);
  Status copyToDevice(CUdeviceptr dst, const void* src, std::size_t bytes);
  Status copyToHost(void* dst, CUdeviceptr src, std::size_t bytes);
  // cuStreamSynchronize(stream), or cuCtxSynchronize() for stream == nullptr.
  Status synchronize(CUstream stream = nullptr);

 private:
  std::shared_ptr<detail::DeviceState> state_;
};

// The library Runtime::create opens: $CREDIT_LIBCUDA if set, else "libcuda.so.1".
std::string cudaDriverLibraryName();

// The driver symbols the runtime uses, by their exported (ABI) names
// (e.g. "cuMemAlloc_v2").
std::vector<std::string> cudaDriverSymbolNames();

// dlopen()s `libraryPath` (without calling cuInit) and returns the symbols of
// cudaDriverSymbolNames() it lacks, or {"dlopen: <error>"} when it cannot be
// opened. For tests (e.g. against the toolkit's stub libcuda.so).
std::vector<std::string> missingCudaDriverSymbols(const std::string& libraryPath);

}  // namespace credit

#endif  // CREDIT_RUNTIME_RUNTIME_H
