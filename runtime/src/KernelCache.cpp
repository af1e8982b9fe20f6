// On-disk NVRTC cache (see KernelCache.h for the key and the entry format).
// POSIX file I/O only; no GPU, no libcuda.
#include "credit/runtime/KernelCache.h"

#include "credit/runtime/Library.h"

#include <nvrtc.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace credit {

// ---------------------------------------------------------------------------
// SHA-256 (FIPS 180-4).
// ---------------------------------------------------------------------------
namespace {

constexpr std::uint32_t kSha256K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

inline std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

std::string toHex(const std::uint8_t* p, std::size_t n) {
  static const char* kDigits = "0123456789abcdef";
  std::string s(2 * n, '0');
  for (std::size_t i = 0; i < n; ++i) {
    s[2 * i] = kDigits[p[i] >> 4];
    s[2 * i + 1] = kDigits[p[i] & 15];
  }
  return s;
}

bool fromHex(const std::string& hex, std::uint8_t* out, std::size_t n) {
  if (hex.size() != 2 * n) return false;
  auto nib = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < n; ++i) {
    const int a = nib(hex[2 * i]), b = nib(hex[2 * i + 1]);
    if (a < 0 || b < 0) return false;
    out[i] = static_cast<std::uint8_t>(a * 16 + b);
  }
  return true;
}

}  // namespace

Sha256::Sha256()
    : h_{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
         0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19},
      buf_{} {}

void Sha256::block(const std::uint8_t* p) {
  std::uint32_t w[64];
  for (int i = 0; i < 16; ++i)
    w[i] = (std::uint32_t(p[4 * i]) << 24) | (std::uint32_t(p[4 * i + 1]) << 16) |
           (std::uint32_t(p[4 * i + 2]) << 8) | std::uint32_t(p[4 * i + 3]);
  for (int i = 16; i < 64; ++i) {
    const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  std::uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3], e = h_[4], f = h_[5], g = h_[6],
                h = h_[7];
  for (int i = 0; i < 64; ++i) {
    const std::uint32_t S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
    const std::uint32_t ch = (e & f) ^ (~e & g);
    const std::uint32_t t1 = h + S1 + ch + kSha256K[i] + w[i];
    const std::uint32_t S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
    const std::uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
    const std::uint32_t t2 = S0 + maj;
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h_[0] += a;
  h_[1] += b;
  h_[2] += c;
  h_[3] += d;
  h_[4] += e;
  h_[5] += f;
  h_[6] += g;
  h_[7] += h;
}

void Sha256::update(const void* data, std::size_t bytes) {
  const std::uint8_t* p = static_cast<const std::uint8_t*>(data);
  totalBytes_ += bytes;
  if (bufLen_ > 0) {
    const std::size_t take = bytes < 64 - bufLen_ ? bytes : 64 - bufLen_;
    std::memcpy(buf_ + bufLen_, p, take);
    bufLen_ += take;
    p += take;
    bytes -= take;
    if (bufLen_ < 64) return;
    block(buf_);
    bufLen_ = 0;
  }
  for (; bytes >= 64; bytes -= 64, p += 64) block(p);
  if (bytes > 0) {
    std::memcpy(buf_, p, bytes);
    bufLen_ = bytes;
  }
}

void Sha256::finish(std::uint8_t digest[32]) {
  const std::uint64_t bits = totalBytes_ * 8;
  buf_[bufLen_++] = 0x80;
  if (bufLen_ > 56) {
    std::memset(buf_ + bufLen_, 0, 64 - bufLen_);
    block(buf_);
    bufLen_ = 0;
  }
  std::memset(buf_ + bufLen_, 0, 56 - bufLen_);
  for (int i = 0; i < 8; ++i) buf_[56 + i] = static_cast<std::uint8_t>(bits >> (56 - 8 * i));
  block(buf_);
  bufLen_ = 0;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j)
      digest[4 * i + j] = static_cast<std::uint8_t>(h_[i] >> (24 - 8 * j));
}

std::string Sha256::finishHex() {
  std::uint8_t d[32];
  finish(d);
  return toHex(d, 32);
}

std::string sha256Hex(const void* data, std::size_t bytes) {
  Sha256 h;
  h.update(data, bytes);
  return h.finishHex();
}

