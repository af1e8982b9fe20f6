// Module loading and cluster launches through the run-time-loaded driver API.
#include "credit/runtime/Runtime.h"

#include "CudaDriver.h"

#include <algorithm>

#include <cstring>
#include <mutex>
#include <utility>

namespace credit {

namespace detail {

constexpr std::size_t kDefaultDynamicSmemLimit = 48 * 1024;

struct DeviceState {
  const CudaDriver* drv = nullptr;
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  DeviceInfo info;

  ~DeviceState() {
    if (ctx) drv->devicePrimaryCtxRelease(dev);
  }
  Status makeCurrent() const {
    CUcontext cur = nullptr;
    if (drv->ctxGetCurrent(&cur) == CUDA_SUCCESS && cur == ctx) return Status::success();
    return drv->check(drv->ctxSetCurrent(ctx), "cuCtxSetCurrent");
  }
};

struct ModuleState {
  std::shared_ptr<DeviceState> dev;
  CUmodule mod = nullptr;
  ~ModuleState() {
    if (mod && dev->makeCurrent().ok()) dev->drv->moduleUnload(mod);
  }
};

struct FunctionState {
  std::shared_ptr<ModuleState> module;
  CUfunction fn = nullptr;
  std::string name;
  int numRegs = -1, staticSmem = -1, maxThreads = -1;

  std::mutex mu;                                       // guards the attribute state below
  std::size_t dynSmemAttr = kDefaultDynamicSmemLimit;  // current MAX_DYNAMIC_SHARED_SIZE_BYTES
  bool nonPortable = false;                            // NON_PORTABLE_CLUSTER_SIZE_ALLOWED set
  struct ClusterQuery {
    unsigned blockX;
    std::size_t smem;
    int maxCluster;
  };
  std::vector<ClusterQuery> clusterQueries;

  const CudaDriver& drv() const { return *module->dev->drv; }

  // Caller holds mu.
  Status ensureDynamicSmem(std::size_t smem) {
    if (smem <= dynSmemAttr) return Status::success();
    Status s =
        drv().check(drv().funcSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                           static_cast<int>(smem)),
                    "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
    if (s.ok()) dynSmemAttr = smem;
    return s;
  }
  Status ensureNonPortable() {
    if (nonPortable) return Status::success();
    Status s = drv().check(
        drv().funcSetAttribute(fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
        "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)");
    if (s.ok()) nonPortable = true;
    return s;
  }
};

struct BufferState {
  std::shared_ptr<DeviceState> dev;
  CUdeviceptr ptr = 0;
  std::size_t size = 0;
  ~BufferState() {
    if (ptr && dev->makeCurrent().ok()) dev->drv->memFree(ptr);
  }
};

}  // namespace detail

namespace {

const DeviceInfo& emptyDeviceInfo() {
  static const DeviceInfo info;
  return info;
}

Status notInitialized() {
  return Status::error(Status::kNotInitialized,
                       "credit::Runtime not created (call Runtime::create)");
}

Status invalidLaunch(const std::string& what) {
  return Status::error(Status::kInvalidLaunch, "invalid launch: " + what);
}

}  // namespace

// ---- handles ----
CUmodule Module::handle() const { return state_ ? state_->mod : nullptr; }
CUfunction Function::handle() const { return state_ ? state_->fn : nullptr; }
const std::string& Function::name() const {
  static const std::string empty;
  return state_ ? state_->name : empty;
}
int Function::numRegisters() const { return state_ ? state_->numRegs : -1; }
int Function::staticSmemBytes() const { return state_ ? state_->staticSmem : -1; }
int Function::maxThreadsPerBlock() const { return state_ ? state_->maxThreads : -1; }
CUdeviceptr DeviceBuffer::ptr() const { return state_ ? state_->ptr : 0; }
std::size_t DeviceBuffer::size() const { return state_ ? state_->size : 0; }

// ---- Runtime ----
Status Runtime::create(Runtime& out, int deviceOrdinal) {
  out.state_.reset();
  const detail::CudaDriver& drv = detail::loadCudaDriver(cudaDriverLibraryName());
  if (!drv.status.ok()) return drv.status;

  int count = 0;
  Status s = drv.check(drv.deviceGetCount(&count), "cuDeviceGetCount");
  if (!s.ok()) return Status::error(Status::kNoDevice, "no CUDA device (" + s.message + ")");
  if (count < 1)
    return Status::error(Status::kNoDevice, "no CUDA device (the driver reports 0 devices)");
  if (deviceOrdinal < 0 || deviceOrdinal >= count)
    return Status::error(Status::kNoDevice, "no CUDA device with ordinal " +
                                                std::to_string(deviceOrdinal) + " (" +
                                                std::to_string(count) + " present)");

  auto st = std::make_shared<detail::DeviceState>();
  st->drv = &drv;
  if (!(s = drv.check(drv.deviceGet(&st->dev, deviceOrdinal), "cuDeviceGet")).ok()) return s;

  DeviceInfo& info = st->info;
  info.ordinal = deviceOrdinal;
  info.driverVersion = drv.driverVersion;
  char name[256] = {0};
  if (drv.deviceGetName(name, static_cast<int>(sizeof name) - 1, st->dev) == CUDA_SUCCESS)
    info.name = name;
  struct Attr {
    CUdevice_attribute attr;
    int* dst;
    bool required;
  };
  int clusterLaunch = 0;
  const Attr attrs[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &info.ccMajor, true},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &info.ccMinor, true},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &info.smCount, true},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &info.smemOptinBytes, true},
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &info.maxThreadsPerBlock, true},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, &info.smemPerSmBytes, true},
      {CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, &info.l2Bytes, false},
      {CU_DEVICE_ATTRIBUTE_CLOCK_RATE, &info.clockKHz, false},
      {CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, &info.memClockKHz, false},
      {CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, &info.memBusWidth, false},
      {CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, &clusterLaunch, false},
  };
  for (const Attr& a : attrs) {
    const CUresult rc = drv.deviceGetAttribute(a.dst, a.attr, st->dev);
    if (rc != CUDA_SUCCESS) {
      if (a.required) return drv.check(rc, "cuDeviceGetAttribute");
      *a.dst = -1;
    }
  }
  info.clusterLaunch = clusterLaunch > 0;

  if (!(s = drv.check(drv.devicePrimaryCtxRetain(&st->ctx, st->dev), "cuDevicePrimaryCtxRetain"))
           .ok()) {
    st->ctx = nullptr;
    return s;
  }
  if (!(s = st->makeCurrent()).ok()) return s;
  out.state_ = std::move(st);
  return Status::success();
}

