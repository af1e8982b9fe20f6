// KernelCache: SHA-256, keys, hit/miss, corruption, concurrent writers and
// unwritable cache directories. NVRTC only (no GPU).
#include "credit/runtime/KernelCache.h"

#include "TestSupport.h"

#include <catch2/catch.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

using namespace credit;
using credit::testing::EnvGuard;
using credit::testing::TempDir;

namespace {


std::vector<std::string> listDir(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string n = e->d_name;
      if (n != "." && n != "..") names.push_back(n);
    }
    closedir(d);
  }
  return names;
}

int countTempFiles(const std::string& dir) {
  int n = 0;
  for (const std::string& f : listDir(dir))
    if (f.rfind(".tmp-", 0) == 0) ++n;
  return n;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void writeFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}


const char* const kSmallKernel =
    "template <int S> __global__ void scale(float* x) { x[threadIdx.x] *= float(S); }\n"
    "extern \"C\" __global__ void twice(float* x) { x[threadIdx.x] *= 2.0f; }\n";

NvrtcOptions smallOptions() {
  NvrtcOptions o;
  o.nameExpressions = {"scale<3>"};
  return o;
}

}  // namespace

TEST_CASE("SHA-256 standard test vectors", "[cache][sha256]") {
  CHECK(sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(sha256Hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
                  "klmnopqrlmnopqrsmnopqrstnopqrstu") ==
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  // One million 'a', fed in uneven chunks.
  Sha256 h;
  const std::string chunk(997, 'a');
  std::size_t left = 1000000;
  while (left > 0) {
    const std::size_t n = left < chunk.size() ? left : chunk.size();
    h.update(chunk.data(), n);
    left -= n;
  }
  CHECK(h.finishHex() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // Every split point of messages around the 55/56/64-byte padding edges.
  for (std::size_t len : {55u, 56u, 63u, 64u, 65u, 119u, 120u, 200u}) {
    std::string msg;
    for (std::size_t i = 0; i < len; ++i) msg.push_back(static_cast<char>('0' + i % 71));
    const std::string whole = sha256Hex(msg);
    for (std::size_t cut = 0; cut <= len; ++cut) {
      Sha256 s;
      s.update(msg.data(), cut);
      s.update(msg.data() + cut, len - cut);
      INFO("len " << len << " cut " << cut);
      CHECK(s.finishHex() == whole);
    }
  }
}

TEST_CASE("kernel cache: miss, then hit with the same result", "[cache]") {
  TempDir dir;
  REQUIRE(!dir.path.empty());
  CacheOptions cache;
  cache.dir = dir.path + "/nested/cache";  // created on demand
  const NvrtcOptions opt = smallOptions();

  const CachedNvrtcResult a = compileCached(kSmallKernel, "small.cu", opt, cache);
  INFO(a.log << a.warning);
  REQUIRE(a.ok);
  CHECK_FALSE(a.fromCache);
  CHECK(a.warning.empty());
  CHECK(a.key.size() == 64);
  CHECK(a.key == kernelCacheKey(kSmallKernel, "small.cu", opt));
  CHECK(a.entryPath == kernelCacheEntryPath(cache.dir, a.key));
  CacheEntry stored;
  REQUIRE(readKernelCacheEntry(a.entryPath, a.key, stored) == CacheEntryState::Ok);
  CHECK(stored.cubin == a.cubin);
  CHECK(stored.log == a.log);

  const CachedNvrtcResult b = compileCached(kSmallKernel, "small.cu", opt, cache);
  REQUIRE(b.ok);
  CHECK(b.fromCache);
  CHECK(b.warning.empty());
  CHECK(b.cubin == a.cubin);
  CHECK(b.log == a.log);
  CHECK(b.flags == a.flags);
  CHECK(b.nvrtcVersion == a.nvrtcVersion);
  CHECK(b.loweredNames == a.loweredNames);
  REQUIRE(a.loweredNames.size() == 1);
  REQUIRE(b.kernels.size() == a.kernels.size());
  // The resource lines come from ptxas -v through the NVRTC log. The NVRTC of
  // the H200 machine's image printed an empty log (2026-11-30, docs/results):
  // there the per-kernel figures cannot be compared, and the test says so.
  if (a.log.find("ptxas") == std::string::npos) {
    WARN("this NVRTC returned no ptxas resource lines; per-kernel resources not compared");
  } else {
    REQUIRE(a.kernels.size() == 2);
  }
  for (std::size_t i = 0; i < a.kernels.size(); ++i) {
    CHECK(b.kernels[i].name == a.kernels[i].name);
    CHECK(b.kernels[i].registers == a.kernels[i].registers);
  }
  CHECK(listDir(cache.dir).size() == 1);
  CHECK(countTempFiles(cache.dir) == 0);

  SECTION("caching disabled: no lookup, no store") {
    CacheOptions off = cache;
    off.enabled = false;
    const CachedNvrtcResult c = compileCached(kSmallKernel, "other.cu", opt, off);
    CHECK(c.ok);
    CHECK_FALSE(c.fromCache);
    CHECK(c.key.empty());
    CHECK(c.warning.empty());
    CHECK(listDir(cache.dir).size() == 1);
  }
  SECTION("failed compiles are not cached") {
    const CachedNvrtcResult e =
        compileCached("__global__ void k() { this_does_not_compile; }\n", "bad.cu", opt, cache);
    CHECK_FALSE(e.ok);
    CHECK_FALSE(e.fromCache);
    CHECK(e.warning.empty());
    CHECK(listDir(cache.dir).size() == 1);
  }
}

TEST_CASE("kernel cache: the key covers source, name, options, arch and NVRTC", "[cache]") {
  const std::string src = kSmallKernel;
  const NvrtcOptions base = smallOptions();
  const std::string k0 = kernelCacheKey(src, "small.cu", base);
  CHECK(k0 == kernelCacheKey(src, "small.cu", base));  // deterministic
  CHECK(k0.find_first_not_of("0123456789abcdef") == std::string::npos);

  std::vector<std::string> keys = {k0};
  auto variant = [&](const char* what, const std::string& key) {
    INFO(what);
    for (const std::string& k : keys) CHECK(k != key);
    keys.push_back(key);
  };
  variant("source", kernelCacheKey(src + " ", "small.cu", base));
  variant("program name", kernelCacheKey(src, "small2.cu", base));
  NvrtcOptions o = base;
  o.arch = "sm_100";
  variant("arch sm_100", kernelCacheKey(src, "small.cu", o));
  o.arch = "sm_120";
  variant("arch sm_120", kernelCacheKey(src, "small.cu", o));
  o = base;
  o.defines = {"X=1"};
  variant("define", kernelCacheKey(src, "small.cu", o));
  o.defines = {"X=2"};
  variant("define value", kernelCacheKey(src, "small.cu", o));
  o = base;
  o.extraFlags = {"--use_fast_math"};
  variant("extra flag", kernelCacheKey(src, "small.cu", o));
  o = base;
  o.includeDirs = {"/nonexistent/include"};
  variant("include dirs", kernelCacheKey(src, "small.cu", o));
  o = base;
  o.ptxasVerbose = false;
  variant("ptxas -v", kernelCacheKey(src, "small.cu", o));
  o = base;
  o.nameExpressions = {"scale<4>"};
  variant("name expression", kernelCacheKey(src, "small.cu", o));
  // Field boundaries are length-prefixed: moving text between fields changes the key.
  o = base;
  o.defines = {"AB"};
  NvrtcOptions o2 = base;
  o2.defines = {"A", "B"};
  CHECK(kernelCacheKey(src, "small.cu", o) != kernelCacheKey(src, "small.cu", o2));

  SECTION("different arches get different entries in one directory") {
    TempDir dir;
    CacheOptions cache;
    cache.dir = dir.path;
    NvrtcOptions a90 = base, a100 = base;
    a100.arch = "sm_100";
    const CachedNvrtcResult r90 = compileCached(src, "small.cu", a90, cache);
    const CachedNvrtcResult r100 = compileCached(src, "small.cu", a100, cache);
    REQUIRE(r90.ok);
    REQUIRE(r100.ok);
    CHECK_FALSE(r100.fromCache);
    CHECK(r90.cubin != r100.cubin);
    CHECK(listDir(dir.path).size() == 2);
    CHECK(compileCached(src, "small.cu", a90, cache).fromCache);
    CHECK(compileCached(src, "small.cu", a100, cache).fromCache);
  }
}

TEST_CASE("kernel cache: corrupt entries are detected and rebuilt", "[cache]") {
  TempDir dir;
  CacheOptions cache;
  cache.dir = dir.path;
  const NvrtcOptions opt = smallOptions();
  const CachedNvrtcResult first = compileCached(kSmallKernel, "small.cu", opt, cache);
  REQUIRE(first.ok);
  const std::string good = readFile(first.entryPath);
  REQUIRE(good.size() > 200);

  // Another valid entry (different key) to copy over this one.
  const CachedNvrtcResult other =
      compileCached(std::string(kSmallKernel) + "\n", "small.cu", opt, cache);
  REQUIRE(other.ok);
  const std::string otherBytes = readFile(other.entryPath);

  struct Corruption {
    const char* what;
    std::string bytes;
    CacheEntryState expect;
  };
  auto flip = [&](std::size_t at) {
    std::string b = good;
    b[at] = static_cast<char>(b[at] ^ 0x5a);
    return b;
  };
  std::string withLongerLength = good;  // payload length field (u64 LE at 48) + 1
  {
    std::uint64_t len = 0;
    for (int i = 7; i >= 0; --i) len = (len << 8) | static_cast<unsigned char>(good[48 + i]);
    ++len;
    for (int i = 0; i < 8; ++i)
      withLongerLength[48 + i] = static_cast<char>((len >> (8 * i)) & 0xff);
  }
  const std::vector<Corruption> cases = {
      {"flipped payload byte (cubin)", flip(88 + 8 + 40), CacheEntryState::ChecksumMismatch},
      {"flipped last byte", flip(good.size() - 1), CacheEntryState::ChecksumMismatch},
      {"flipped checksum byte", flip(60), CacheEntryState::ChecksumMismatch},
      {"flipped key byte", flip(20), CacheEntryState::KeyMismatch},
      {"wrong magic", flip(0), CacheEntryState::BadMagic},
      {"other format version", flip(8), CacheEntryState::BadVersion},
      {"truncated to half", good.substr(0, good.size() / 2), CacheEntryState::Truncated},
      {"truncated inside the header", good.substr(0, 40), CacheEntryState::Truncated},
      {"truncated to 3 bytes", good.substr(0, 3), CacheEntryState::Truncated},
      {"empty file", std::string(), CacheEntryState::Truncated},
      {"trailing garbage", good + "xyz", CacheEntryState::TrailingBytes},
      {"payload length too large", withLongerLength, CacheEntryState::Truncated},
      {"another key's entry", otherBytes, CacheEntryState::KeyMismatch},
  };
  for (const Corruption& c : cases) {
    INFO(c.what);
    writeFile(first.entryPath, c.bytes);
    CacheEntry e;
    std::string detail;
    CHECK(readKernelCacheEntry(first.entryPath, first.key, e, &detail) == c.expect);
    CHECK(detail.find(cacheEntryStateString(c.expect)) != std::string::npos);

    const CachedNvrtcResult r = compileCached(kSmallKernel, "small.cu", opt, cache);
    INFO(r.warning);
    REQUIRE(r.ok);
    CHECK_FALSE(r.fromCache);
    CHECK(r.cubin == first.cubin);
    CHECK(r.warning.find("untrusted") != std::string::npos);
    CHECK(r.warning.find(cacheEntryStateString(c.expect)) != std::string::npos);
    // Rebuilt in place: valid again and served from the cache.
    REQUIRE(readKernelCacheEntry(first.entryPath, first.key, e) == CacheEntryState::Ok);
    CHECK(e.cubin == first.cubin);
    const CachedNvrtcResult again = compileCached(kSmallKernel, "small.cu", opt, cache);
    CHECK(again.fromCache);
    CHECK(again.warning.empty());
  }
  CHECK(countTempFiles(dir.path) == 0);

  // A payload that checks out but does not parse (hand-written entry).
  CacheEntry bogus;
  bogus.cubin = {'x'};
  REQUIRE(writeKernelCacheEntry(dir.path, first.key, bogus).empty());
  CacheEntry e;
  REQUIRE(readKernelCacheEntry(first.entryPath, first.key, e) == CacheEntryState::Ok);
  CHECK(e.cubin == std::vector<char>{'x'});
  std::string bytes = readFile(first.entryPath);
  // Bump the stored cubin length beyond the payload and fix up the checksum.
  bytes[88] = 100;
  {
    Sha256 h;
    h.update(bytes.data() + 88, bytes.size() - 88);
    std::uint8_t d[32];
    h.finish(d);
    std::memcpy(&bytes[56], d, 32);
  }
  writeFile(first.entryPath, bytes);
  CHECK(readKernelCacheEntry(first.entryPath, first.key, e) == CacheEntryState::BadPayload);
  CHECK(readKernelCacheEntry(dir.path + "/none.ckc", first.key, e) == CacheEntryState::Missing);
}

TEST_CASE("kernel cache: concurrent writers of one key", "[cache][fork]") {
  TempDir dir;
  CacheOptions cache;
  cache.dir = dir.path + "/shared";
  const NvrtcOptions opt = smallOptions();
  const std::string key = kernelCacheKey(kSmallKernel, "small.cu", opt);
  const std::string path = kernelCacheEntryPath(cache.dir, key);

  constexpr int kWriters = 8;
  int gate[2];
  REQUIRE(pipe(gate) == 0);
  std::vector<pid_t> kids;
  for (int i = 0; i < kWriters; ++i) {
    const pid_t pid = fork();
    if (pid == 0) {  // no Catch2 assertions in the child
      // Child: wait for the gate, compile through the cache, then hammer the
      // entry with rewrites and validated reads. Exit code = number of failures.
      close(gate[1]);
      char c;
      while (read(gate[0], &c, 1) < 0) {
      }
      int failures = 0;
      const CachedNvrtcResult r = compileCached(kSmallKernel, "small.cu", opt, cache);
      if (!r.ok || r.cubin.empty() || !r.warning.empty()) ++failures;
      CacheEntry mine;
      mine.cubin = r.cubin;
      mine.log = r.log;
      mine.loweredNames = r.loweredNames;
      for (int k = 0; k < 20; ++k) {
        if (!writeKernelCacheEntry(cache.dir, key, mine).empty()) ++failures;
        CacheEntry seen;
        if (readKernelCacheEntry(path, key, seen) != CacheEntryState::Ok) ++failures;
      }
      _exit(failures > 100 ? 100 : failures);
    }
    REQUIRE(pid > 0);
    kids.push_back(pid);
  }
  close(gate[0]);
  close(gate[1]);  // opens the gate: every child's read() returns 0
  int okKids = 0;
  for (pid_t pid : kids) {
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    INFO("child " << pid << " status " << status);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) ++okKids;
  }
  CHECK(okKids == kWriters);

  CacheEntry e;
  std::string detail;
  INFO(detail);
  REQUIRE(readKernelCacheEntry(path, key, e, &detail) == CacheEntryState::Ok);
  CHECK(countTempFiles(cache.dir) == 0);
  CHECK(listDir(cache.dir).size() == 1);
  const CachedNvrtcResult hit = compileCached(kSmallKernel, "small.cu", opt, cache);
  CHECK(hit.fromCache);
  const NvrtcResult fresh = compileToCubin(kSmallKernel, "small.cu", opt);
  REQUIRE(fresh.ok);
  CHECK(hit.cubin == fresh.cubin);  // NVRTC is deterministic; the entry is not a mix
}

TEST_CASE("kernel cache: an unusable cache directory degrades to plain compiles", "[cache]") {
  TempDir dir;
  const NvrtcOptions opt = smallOptions();

  SECTION("a path below a regular file") {
    writeFile(dir.path + "/file", "x");
    CacheOptions cache;
    cache.dir = dir.path + "/file/cache";
    for (int i = 0; i < 2; ++i) {
      const CachedNvrtcResult r = compileCached(kSmallKernel, "small.cu", opt, cache);
      INFO(r.warning);
      REQUIRE(r.ok);
      CHECK_FALSE(r.cubin.empty());
      CHECK_FALSE(r.fromCache);
      CHECK(r.warning.find("cannot store") != std::string::npos);
      CHECK(r.warning.find("compiled without caching") != std::string::npos);
    }
  }
  SECTION("a read-only directory") {
    if (geteuid() == 0) {
      WARN(
          "running as root: directory permissions are not enforced; read-only case skipped "
          "(the path-below-a-file case covers the write failure)");
      return;
    }
    CacheOptions cache;
    cache.dir = dir.path + "/ro";
    REQUIRE(mkdir(cache.dir.c_str(), 0555) == 0);
    const CachedNvrtcResult r = compileCached(kSmallKernel, "small.cu", opt, cache);
    REQUIRE(r.ok);
    CHECK_FALSE(r.fromCache);
    CHECK(r.warning.find("compiled without caching") != std::string::npos);
    CHECK(listDir(cache.dir).empty());
    // A populated cache that became read-only still serves hits.
    REQUIRE(chmod(cache.dir.c_str(), 0755) == 0);
    REQUIRE(compileCached(kSmallKernel, "small.cu", opt, cache).warning.empty());
    REQUIRE(chmod(cache.dir.c_str(), 0555) == 0);
    const CachedNvrtcResult hit = compileCached(kSmallKernel, "small.cu", opt, cache);
    CHECK(hit.fromCache);
    CHECK(hit.warning.empty());
    chmod(cache.dir.c_str(), 0755);
  }
  SECTION("an unreadable entry") {
    CacheOptions cache;
    cache.dir = dir.path;
    const std::string key = kernelCacheKey(kSmallKernel, "small.cu", opt);
    // A directory where the entry file should be: cannot be read, cannot be replaced.
    REQUIRE(mkdir(kernelCacheEntryPath(cache.dir, key).c_str(), 0755) == 0);
    const CachedNvrtcResult r = compileCached(kSmallKernel, "small.cu", opt, cache);
    INFO(r.warning);
    REQUIRE(r.ok);
    CHECK_FALSE(r.fromCache);
    CHECK(r.warning.find("not a readable regular file") != std::string::npos);
    CHECK(r.warning.find("cannot store") != std::string::npos);
    CHECK(r.warning.find("compiled without caching") != std::string::npos);
    CHECK(countTempFiles(cache.dir) == 0);
  }
}

TEST_CASE("kernel cache: default directory", "[cache]") {
  EnvGuard g1("CREDIT_CACHE_DIR"), g2("XDG_CACHE_HOME"), g3("HOME");
  setenv("CREDIT_CACHE_DIR", "/tmp/credit-explicit", 1);
  setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  setenv("HOME", "/tmp/home", 1);
  CHECK(defaultKernelCacheDir() == "/tmp/credit-explicit");
  unsetenv("CREDIT_CACHE_DIR");
  CHECK(defaultKernelCacheDir() == "/tmp/xdg/creditc");
  setenv("XDG_CACHE_HOME", "relative/ignored", 1);
  CHECK(defaultKernelCacheDir() == "/tmp/home/.cache/creditc");
  unsetenv("XDG_CACHE_HOME");
  CHECK(defaultKernelCacheDir() == "/tmp/home/.cache/creditc");
  unsetenv("HOME");
  CHECK_FALSE(defaultKernelCacheDir().empty());  // the passwd home

  TempDir dir;
  setenv("CREDIT_CACHE_DIR", (dir.path + "/env").c_str(), 1);
  const CachedNvrtcResult r = compileCached(kSmallKernel, "small.cu", smallOptions());
  REQUIRE(r.ok);
  CHECK(r.entryPath == kernelCacheEntryPath(dir.path + "/env", r.key));
  CHECK(compileCached(kSmallKernel, "small.cu", smallOptions()).fromCache);
}