// ---------------------------------------------------------------------------
// Key, paths.
// ---------------------------------------------------------------------------
namespace {

constexpr char kMagic[8] = {'C', 'R', 'E', 'D', 'I', 'T', 'K', 'C'};
constexpr std::uint32_t kHeaderBytes = 88;
constexpr std::uint64_t kMaxEntryBytes = 1ull << 31;  // refuse to read absurd files

void putU32(std::string& s, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void putU64(std::string& s, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
std::uint32_t getU32(const unsigned char* p) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
std::uint64_t getU64(const unsigned char* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// Length-prefixed (tag, value) so that no two different inputs hash alike.
void hashField(Sha256& h, const char* tag, const std::string& value) {
  std::string pre;
  const std::size_t tagLen = std::strlen(tag);
  putU64(pre, tagLen);
  pre.append(tag, tagLen);
  putU64(pre, value.size());
  h.update(pre);
  h.update(value);
}

// "path:size:mtime" of the loaded libnvrtc (so a reinstalled/patched NVRTC
// with the same major.minor gets new keys); "" if NVRTC is not a shared library.
const std::string& nvrtcLibraryIdentity() {
  static const std::string id = [] {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&nvrtcCompileProgram), &info) == 0 || !info.dli_fname)
      return std::string();
    const std::string path = info.dli_fname;
    if (path.find("nvrtc") == std::string::npos) return std::string();  // statically linked
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) return path;
    return path + ":" + std::to_string(static_cast<long long>(st.st_size)) + ":" +
           std::to_string(static_cast<long long>(st.st_mtime));
  }();
  return id;
}

std::string errnoText(const std::string& what, const std::string& path) {
  return what + " '" + path + "': " + std::strerror(errno);
}

// mkdir -p; "" on success.
std::string makeDirs(const std::string& dir) {
  if (dir.empty()) return "empty cache directory path";
  std::string cur;
  std::size_t pos = 0;
  while (pos <= dir.size()) {
    std::size_t next = dir.find('/', pos);
    if (next == std::string::npos) next = dir.size();
    cur = dir.substr(0, next);
    pos = next + 1;
    if (cur.empty()) continue;  // leading '/'
    if (mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST) return errnoText("cannot create", cur);
  }
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0) return errnoText("cannot stat", dir);
  if (!S_ISDIR(st.st_mode)) return "'" + dir + "' is not a directory";
  return std::string();
}

bool writeAll(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

std::string serializePayload(const CacheEntry& e) {
  std::string p;
  putU64(p, e.cubin.size());
  p.append(e.cubin.data(), e.cubin.size());
  putU64(p, e.log.size());
  p += e.log;
  putU32(p, static_cast<std::uint32_t>(e.loweredNames.size()));
  for (const auto& ln : e.loweredNames) {
    putU32(p, static_cast<std::uint32_t>(ln.first.size()));
    p += ln.first;
    putU32(p, static_cast<std::uint32_t>(ln.second.size()));
    p += ln.second;
  }
  return p;
}

bool parsePayload(const unsigned char* p, std::uint64_t n, CacheEntry& e) {
  std::uint64_t off = 0;
  auto need = [&](std::uint64_t k) { return k <= n && off <= n - k; };
  if (!need(8)) return false;
  const std::uint64_t cubinLen = getU64(p + off);
  off += 8;
  if (!need(cubinLen)) return false;
  e.cubin.assign(p + off, p + off + cubinLen);
  off += cubinLen;
  if (!need(8)) return false;
  const std::uint64_t logLen = getU64(p + off);
  off += 8;
  if (!need(logLen)) return false;
  e.log.assign(reinterpret_cast<const char*>(p + off), logLen);
  off += logLen;
  if (!need(4)) return false;
  const std::uint32_t count = getU32(p + off);
  off += 4;
  e.loweredNames.clear();
  for (std::uint32_t i = 0; i < count; ++i) {
    std::string parts[2];
    for (std::string& s : parts) {
      if (!need(4)) return false;
      const std::uint32_t len = getU32(p + off);
      off += 4;
      if (!need(len)) return false;
      s.assign(reinterpret_cast<const char*>(p + off), len);
      off += len;
    }
    e.loweredNames.emplace_back(parts[0], parts[1]);
  }
  return off == n;
}

}  // namespace

std::string defaultKernelCacheDir() {
  if (const char* d = std::getenv("CREDIT_CACHE_DIR"); d && *d) return d;
  // XDG: relative paths are invalid and ignored.
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && x[0] == '/')
    return std::string(x) + "/creditc";
  std::string home;
  if (const char* h = std::getenv("HOME"); h && *h) {
    home = h;
  } else {
    struct passwd pw {};
    struct passwd* res = nullptr;
    char buf[4096];
    if (getpwuid_r(getuid(), &pw, buf, sizeof buf, &res) == 0 && res && res->pw_dir)
      home = res->pw_dir;
  }
  if (home.empty()) return std::string();
  return home + "/.cache/creditc";
}