const DeviceInfo& Runtime::device() const { return state_ ? state_->info : emptyDeviceInfo(); }

std::string Runtime::arch() const {
  if (!state_) return std::string();
  return "sm_" + std::to_string(state_->info.ccMajor) + std::to_string(state_->info.ccMinor);
}

CUcontext Runtime::context() const { return state_ ? state_->ctx : nullptr; }

Status Runtime::loadModule(const std::vector<char>& cubin, Module& out) {
  if (!state_) return notInitialized();
  if (cubin.empty()) return Status::error(Status::kInvalidArgument, "loadModule: empty cubin");
  Status s = state_->makeCurrent();
  if (!s.ok()) return s;
  // cuModuleLoadData reads a cubin/fatbin by its header and anything else as
  // NUL-terminated PTX text: never let it run past the end of the buffer.
  const bool elf = cubin.size() >= 4 && std::memcmp(cubin.data(),
                                                    "\x7f"
                                                    "ELF",
                                                    4) == 0;
  const bool fatbin = cubin.size() >= 4 && std::memcmp(cubin.data(), "\x50\xed\x55\xba", 4) == 0;
  std::vector<char> text;
  const void* image = cubin.data();
  if (!elf && !fatbin && cubin.back() != '\0') {
    text.reserve(cubin.size() + 1);
    text.assign(cubin.begin(), cubin.end());
    text.push_back('\0');
    image = text.data();
  }
  auto m = std::make_shared<detail::ModuleState>();
  m->dev = state_;
  if (!(s = state_->drv->check(state_->drv->moduleLoadData(&m->mod, image), "cuModuleLoadData"))
           .ok()) {
    m->mod = nullptr;
    return s;
  }
  out.state_ = std::move(m);
  return Status::success();
}

