// The CUDA driver API, loaded at run time (dlopen "libcuda.so.1"), so that
// binaries linking credit_runtime start on machines without a GPU driver.
#include "CudaDriver.h"

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>

namespace credit {

namespace detail {

namespace {

struct SymbolSlot {
  const char* name;
  void** slot;
};

// Resolves every symbol of the table into `d`; returns the missing names.
std::vector<std::string> resolveSymbols(void* handle, CudaDriver& d) {
  std::vector<std::string> missing;
  const SymbolSlot slots[] = {
#define CREDIT_CUDA_DRIVER_SLOT(member, proto, abi) {abi, reinterpret_cast<void**>(&d.member)},
      CREDIT_CUDA_DRIVER_SYMBOLS(CREDIT_CUDA_DRIVER_SLOT)
#undef CREDIT_CUDA_DRIVER_SLOT
  };
  for (const SymbolSlot& s : slots) {
    dlerror();
    void* p = dlsym(handle, s.name);
    if (!p) missing.push_back(s.name);
    *s.slot = p;
  }
  return missing;
}

std::string dlerrorText() {
  const char* e = dlerror();
  return e ? std::string(e) : std::string("unknown dlopen error");
}

void openDriver(CudaDriver& d) {
  d.handle = dlopen(d.libraryPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!d.handle) {
    d.status = Status::error(Status::kNoDriver,
                             "no CUDA driver (" + d.libraryPath + " not found): " + dlerrorText());
    return;
  }
  const std::vector<std::string> missing = resolveSymbols(d.handle, d);
  if (!missing.empty()) {
    std::string list;
    for (const std::string& m : missing) list += (list.empty() ? "" : ", ") + m;
    d.status = Status::error(Status::kNoDriver, "no usable CUDA driver (" + d.libraryPath +
                                                    " lacks " + list + "; driver too old?)");
    return;
  }
  const CUresult rc = d.init(0);
  if (rc == CUDA_ERROR_STUB_LIBRARY) {
    d.status =
        Status::error(Status::kNoDriver, "no CUDA driver (" + d.libraryPath +
                                             " is the CUDA toolkit's stub library, not a driver)");
    return;
  }
  if (rc != CUDA_SUCCESS) {
    d.status = Status::error(Status::kNoDevice, "no CUDA device (cuInit: " + d.errorText(rc) + ")");
    return;
  }
  if (d.driverGetVersion(&d.driverVersion) != CUDA_SUCCESS) d.driverVersion = 0;
  d.status = Status::success();
}

}  // namespace

std::string CudaDriver::errorText(CUresult rc) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (getErrorName && getErrorName(rc, &name) != CUDA_SUCCESS) name = nullptr;
  if (getErrorString && getErrorString(rc, &text) != CUDA_SUCCESS) text = nullptr;
  std::string s = name ? name : "CUresult " + std::to_string(static_cast<int>(rc));
  if (text) s += std::string(" (") + text + ")";
  return s;
}

Status CudaDriver::check(CUresult rc, const char* what) const {
  if (rc == CUDA_SUCCESS) return Status::success();
  return Status::error(static_cast<int>(rc), std::string(what) + ": " + errorText(rc));
}

const CudaDriver& loadCudaDriver(const std::string& libraryPath) {
  static std::mutex mu;
  // Leaked on purpose: drivers stay loaded until exit (handles may be
  // released by static destructors after this map would have been destroyed).
  static auto* drivers = new std::map<std::string, std::unique_ptr<CudaDriver>>();
  std::lock_guard<std::mutex> lock(mu);
  std::unique_ptr<CudaDriver>& d = (*drivers)[libraryPath];
  if (!d) {
    d = std::make_unique<CudaDriver>();
    d->libraryPath = libraryPath;
    openDriver(*d);
  }
  return *d;
}

}  // namespace detail

std::string cudaDriverLibraryName() {
  if (const char* p = std::getenv("CREDIT_LIBCUDA"); p && *p) return p;
  return "libcuda.so.1";
}

std::vector<std::string> cudaDriverSymbolNames() {
  return {
#define CREDIT_CUDA_DRIVER_NAME(member, proto, abi) abi,
      CREDIT_CUDA_DRIVER_SYMBOLS(CREDIT_CUDA_DRIVER_NAME)
#undef CREDIT_CUDA_DRIVER_NAME
  };
}

std::vector<std::string> missingCudaDriverSymbols(const std::string& libraryPath) {
  void* h = dlopen(libraryPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) return {"dlopen: " + detail::dlerrorText()};
  detail::CudaDriver scratch;
  std::vector<std::string> missing = detail::resolveSymbols(h, scratch);
  dlclose(h);
  return missing;
}

}  // namespace credit