std::string kernelCacheKey(const std::string& source, const std::string& name,
                           const NvrtcOptions& options) {
  Sha256 h;
  hashField(h, "format", "creditc-kernel-cache/" + std::to_string(kKernelCacheFormatVersion));
  hashField(h, "nvrtc", nvrtcVersionString());
  hashField(h, "nvrtc-lib", nvrtcLibraryIdentity());
  hashField(h, "arch", options.arch);
  hashField(h, "name", name);
  hashField(h, "source", source);
  for (const std::string& f : nvrtcFlags(options)) hashField(h, "flag", f);
  for (const std::string& e : options.nameExpressions) hashField(h, "name-expression", e);
  if (options.libraryHeaders) hashField(h, "library", libraryDigest());
  return h.finishHex();
}

std::string kernelCacheEntryPath(const std::string& dir, const std::string& keyHex) {
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  return d + "/" + keyHex + ".ckc";
}

const char* cacheEntryStateString(CacheEntryState s) {
  switch (s) {
    case CacheEntryState::Ok:
      return "ok";
    case CacheEntryState::Missing:
      return "missing";
    case CacheEntryState::IoError:
      return "I/O error";
    case CacheEntryState::BadMagic:
      return "bad magic";
    case CacheEntryState::BadVersion:
      return "unsupported format version";
    case CacheEntryState::Truncated:
      return "truncated";
    case CacheEntryState::TrailingBytes:
      return "trailing bytes";
    case CacheEntryState::KeyMismatch:
      return "key mismatch";
    case CacheEntryState::ChecksumMismatch:
      return "payload checksum mismatch";
    case CacheEntryState::BadPayload:
      return "malformed payload";
  }
  return "unknown";
}

CacheEntryState readKernelCacheEntry(const std::string& path, const std::string& keyHex,
                                     CacheEntry& out, std::string* detail) {
  auto fail = [&](CacheEntryState s, const std::string& msg = std::string()) {
    if (detail) *detail = "entry '" + path + "': " + (msg.empty() ? cacheEntryStateString(s) : msg);
    return s;
  };
  std::uint8_t key[32];
  if (!fromHex(keyHex, key, 32)) return fail(CacheEntryState::KeyMismatch, "invalid key");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);  // no FIFO hang
  if (fd < 0) {
    if (errno == ENOENT) return fail(CacheEntryState::Missing);
    return fail(CacheEntryState::IoError, std::string("cannot open: ") + std::strerror(errno));
  }
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail(CacheEntryState::IoError, "not a readable regular file");
  }
  const std::uint64_t size = static_cast<std::uint64_t>(st.st_size);
  if (size > kMaxEntryBytes) {
    ::close(fd);
    return fail(CacheEntryState::IoError, "entry larger than 2 GiB");
  }
  std::vector<unsigned char> buf(static_cast<std::size_t>(size));
  std::size_t got = 0;
  while (got < buf.size()) {
    const ssize_t r = ::read(fd, buf.data() + got, buf.size() - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<std::size_t>(r);
  }
  ::close(fd);
  buf.resize(got);
  const unsigned char* p = buf.data();
  if (got < sizeof kMagic) return fail(CacheEntryState::Truncated);
  if (std::memcmp(p, kMagic, sizeof kMagic) != 0) return fail(CacheEntryState::BadMagic);
  if (got < kHeaderBytes) return fail(CacheEntryState::Truncated);
  if (getU32(p + 8) != kKernelCacheFormatVersion || getU32(p + 12) != kHeaderBytes)
    return fail(CacheEntryState::BadVersion);
  if (std::memcmp(p + 16, key, 32) != 0) return fail(CacheEntryState::KeyMismatch);
  const std::uint64_t payloadLen = getU64(p + 48);
  const std::uint64_t have = got - kHeaderBytes;
  if (payloadLen > have) return fail(CacheEntryState::Truncated);
  if (payloadLen < have) return fail(CacheEntryState::TrailingBytes);
  Sha256 h;
  h.update(p + kHeaderBytes, payloadLen);
  std::uint8_t sum[32];
  h.finish(sum);
  if (std::memcmp(sum, p + 56, 32) != 0) return fail(CacheEntryState::ChecksumMismatch);
  CacheEntry e;
  if (!parsePayload(p + kHeaderBytes, payloadLen, e)) return fail(CacheEntryState::BadPayload);
  out = std::move(e);
  if (detail) detail->clear();
  return CacheEntryState::Ok;
}