Status Runtime::getFunction(const Module& module, const std::string& name, Function& out) {
  if (!state_) return notInitialized();
  if (!module.valid())
    return Status::error(Status::kInvalidArgument, "getFunction: invalid module");
  if (module.state_->dev->ctx != state_->ctx)
    return Status::error(Status::kInvalidArgument, "getFunction: module of another device");
  Status s = state_->makeCurrent();
  if (!s.ok()) return s;
  const detail::CudaDriver& drv = *state_->drv;
  auto f = std::make_shared<detail::FunctionState>();
  f->module = module.state_;
  f->name = name;
  s = drv.check(drv.moduleGetFunction(&f->fn, module.state_->mod, name.c_str()),
                "cuModuleGetFunction");
  if (!s.ok()) {
    s.message += " ('" + name + "')";
    return s;
  }
  int dyn = 0;
  if (drv.funcGetAttribute(&f->numRegs, CU_FUNC_ATTRIBUTE_NUM_REGS, f->fn) != CUDA_SUCCESS)
    f->numRegs = -1;
  if (drv.funcGetAttribute(&f->staticSmem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f->fn) !=
      CUDA_SUCCESS)
    f->staticSmem = -1;
  if (drv.funcGetAttribute(&f->maxThreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f->fn) !=
      CUDA_SUCCESS)
    f->maxThreads = -1;
  if (drv.funcGetAttribute(&dyn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f->fn) ==
          CUDA_SUCCESS &&
      dyn >= 0)
    f->dynSmemAttr = static_cast<std::size_t>(dyn);
  out.state_ = std::move(f);
  return Status::success();
}

Expected<int> Runtime::maxClusterSize(const Function& fn, unsigned gridX, unsigned blockX,
                                      std::size_t smemBytes) {
  Expected<int> r;
  if (!state_) return {notInitialized(), 0};
  if (!fn.valid())
    return {Status::error(Status::kInvalidArgument, "maxClusterSize: invalid function"), 0};
  if (gridX < 1 || blockX < 1)
    return {Status::error(Status::kInvalidArgument, "maxClusterSize: empty grid or block"), 0};
  detail::FunctionState& f = *fn.state_;
  const std::size_t staticSmem = f.staticSmem > 0 ? static_cast<std::size_t>(f.staticSmem) : 0;
  if (smemBytes + staticSmem > static_cast<std::size_t>(state_->info.smemOptinBytes))
    return {
        Status::error(Status::kInvalidArgument,
                      "maxClusterSize: dynamic + static shared memory exceeds the opt-in limit"),
        0};
  std::lock_guard<std::mutex> lock(f.mu);
  for (const auto& q : f.clusterQueries)
    if (q.blockX == blockX && q.smem == smemBytes) return {Status::success(), q.maxCluster};
  if (!(r.status = state_->makeCurrent()).ok()) return r;
  if (!(r.status = f.ensureNonPortable()).ok()) return r;
  if (smemBytes > detail::kDefaultDynamicSmemLimit &&
      !(r.status = f.ensureDynamicSmem(smemBytes)).ok())
    return r;
  CUlaunchConfig cfg{};
  cfg.gridDimX = gridX;
  cfg.gridDimY = cfg.gridDimZ = 1;
  cfg.blockDimX = blockX;
  cfg.blockDimY = cfg.blockDimZ = 1;
  cfg.sharedMemBytes = static_cast<unsigned>(smemBytes);
  cfg.hStream = nullptr;
  cfg.attrs = nullptr;
  cfg.numAttrs = 0;
  int cluster = 0;
  r.status = state_->drv->check(state_->drv->occupancyMaxPotentialClusterSize(&cluster, f.fn, &cfg),
                                "cuOccupancyMaxPotentialClusterSize");
  if (!r.status.ok()) return r;
  r.value = cluster;
  f.clusterQueries.push_back({blockX, smemBytes, cluster});
  return r;
}

