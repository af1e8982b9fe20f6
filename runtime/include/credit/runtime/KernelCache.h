// credit/runtime/KernelCache.h -- on-disk cache in front of compileToCubin.
//
// Needs only libnvrtc (no GPU, no libcuda). Successful compiles are stored as
// one file per key in the cache directory:
//
//   key   = SHA-256 over (length-prefixed): the entry format version, the NVRTC
//           version, the loaded libnvrtc (path, size, mtime), the arch, the
//           program name, the source, every NVRTC flag (nvrtcFlags(): arch,
//           -std, -I dirs, -D defines, ptxas -v, extra flags) and every name
//           expression, and the device library's headers (libraryDigest(),
//           when NvrtcOptions::libraryHeaders). Headers #included from the -I
//           dirs are NOT hashed (toolkit headers change together with libnvrtc,
//           which is hashed).
//   entry = <dir>/<64 hex key>.ckc, little-endian:
//             0  char[8]  magic "CREDITKC"
//             8  u32      format version (kKernelCacheFormatVersion)
//            12  u32      header bytes (88)
//            16  u8[32]   key
//            48  u64      payload bytes
//            56  u8[32]   SHA-256 of the payload
//            88  payload: u64 n, cubin[n]; u64 n, log[n];
//                         u32 count, count x (u32 n, expr[n], u32 n, lowered[n])
//
// Entries are written to a unique temp file in the cache directory (mkstemp),
// fsync'ed and rename()d into place: readers never see a partial entry and
// concurrent writers of one key all succeed (the last rename wins; the
// contents are identical). An entry is trusted only if magic, version, header
// size, key, exact file length and payload checksum all match; anything else
// is reported in `warning` and rebuilt (overwritten). Cache I/O failures
// (unwritable directory, full disk, ...) never fail the compile: the result
// is compiled without caching and `warning` says why. Failed compiles are not
// cached.
#ifndef CREDIT_RUNTIME_KERNEL_CACHE_H
#define CREDIT_RUNTIME_KERNEL_CACHE_H

#include "credit/runtime/Nvrtc.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace credit {

constexpr std::uint32_t kKernelCacheFormatVersion = 1;

struct CacheOptions {
  std::string dir;      // empty: defaultKernelCacheDir()
  bool enabled = true;  // false: plain compileToCubin (no lookup, no store, no warning)
};

struct CachedNvrtcResult : NvrtcResult {
  bool fromCache = false;  // the cubin/log came from a valid cache entry
  std::string key;         // 64 hex digits (empty when caching is disabled)
  std::string entryPath;   // <dir>/<key>.ckc (empty when caching is disabled)
  std::string warning;     // empty, or why the cache was bypassed / an entry rebuilt
};

// Looks `source` up in the cache; on a miss (or an untrustworthy entry)
// compiles it with compileToCubin and stores the result if it compiled.
// On a hit `kernels`/`functions` are re-parsed from the stored log and
// `flags`/`nvrtcVersion` are those this call would have used.
CachedNvrtcResult compileCached(const std::string& source, const std::string& name,
                                const NvrtcOptions& options = NvrtcOptions(),
                                const CacheOptions& cache = CacheOptions());

// $CREDIT_CACHE_DIR, else $XDG_CACHE_HOME/creditc, else $HOME/.cache/creditc
// (else the passwd home); "" if none can be determined.
std::string defaultKernelCacheDir();

// The cache key of a compile (64 lowercase hex digits).
std::string kernelCacheKey(const std::string& source, const std::string& name,
                           const NvrtcOptions& options);

std::string kernelCacheEntryPath(const std::string& dir, const std::string& keyHex);

enum class CacheEntryState {
  Ok,
  Missing,  // no such file
  IoError,  // exists but could not be read
  BadMagic,
  BadVersion,        // other format version or header size
  Truncated,         // shorter than header + payload length
  TrailingBytes,     // longer than header + payload length
  KeyMismatch,       // stored key != expected key
  ChecksumMismatch,  // payload SHA-256 mismatch
  BadPayload,        // checksum ok but the payload does not parse
};
const char* cacheEntryStateString(CacheEntryState s);

struct CacheEntry {
  std::vector<char> cubin;
  std::string log;
  std::vector<std::pair<std::string, std::string>> loweredNames;
};

// Reads and fully validates the entry at `path` against `keyHex`. `out` is
// filled only when the result is Ok; `detail` (optional) gets a message.
CacheEntryState readKernelCacheEntry(const std::string& path, const std::string& keyHex,
                                     CacheEntry& out, std::string* detail = nullptr);

// Atomically (temp file + rename) writes an entry. Returns "" on success,
// else an error message (the cache directory is created if missing).
std::string writeKernelCacheEntry(const std::string& dir, const std::string& keyHex,
                                  const CacheEntry& entry);

// ---- SHA-256 (FIPS 180-4), plain C++ ----
class Sha256 {
 public:
  Sha256();
  void update(const void* data, std::size_t bytes);
  void update(const std::string& s) { update(s.data(), s.size()); }
  // Finishes the hash; the object must not be updated afterwards.
  void finish(std::uint8_t digest[32]);
  std::string finishHex();

 private:
  void block(const std::uint8_t* p);
  std::uint32_t h_[8];
  std::uint8_t buf_[64];
  std::size_t bufLen_ = 0;
  std::uint64_t totalBytes_ = 0;
};

std::string sha256Hex(const void* data, std::size_t bytes);
inline std::string sha256Hex(const std::string& s) { return sha256Hex(s.data(), s.size()); }

}  // namespace credit

#endif  // CREDIT_RUNTIME_KERNEL_CACHE_H