std::string writeKernelCacheEntry(const std::string& dir, const std::string& keyHex,
                                  const CacheEntry& entry) {
  std::uint8_t key[32];
  if (!fromHex(keyHex, key, 32)) return "invalid cache key '" + keyHex + "'";
  std::string err = makeDirs(dir);
  if (!err.empty()) return err;

  const std::string payload = serializePayload(entry);
  std::uint8_t sum[32];
  {
    Sha256 h;
    h.update(payload);
    h.finish(sum);
  }
  std::string header(kMagic, sizeof kMagic);
  putU32(header, kKernelCacheFormatVersion);
  putU32(header, kHeaderBytes);
  header.append(reinterpret_cast<const char*>(key), 32);
  putU64(header, payload.size());
  header.append(reinterpret_cast<const char*>(sum), 32);

  const std::string finalPath = kernelCacheEntryPath(dir, keyHex);
  // Same directory (so rename() is atomic); a crashed writer leaves a .tmp-* orphan.
  std::string tmpl =
      finalPath.substr(0, finalPath.rfind('/') + 1) + ".tmp-" + keyHex.substr(0, 16) + "-XXXXXX";
  std::vector<char> tmp(tmpl.begin(), tmpl.end());
  tmp.push_back('\0');
  const int fd = mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) return errnoText("cannot create a temp file in", dir);
  const std::string tmpPath(tmp.data());
  bool ok =
      writeAll(fd, header.data(), header.size()) && writeAll(fd, payload.data(), payload.size());
  if (!ok) err = errnoText("cannot write", tmpPath);
  if (ok) (void)fchmod(fd, 0644);  // mkstemp creates 0600; entries are shareable
  if (ok && fsync(fd) != 0) {
    ok = false;
    err = errnoText("cannot fsync", tmpPath);
  }
  if (::close(fd) != 0 && ok) {
    ok = false;
    err = errnoText("cannot close", tmpPath);
  }
  if (ok && std::rename(tmpPath.c_str(), finalPath.c_str()) != 0) {
    ok = false;
    err = errnoText("cannot rename into", finalPath);
  }
  if (!ok) ::unlink(tmpPath.c_str());
  return err;
}

// ---------------------------------------------------------------------------
// compileCached.
// ---------------------------------------------------------------------------
CachedNvrtcResult compileCached(const std::string& source, const std::string& name,
                                const NvrtcOptions& options, const CacheOptions& cache) {
  CachedNvrtcResult r;
  auto compile = [&] { static_cast<NvrtcResult&>(r) = compileToCubin(source, name, options); };
  if (!cache.enabled) {
    compile();
    return r;
  }
  const std::string dir = cache.dir.empty() ? defaultKernelCacheDir() : cache.dir;
  r.key = kernelCacheKey(source, name, options);
  if (dir.empty()) {
    r.warning = "kernel cache: no cache directory (set CREDIT_CACHE_DIR); compiled without caching";
    compile();
    return r;
  }
  r.entryPath = kernelCacheEntryPath(dir, r.key);

  CacheEntry entry;
  std::string detail;
  const CacheEntryState state = readKernelCacheEntry(r.entryPath, r.key, entry, &detail);
  if (state == CacheEntryState::Ok) {
    r.ok = true;
    r.cubin = std::move(entry.cubin);
    r.log = std::move(entry.log);
    r.loweredNames = std::move(entry.loweredNames);
    r.flags = nvrtcFlags(options);
    r.nvrtcVersion = nvrtcVersionString();
    parsePtxasLog(r.log, r.kernels, r.functions);
    r.fromCache = true;
    return r;
  }
  if (state == CacheEntryState::IoError)
    r.warning = "kernel cache: " + detail;
  else if (state != CacheEntryState::Missing)
    r.warning = "kernel cache: untrusted " + detail + "; rebuilding";

  compile();
  if (!r.ok) return r;
  entry.cubin = r.cubin;
  entry.log = r.log;
  entry.loweredNames = r.loweredNames;
  const std::string err = writeKernelCacheEntry(dir, r.key, entry);
  if (!err.empty()) {
    if (!r.warning.empty()) r.warning += "\n";
    r.warning += "kernel cache: cannot store the entry (" + err + "); compiled without caching";
  }
  return r;
}

}  // namespace credit