Status Runtime::launch(const Function& fn, const LaunchConfig& cfg, void** args) {
  if (!state_) return notInitialized();
  if (!fn.valid()) return Status::error(Status::kInvalidArgument, "launch: invalid function");
  detail::FunctionState& f = *fn.state_;
  if (f.module->dev->ctx != state_->ctx)
    return Status::error(Status::kInvalidArgument, "launch: function of another device");
  const DeviceInfo& dev = state_->info;
  // Built only on failure (launch is on the hot path).
  auto describe = [&] {
    return "'" + f.name + "' grid " + std::to_string(cfg.gridX) + " block " +
           std::to_string(cfg.blockX) + " smem " + std::to_string(cfg.smemBytes) + " cluster " +
           std::to_string(cfg.clusterX) + ": ";
  };

  if (cfg.gridX < 1 || cfg.blockX < 1 || cfg.clusterX < 1)
    return invalidLaunch(describe() + "grid, block and cluster sizes must be >= 1");
  if (cfg.gridX > 0x7fffffffu) return invalidLaunch(describe() + "grid exceeds 2^31-1 CTAs");
  const int policy = static_cast<int>(cfg.clusterPolicy);
  if (policy < static_cast<int>(ClusterPolicy::Default) || policy > static_cast<int>(ClusterPolicy::LoadBalancing))
    return invalidLaunch(describe() + "unknown cluster scheduling policy " + std::to_string(policy));
  const int maxThreads = f.maxThreads > 0 ? f.maxThreads : dev.maxThreadsPerBlock;
  if (cfg.blockX > static_cast<unsigned>(maxThreads))
    return invalidLaunch(describe() + "block exceeds the kernel's max threads per block (" +
                         std::to_string(maxThreads) + ")");
  const std::size_t staticSmem = f.staticSmem > 0 ? static_cast<std::size_t>(f.staticSmem) : 0;
  if (cfg.smemBytes + staticSmem > static_cast<std::size_t>(dev.smemOptinBytes))
    return invalidLaunch(describe() + "dynamic + static shared memory (" +
                         std::to_string(cfg.smemBytes + staticSmem) +
                         " bytes) exceeds the device opt-in limit (" +
                         std::to_string(dev.smemOptinBytes) + " bytes)");
  if (cfg.clusterX > 1) {
    if (!dev.clusterLaunch)
      return invalidLaunch(describe() + "the device does not support cluster launch");
    if (cfg.gridX % cfg.clusterX != 0)
      return invalidLaunch(describe() + "grid is not a multiple of the cluster size");
    const Expected<int> mc = maxClusterSize(fn, cfg.gridX, cfg.blockX, cfg.smemBytes);
    if (!mc.ok()) return mc.status;
    if (static_cast<int>(cfg.clusterX) > mc.value)
      return invalidLaunch(describe() + "cluster size exceeds the max potential cluster size (" +
                           std::to_string(mc.value) + ") for this block and shared memory");
  }

  Status s = state_->makeCurrent();
  if (!s.ok()) return s;
  {
    std::lock_guard<std::mutex> lock(f.mu);
    if (cfg.smemBytes > detail::kDefaultDynamicSmemLimit &&
        !(s = f.ensureDynamicSmem(cfg.smemBytes)).ok())
      return s;
    if (cfg.clusterX > 8 && !(s = f.ensureNonPortable()).ok()) return s;
  }

  CUlaunchAttribute attr[2] = {};
  unsigned numAttrs = 0;
  if (cfg.clusterX > 1) {
    attr[numAttrs].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr[numAttrs].value.clusterDim.x = cfg.clusterX;
    attr[numAttrs].value.clusterDim.y = 1;
    attr[numAttrs].value.clusterDim.z = 1;
    ++numAttrs;
    if (cfg.clusterPolicy != ClusterPolicy::Default) {
      attr[numAttrs].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;
      attr[numAttrs].value.clusterSchedulingPolicyPreference = static_cast<CUclusterSchedulingPolicy>(policy);
      ++numAttrs;
    }
  }
  CUlaunchConfig lc{};
  lc.gridDimX = cfg.gridX;
  lc.gridDimY = lc.gridDimZ = 1;
  lc.blockDimX = cfg.blockX;
  lc.blockDimY = lc.blockDimZ = 1;
  lc.sharedMemBytes = static_cast<unsigned>(cfg.smemBytes);
  lc.hStream = cfg.stream;
  lc.attrs = numAttrs > 0 ? attr : nullptr;
  lc.numAttrs = numAttrs;
  s = state_->drv->check(state_->drv->launchKernelEx(&lc, f.fn, args, nullptr), "cuLaunchKernelEx");
  if (!s.ok()) s.message = describe() + s.message;
  return s;
}

