// credit/runtime/RowClaimLease.h -- the persistent form's row-claim counter, one
// launch at a time per device (host only, CUDA runtime API).
#ifndef CREDIT_RUNTIME_ROW_CLAIM_LEASE_H
#define CREDIT_RUNTIME_ROW_CLAIM_LEASE_H

#include <cuda_runtime.h>

#include <mutex>

#if defined(__GNUC__)
#define CREDIT_HOST_LOCAL __attribute__((visibility("hidden")))
#else
#define CREDIT_HOST_LOCAL
#endif

namespace credit {
namespace CREDIT_HOST_LOCAL host {

// The persistent form's row-claim counter, handed to one launch at a time per device:
// each launch first waits, on its own stream, for an event recorded after the previous
// one, whatever its stream, so no two launches run on the counter at once; each leaves
// it zero. No counter (the static rows) while the stream is being captured (a graph
// may run on any stream, several times at once), for more than INT_MAX rows, on a
// device past kRowClaimMaxDevices, or where a call fails.
inline constexpr int kRowClaimMaxDevices = 64;
class RowClaimLease {
 public:
  RowClaimLease(const void* symbol, bool wanted, long long M, cudaStream_t stream) : stream_(stream) {
    if (!wanted || symbol == nullptr || M > 0x7fffffffLL) return;
    int dev = 0;
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaStreamIsCapturing(stream, &capture) != cudaSuccess) {
      (void)cudaGetLastError();  // ours: the launch reports what is wrong with the device or stream
      return;
    }
    if (dev < 0 || dev >= kRowClaimMaxDevices || capture != cudaStreamCaptureStatusNone) return;
    static std::mutex mutex;
    static cudaEvent_t last[kRowClaimMaxDevices] = {};
    lock_ = std::unique_lock<std::mutex>(mutex);
    if (last[dev] == nullptr && cudaEventCreateWithFlags(&last[dev], cudaEventDisableTiming) != cudaSuccess) {
      last[dev] = nullptr;
      (void)cudaGetLastError();
      lock_.unlock();
      return;
    }
    // Looked up on every launch: after cudaDeviceReset the module, and the counter with
    // it, may be loaded elsewhere. The event is kept whatever its wait returns: a new one
    // would not order this launch after the last.
    void* counter = nullptr;
    if (cudaGetSymbolAddress(&counter, symbol) != cudaSuccess || cudaStreamWaitEvent(stream, last[dev], 0) != cudaSuccess) {
      (void)cudaGetLastError();
      lock_.unlock();
      return;
    }
    counter_ = static_cast<unsigned*>(counter);
    event_ = last[dev];
  }
  RowClaimLease(const RowClaimLease&) = delete;
  RowClaimLease& operator=(const RowClaimLease&) = delete;
  unsigned* counter() const { return counter_; }
  // After a launch with the counter: the next one waits for this one (here, if the
  // event cannot be recorded).
  void launched() {
    if (counter_ == nullptr) return;
    if (cudaEventRecord(event_, stream_) != cudaSuccess) {
      (void)cudaGetLastError();
      (void)cudaStreamSynchronize(stream_);
    }
  }

 private:
  cudaStream_t stream_;
  std::unique_lock<std::mutex> lock_;
  unsigned* counter_ = nullptr;
  cudaEvent_t event_ = nullptr;
};

}  // namespace host
}  // namespace credit

#endif  // CREDIT_RUNTIME_ROW_CLAIM_LEASE_H
