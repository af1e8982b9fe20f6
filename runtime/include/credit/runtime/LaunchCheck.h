// credit/runtime/LaunchCheck.h -- host-side launch validation and the launchers'
// status codes.
//
// Plain functions, no CUDA calls: the launchers (Launch.h) query the device into a
// DeviceLimits, compute the dynamic SMEM (SmemLayout.h), call validateLaunch() and
// pick the vector kernels only where canUseVec() holds. No includes but
// <stddef.h> outside NVRTC, no std::, every function CREDIT_HD.
#ifndef CREDIT_LAUNCH_CHECK_H
#define CREDIT_LAUNCH_CHECK_H

#if !defined(__CUDACC_RTC__)
#include <stddef.h>
#endif

#ifndef CREDIT_HD
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define CREDIT_HD __host__ __device__
#else
#define CREDIT_HD
#endif
#endif

namespace credit {

// What a launcher returns: 0 launched (or M == 0, nothing to do); 1..99 a
// LaunchStatus (not launched); kStatusBadProtocol .. kStatusBadTiming; or
// kStatusCudaErrorBase + cudaError_t of the CUDA call that failed.
inline constexpr int kStatusOk = 0;
inline constexpr int kStatusBadProtocol = 100;  // protocol not 0 (sync) or 1 (mbarrier)
inline constexpr int kStatusBadVariant = 101;   // an unknown or not generated variant
inline constexpr int kStatusNoPlan = 102;       // the dispatch has no decision for this shape yet
inline constexpr int kStatusBadTiming = 103;    // T_B not a positive, finite time
inline constexpr int kStatusCudaErrorBase = 1000;

enum class LaunchStatus : int {
  Ok = 0,
  NullPointer,      // a pointer argument is null
  Misaligned,       // a pointer is not aligned to its element size
  BadShape,         // M < 1, N < 1, N > INT32_MAX (32-bit in-row indexing), or M*P > INT32_MAX (gridDim.x)
  BadClusterSize,   // P not in {1,2,4,8,16}, or P > 1 for the non-cluster (staged) variant
  ClusterTooLarge,  // P > the device's max potential cluster size for this kernel
  SmemTooLarge,     // requested dynamic SMEM > the device's opt-in limit
  NotLegal,         // N > the variant's Eq. (3) bound (maxLegalN computed for its target and P)
};

CREDIT_HD constexpr const char* launchStatusString(LaunchStatus s) {
  switch (s) {
    case LaunchStatus::Ok: return "ok";
    case LaunchStatus::NullPointer: return "null pointer argument";
    case LaunchStatus::Misaligned: return "pointer not aligned to its element size";
    case LaunchStatus::BadShape: return "bad shape (M < 1, N < 1, N > INT32_MAX or grid M*P > INT32_MAX)";
    case LaunchStatus::BadClusterSize: return "bad cluster size (P not in {1,2,4,8,16}, or P > 1 for a non-cluster kernel)";
    case LaunchStatus::ClusterTooLarge: return "cluster size exceeds the device's max potential cluster size";
    case LaunchStatus::SmemTooLarge: return "dynamic shared memory exceeds the device opt-in limit";
    case LaunchStatus::NotLegal: return "shape not legal for this variant (Eq. 3: the row slice does not fit)";
  }
  return "unknown launch status";
}

struct DeviceLimits {
  int smemOptinBytes;  // cudaDevAttrMaxSharedMemoryPerBlockOptin
  int maxClusterSize;  // cudaOccupancyMaxPotentialClusterSize for the kernel (<= 1: no clusters)
  int smCount;         // cudaDevAttrMultiProcessorCount (informational: waves; not checked)
};

struct LaunchRequest {
  const void* const* ptrs;  // every pointer argument the kernel dereferences
  const int* elemBytes;     // per pointer: its element size = required alignment (f32 4, bf16/f16 2, i8 1)
  int numPtrs;
  long long M;              // rows
  long long N;              // row width
  int P;                    // cluster size (CTAs per row); 1 for the staged kernel
  bool clusterKernel;       // false: the one-CTA staged variant (P must be 1)
  size_t smemBytes;         // dynamic SMEM the launch requests (credit::smemBytes)
  long long maxLegalN;      // the variant's Eq. (3) bound for this P; <= 0: not checked
};

namespace detail {
CREDIT_HD inline unsigned long long ptrBits(const void* p) {
  return (unsigned long long)(p);
}
}  // namespace detail

CREDIT_HD constexpr bool isValidClusterSize(int P) {
  return P == 1 || P == 2 || P == 4 || P == 8 || P == 16;
}

// Checks, in this order (first failure wins): NullPointer, Misaligned,
// BadShape, BadClusterSize, ClusterTooLarge, NotLegal, SmemTooLarge.
CREDIT_HD inline LaunchStatus validateLaunch(const LaunchRequest& r, const DeviceLimits& lim) {
  for (int i = 0; i < r.numPtrs; ++i)
    if (r.ptrs[i] == nullptr) return LaunchStatus::NullPointer;
  for (int i = 0; i < r.numPtrs; ++i) {
    const int a = r.elemBytes ? r.elemBytes[i] : 1;
    if (a > 1 && detail::ptrBits(r.ptrs[i]) % (unsigned long long)a != 0)
      return LaunchStatus::Misaligned;
  }
  const long long kInt32Max = 2147483647LL;
  if (r.M < 1 || r.N < 1 || r.N > kInt32Max || r.M > kInt32Max) return LaunchStatus::BadShape;
  if (!isValidClusterSize(r.P) || (r.P > 1 && !r.clusterKernel)) return LaunchStatus::BadClusterSize;
  if (r.M * r.P > kInt32Max) return LaunchStatus::BadShape;
  if (r.P > 1 && r.P > (lim.maxClusterSize < 1 ? 1 : lim.maxClusterSize))
    return LaunchStatus::ClusterTooLarge;
  if (r.maxLegalN > 0 && r.N > r.maxLegalN) return LaunchStatus::NotLegal;
  if (lim.smemOptinBytes < 0 || r.smemBytes > (size_t)lim.smemOptinBytes)
    return LaunchStatus::SmemTooLarge;
  return LaunchStatus::Ok;
}

// The vector kernels (runs of `vec` elements, 4 or 8, accessed up to 16 bytes wide)
// are usable when N % vec == 0 (so every row starts where the first one does) and
// every pointer is aligned to min(16, vec x its element bytes): 16 for f32 at VEC = 4
// and for bf16 / f16 at VEC = 8, 8 for bf16 / f16 at VEC = 4, ... Pass the pointers of
// the operands accessed per element (row inputs and outputs, broadcast vectors) and
// their element bytes (nullptr: all 4).
CREDIT_HD inline bool canUseVec(const void* const* ptrs, const int* elemBytes, int numPtrs, long long N, int vec) {
  if (vec < 1 || N % vec != 0) return false;
  for (int i = 0; i < numPtrs; ++i) {
    const unsigned long long run = (unsigned long long)vec * (unsigned long long)(elemBytes ? elemBytes[i] : 4);
    if (detail::ptrBits(ptrs[i]) % (run < 16ULL ? run : 16ULL) != 0) return false;
  }
  return true;
}

}  // namespace credit

#endif  // CREDIT_LAUNCH_CHECK_H
