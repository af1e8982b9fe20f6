// Helpers shared by the runtime unit tests: a temporary directory removed
// recursively on destruction, and an environment variable restored on scope
// exit.
#ifndef CREDIT_TESTS_RUNTIME_TESTSUPPORT_H
#define CREDIT_TESTS_RUNTIME_TESTSUPPORT_H

#include <ftw.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace credit::testing {

struct TempDir {
  std::string path;
  explicit TempDir(const char* prefix = "credit-test") {
    std::string tmpl = std::string("/tmp/") + prefix + "-XXXXXX";
    const char* p = mkdtemp(tmpl.data());
    path = p ? p : "";
  }
  ~TempDir() {
    if (path.empty()) return;
    chmod(path.c_str(), 0755);  // a test may have made it read-only
    nftw(
        path.c_str(),
        [](const char* f, const struct stat*, int, struct FTW*) { return std::remove(f); }, 16,
        FTW_DEPTH | FTW_PHYS);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

struct EnvGuard {
  std::string name, old;
  bool had;
  explicit EnvGuard(const char* n) : name(n) {
    const char* v = std::getenv(n);
    had = v != nullptr;
    if (had) old = v;
  }
  ~EnvGuard() {
    if (had)
      setenv(name.c_str(), old.c_str(), 1);
    else
      unsetenv(name.c_str());
  }
};

}  // namespace credit::testing

#endif  // CREDIT_TESTS_RUNTIME_TESTSUPPORT_H