Status Runtime::jitCompileAndLoad(const std::string& source, const std::string& name, Module& out,
                                  const NvrtcOptions& options, const CacheOptions& cache,
                                  CachedNvrtcResult* compileResult) {
  if (!state_) return notInitialized();
  NvrtcOptions opt = options;
  opt.arch = arch();
  CachedNvrtcResult r = compileCached(source, name, opt, cache);
  Status s;
  if (!r.ok) {
    s = Status::error(Status::kCompileError,
                      "NVRTC compile of '" + name + "' for " + opt.arch + " failed:\n" + r.log);
  } else {
    s = loadModule(r.cubin, out);
    if (s.ok()) s.message = r.warning;
  }
  if (compileResult) *compileResult = std::move(r);
  return s;
}

Expected<double> Runtime::timeLaunches(const Function& fn, const LaunchConfig& cfg, void** args,
                                       int warmups, int reps, std::size_t flushBytes,
                                       double* minMs) {
  Expected<double> out;
  if (!state_) {
    out.status = notInitialized();
    return out;
  }
  if (reps < 1 || reps > 1000 || warmups < 0) {
    out.status = Status::error(Status::kInvalidArgument, "timeLaunches: reps must be in [1, 1000]");
    return out;
  }
  const detail::CudaDriver& d = *state_->drv;
  DeviceBuffer flush;
  if (flushBytes > 0 && !(out.status = allocate(flushBytes, flush)).ok()) return out;
  for (int i = 0; i < warmups; ++i)
    if (!(out.status = launch(fn, cfg, args)).ok()) return out;
  CUevent start = nullptr, stop = nullptr;
  Status& s = out.status;
  s = d.check(d.eventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate");
  if (s.ok()) s = d.check(d.eventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate");
  std::vector<double> times;
  for (int i = 0; i < reps && s.ok(); ++i) {
    if (flushBytes > 0 &&
        !(s = d.check(d.memsetD8(flush.ptr(), static_cast<unsigned char>(i), flushBytes), "cuMemsetD8")).ok())
      break;
    if (!(s = d.check(d.eventRecord(start, cfg.stream), "cuEventRecord")).ok()) break;
    if (!(s = launch(fn, cfg, args)).ok()) break;
    if (!(s = d.check(d.eventRecord(stop, cfg.stream), "cuEventRecord")).ok()) break;
    if (!(s = d.check(d.eventSynchronize(stop), "cuEventSynchronize")).ok()) break;
    float ms = 0.0f;
    if (!(s = d.check(d.eventElapsedTime(&ms, start, stop), "cuEventElapsedTime")).ok()) break;
    times.push_back(ms);
  }
  if (start) d.eventDestroy(start);
  if (stop) d.eventDestroy(stop);
  if (!s.ok()) return out;
  std::sort(times.begin(), times.end());
  out.value = times[times.size() / 2];
  if (minMs) *minMs = times.front();
  return out;
}

Status Runtime::allocate(std::size_t bytes, DeviceBuffer& out) {
  if (!state_) return notInitialized();
  if (bytes == 0) return Status::error(Status::kInvalidArgument, "allocate: 0 bytes");
  Status s = state_->makeCurrent();
  if (!s.ok()) return s;
  auto b = std::make_shared<detail::BufferState>();
  b->dev = state_;
  if (!(s = state_->drv->check(state_->drv->memAlloc(&b->ptr, bytes), "cuMemAlloc")).ok()) {
    b->ptr = 0;
    return s;
  }
  b->size = bytes;
  out.state_ = std::move(b);
  return Status::success();
}

Status Runtime::copyToDevice(CUdeviceptr dst, const void* src, std::size_t bytes) {
  if (!state_) return notInitialized();
  Status s = state_->makeCurrent();
  if (!s.ok()) return s;
  return state_->drv->check(state_->drv->memcpyHtoD(dst, src, bytes), "cuMemcpyHtoD");
}

Status Runtime::copyToHost(void* dst, CUdeviceptr src, std::size_t bytes) {
  if (!state_) return notInitialized();
  Status s = state_->makeCurrent();
  if (!s.ok()) return s;
  return state_->drv->check(state_->drv->memcpyDtoH(dst, src, bytes), "cuMemcpyDtoH");
}

Status Runtime::synchronize(CUstream stream) {
  if (!state_) return notInitialized();
  Status s = state_->makeCurrent();
  if (!s.ok()) return s;
  if (stream)
    return state_->drv->check(state_->drv->streamSynchronize(stream), "cuStreamSynchronize");
  return state_->drv->check(state_->drv->ctxSynchronize(), "cuCtxSynchronize");
}

}  // namespace credit
