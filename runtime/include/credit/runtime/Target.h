// credit/runtime/Target.h -- the GPU targets creditc knows: dynamic SMEM per block
// after opt-in and the cluster sizes (portable, and with the non-portable opt-in).
// Constexpr and CREDIT_HD, as SmemLayout.h.
#ifndef CREDIT_RUNTIME_TARGET_H
#define CREDIT_RUNTIME_TARGET_H

#ifndef CREDIT_HD
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define CREDIT_HD __host__ __device__
#else
#define CREDIT_HD
#endif
#endif

namespace credit {

struct TargetInfo {
  const char* arch;           // "sm_90", ...; nullptr for an unknown target
  int smemOptinBytes;         // max dynamic SMEM per block after opt-in
  int maxPortableCluster;     // portable cluster size
  int maxNonPortableCluster;  // with cudaFuncAttributeNonPortableClusterSizeAllowed
};

inline constexpr int kNumTargets = 6;

// Before sm_90 there are no thread-block clusters (cluster size 1): only the
// global-reread and one-CTA staged kernels exist there.
CREDIT_HD constexpr TargetInfo targetAt(int i) {
  return i == 0   ? TargetInfo{"sm_90", 232448, 8, 16}   // Hopper: 227 KB
         : i == 1 ? TargetInfo{"sm_100", 232448, 8, 16}  // Blackwell data center: 227 KB
         : i == 2 ? TargetInfo{"sm_120", 101376, 8, 8}   // Blackwell client: 99 KB
         : i == 3 ? TargetInfo{"sm_80", 166912, 1, 1}    // Ampere data center: 163 KB
         : i == 4 ? TargetInfo{"sm_86", 101376, 1, 1}    // Ampere client: 99 KB
         : i == 5 ? TargetInfo{"sm_89", 101376, 1, 1}    // Ada: 99 KB
                  : TargetInfo{nullptr, 0, 0, 0};
}

// Whether the target has thread-block clusters (and so the cluster kernels).
CREDIT_HD constexpr bool hasClusters(const TargetInfo& t) { return t.maxNonPortableCluster > 1; }

namespace detail {
// Compares the digits of `arch` after "sm_" / "compute_" with `base`'s, allowing an
// 'a' or 'f' suffix on `arch` ("sm_90a" -> "sm_90").
CREDIT_HD constexpr bool archMatches(const char* arch, const char* base) {
  int i = 0;
  if (arch[0] == 's' && arch[1] == 'm' && arch[2] == '_') {
    i = 3;
  } else if (arch[0] == 'c' && arch[1] == 'o' && arch[2] == 'm' && arch[3] == 'p' && arch[4] == 'u' &&
             arch[5] == 't' && arch[6] == 'e' && arch[7] == '_') {
    i = 8;
  } else {
    return false;
  }
  int j = 3;  // base is always "sm_..."
  while (base[j] != '\0') {
    if (arch[i] != base[j]) return false;
    ++i;
    ++j;
  }
  if (arch[i] == '\0') return true;
  return (arch[i] == 'a' || arch[i] == 'f') && arch[i + 1] == '\0';
}
}  // namespace detail

// Looks a target up by name ("sm_90", "sm_90a", "compute_100", ...);
// TargetInfo{nullptr, 0, 0, 0} for an unknown name.
CREDIT_HD constexpr TargetInfo findTarget(const char* arch) {
  if (arch == nullptr) return targetAt(-1);
  for (int i = 0; i < kNumTargets; ++i)
    if (detail::archMatches(arch, targetAt(i).arch)) return targetAt(i);
  return targetAt(-1);
}

CREDIT_HD constexpr bool isKnownTarget(const char* arch) { return findTarget(arch).arch != nullptr; }

}  // namespace credit

#endif  // CREDIT_RUNTIME_TARGET_H
