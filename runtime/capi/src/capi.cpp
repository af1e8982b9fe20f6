// The C API's entry points (credit/capi.h): argument checks, the device guard, and the
// status / message convention around Program.
#include "credit/capi.h"

#include "Program.h"

#include <exception>
#include <new>
#include <string>

using credit::capi::Program;
namespace host = credit::host;

struct credit_program : Program {};

namespace {

thread_local std::string lastError;

int fail(const std::string& message) {
  lastError = message;
  return CREDIT_CAPI_ERROR;
}

// A launcher's status, with its text as the last error where it is not 0.
int status(int s) {
  if (s != credit::kStatusOk) lastError = host::statusString(s);
  return s;
}

// Makes `device` current for the calls in scope (the launchers use the current device)
// and restores the caller's afterwards.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    if (cudaGetDevice(&previous_) != cudaSuccess) {
      (void)cudaGetLastError();
      previous_ = -1;
    }
    if (device >= 0 && device != previous_) {
      err_ = cudaSetDevice(device);
      if (err_ != cudaSuccess) (void)cudaGetLastError();
      restore_ = err_ == cudaSuccess && previous_ >= 0;
    }
  }
  ~DeviceGuard() {
    if (restore_) (void)cudaSetDevice(previous_);
  }
  cudaError_t error() const { return err_; }

 private:
  int previous_ = -1;
  bool restore_ = false;
  cudaError_t err_ = cudaSuccess;
};

void toCapi(const credit_plan& p, credit_capi_plan* out) {
  out->variant = p.variant;
  out->P = p.P;
  out->protocol = p.protocol;
  out->baseline = p.baseline;
  out->source = p.source;
  out->evaluated = p.evaluated;
  out->tB_ms = p.tB_ms;
  out->deltaT_ms = p.deltaT_ms;
  out->measured_ms = p.measured_ms;
}

// The program loaded on `device` (current from here on), or a status.
int prepare(credit_program* program, const DeviceGuard& guard) {
  if (guard.error() != cudaSuccess) return status(host::cudaStatus(guard.error()));
  const std::string err = credit::capi::loadProgram(*program);
  return err.empty() ? 0 : fail(err);
}

}  // namespace

extern "C" {

int credit_capi_version(void) { return CREDIT_CAPI_VERSION; }

const char* credit_capi_last_error(void) { return lastError.c_str(); }

int credit_program_create(const char* source, const char* name, const char* arch, const char* cache_dir,
                          int use_cache, credit_program** out) {
  if (out == nullptr) return fail("credit_program_create: out is NULL");
  *out = nullptr;
  if (source == nullptr) return fail("credit_program_create: source is NULL");
  try {
    auto* p = new credit_program();
    const std::string err = credit::capi::createProgram(source, name != nullptr && *name ? name : "generated.cu",
                                                        arch != nullptr ? arch : "", cache_dir != nullptr ? cache_dir : "",
                                                        use_cache != 0, *p);
    if (!err.empty()) {
      delete p;
      return fail(err);
    }
    *out = p;
    return 0;
  } catch (const std::bad_alloc&) {
    return fail("credit_program_create: out of memory");
  } catch (const std::exception& e) {
    return fail(std::string("credit_program_create: ") + e.what());
  }
}

void credit_program_destroy(credit_program* program) {
  if (program == nullptr) return;
  if (program->library != nullptr) (void)cudaLibraryUnload(program->library);
  delete program;
}

const char* credit_program_info(const credit_program* program) { return program ? program->info.c_str() : "{}"; }

int credit_program_load(credit_program* program) {
  if (program == nullptr) return fail("credit_program_load: program is NULL");
  const std::string err = credit::capi::loadProgram(*program);
  return err.empty() ? 0 : fail(err);
}

int credit_program_launch(credit_program* program, const char* variant, void* const* args, long long M, long long N,
                          int P, int protocol, void* stream, int device) {
  if (program == nullptr || variant == nullptr) return fail("credit_program_launch: program or variant is NULL");
  DeviceGuard guard(device);
  if (int s = prepare(program, guard)) return s;
  const auto st = static_cast<cudaStream_t>(stream);
  const host::Workload& w = program->workload;
  const std::string v = variant;
  if (v == "auto") {
    if (M == 0) return 0;
    if (int s = host::checkShape(M, N)) return status(s);
    if (program->file.profile.present) return status(host::launchAuto(program->dispatch, args, M, N, st));
    return status(credit::capi::launchStructural(*program, args, M, N, st, nullptr));
  }
  // P == 0: 1 for the one-CTA variants, the smallest legal cluster size for the others.
  if (P == 0 && v.rfind("cluster", 0) != 0 && v != "control") P = 1;
  if (P == 0) {
    int device0 = 0, optin = 0;
    if (int s = host::deviceAndOptin(&device0, &optin)) return status(s);
    const credit::Protocol proto = protocol == 1 ? credit::Protocol::Mbarrier : credit::Protocol::Sync;
    P = 2;
    while (P < w.target.maxNonPortableCluster && !credit::isLegal(w.geometry, N, P, proto, optin)) P *= 2;
  }
  return status(host::launchGeneric(w, variant, args, M, N, P, protocol, st));
}

int credit_program_last_plan(credit_program* program, long long M, long long N, int device, credit_capi_plan* out) {
  if (program == nullptr || out == nullptr) return fail("credit_program_last_plan: program or out is NULL");
  DeviceGuard guard(device);
  if (guard.error() != cudaSuccess) return status(host::cudaStatus(guard.error()));
  credit_plan p = {};
  const int s = host::lastPlan(program->dispatch, M, N, &p);
  if (s == credit::kStatusOk) toCapi(p, out);
  return status(s);
}

int credit_program_autotune(credit_program* program, void* const* args, long long M, long long N, void* stream,
                            int device, credit_capi_plan* tuned) {
  if (program == nullptr) return fail("credit_program_autotune: program is NULL");
  if (!program->file.profile.present) return status(credit::kStatusBadVariant);
  DeviceGuard guard(device);
  if (int s = prepare(program, guard)) return s;
  credit_plan t = {};
  const int s = host::autotune(program->dispatch, args, M, N, static_cast<cudaStream_t>(stream), nullptr, &t);
  if (s == credit::kStatusOk && tuned != nullptr) toCapi(t, tuned);
  return status(s);
}

long long credit_program_max_legal_n(const credit_program* program, const char* variant, int P, int protocol) {
  if (program == nullptr) return 0;
  return host::maxLegalN(program->formsOnly(), variant, P, protocol);
}

const char* credit_capi_status_string(int s) {
  if (s == CREDIT_CAPI_ERROR) return "error (credit_capi_last_error has the message)";
  return host::statusString(s);
}

}  // extern "C"
