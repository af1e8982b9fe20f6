// The device library compiles on its own, header by header, and with every
// fixture workload, through NVRTC from the headers embedded in the runtime (no
// include path): every form's kernel, without spills or stack. No GPU needed.
// (tests/device/CMakeLists.txt also compiles them with nvcc.)
#include "credit/runtime/Library.h"
#include "credit/runtime/Nvrtc.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace credit;

namespace {

std::string readFixture(const std::string& name) {
  std::ifstream in(std::string(CREDIT_DEVICE_FIXTURES) + "/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The extern "C" kernel names a fixture defines (its CREDIT_*_KERNEL lines).
std::vector<std::string> kernelNames(const std::string& source) {
  std::vector<std::string> names;
  std::istringstream in(source);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("CREDIT_", 0) != 0 || line.find("_KERNEL(") == std::string::npos) continue;
    const std::size_t b = line.find('(') + 1, e = line.find(',', b);
    names.push_back(line.substr(b, e - b));
  }
  return names;
}

}  // namespace

TEST_CASE("Every device header compiles on its own through NVRTC", "[device][nvrtc]") {
  std::size_t n = 0;
  const EmbeddedHeader* h = deviceLibraryHeaders(&n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::string src = std::string("#include <") + h[i].name + ">\n";
    NvrtcOptions opt;
    opt.ptxasVerbose = false;
    const NvrtcResult r = compileToCubin(src, "header.cu", opt);
    INFO(h[i].name << "\n" << r.log);
    CHECK(r.ok);
  }
}

TEST_CASE("Every fixture compiles through NVRTC, every kernel without spills", "[device][nvrtc]") {
  for (const char* fixture : CREDIT_DEVICE_FIXTURE_LIST) {
    const std::string src = readFixture(fixture);
    REQUIRE_FALSE(src.empty());
    const std::vector<std::string> names = kernelNames(src);
    REQUIRE_FALSE(names.empty());
    NvrtcOptions opt;
    const NvrtcResult r = compileToCubin(src, fixture, opt);
    INFO(fixture << "\n" << r.log);
    REQUIRE(r.ok);
    CHECK(r.kernels.size() == names.size());
    for (const std::string& name : names) {
      INFO("kernel " << name);
      bool found = false;
      for (const KernelResources& k : r.kernels) {
        if (k.name != name) continue;
        found = true;
        CHECK(k.registers > 0);
        CHECK(k.stackFrameBytes == 0);
        CHECK(k.spillStoreBytes == 0);
        CHECK(k.spillLoadBytes == 0);
      }
      CHECK(found);
    }
  }
}
