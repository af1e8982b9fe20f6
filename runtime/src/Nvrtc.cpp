// NVRTC compile path. Needs libnvrtc only: no GPU, no libcuda.
#include "credit/runtime/Nvrtc.h"

#include "credit/runtime/Library.h"

#include <nvrtc.h>

#include <cstdlib>
#include <cstring>
#include <sstream>

#ifndef CREDIT_CUDA_TOOLKIT_ROOT
#define CREDIT_CUDA_TOOLKIT_ROOT "/usr/local/cuda"
#endif

namespace credit {

namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return std::string();
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// Integer immediately before position `pos` of `line` (spaces skipped), or -1.
int numberAt(const std::string& line, size_t pos) {
  size_t end = pos;
  while (end > 0 && line[end - 1] == ' ') --end;
  size_t beg = end;
  while (beg > 0 && line[beg - 1] >= '0' && line[beg - 1] <= '9') --beg;
  if (beg == end) return -1;
  return std::atoi(line.substr(beg, end - beg).c_str());
}

// Integer immediately before `unit` in `line` ("12 bytes spill stores" -> 12), or -1.
int numberBefore(const std::string& line, const char* unit) {
  size_t pos = line.find(unit);
  if (pos == std::string::npos) return -1;
  return numberAt(line, pos);
}

// Name between the first pair of single quotes ('' if none).
std::string quotedName(const std::string& line) {
  size_t a = line.find('\'');
  if (a == std::string::npos) return std::string();
  size_t b = line.find('\'', a + 1);
  if (b == std::string::npos) return std::string();
  return line.substr(a + 1, b - a - 1);
}

struct StackProps {
  int stack = -1, spillStores = -1, spillLoads = -1;
};

}  // namespace

void parsePtxasLog(const std::string& log, std::vector<KernelResources>& kernels,
                   std::vector<KernelResources>& functions) {
  // ptxas -v (CUDA 13.0) prints, per entry:
  //   ptxas info    : Compiling entry function 'NAME' for 'sm_90'
  //   ptxas info    : Function properties for NAME
  //   ptxas         .     N bytes stack frame, N bytes spill stores, N bytes spill loads
  //   ptxas info    : Used N registers, used N barriers, N bytes cumulative stack size, N bytes smem[, N bytes cmem[0]]
  // and "Function properties for NAME" + the stack line for non-inlined callees.
  std::vector<std::pair<std::string, StackProps>> props;  // in order of appearance
  std::string propsTarget;
  int currentEntry = -1;
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find("Compiling entry function") != std::string::npos) {
      KernelResources k;
      k.name = quotedName(line);
      kernels.push_back(k);
      currentEntry = static_cast<int>(kernels.size()) - 1;
      continue;
    }
    const char* fp = "Function properties for ";
    size_t p = line.find(fp);
    if (p != std::string::npos) {
      propsTarget = trim(line.substr(p + std::strlen(fp)));
      continue;
    }
    if (line.find("bytes stack frame") != std::string::npos) {
      StackProps sp;
      sp.stack = numberBefore(line, "bytes stack frame");
      sp.spillStores = numberBefore(line, "bytes spill stores");
      sp.spillLoads = numberBefore(line, "bytes spill loads");
      props.emplace_back(propsTarget, sp);
      continue;
    }
    if (line.find("Used ") != std::string::npos && line.find(" registers") != std::string::npos &&
        currentEntry >= 0) {
      KernelResources& k = kernels[currentEntry];
      k.registers = numberBefore(line, "registers");
      k.barriers = numberBefore(line, "barriers");
      k.cumulativeStackBytes = numberBefore(line, "bytes cumulative stack size");
      int smem = numberBefore(line, "bytes smem");
      if (smem >= 0) k.sharedBytes = smem;
      // every "N bytes cmem[k]"
      size_t from = 0;
      int cmem = 0;
      while ((from = line.find("bytes cmem[", from)) != std::string::npos) {
        int v = numberAt(line, from);
        if (v > 0) cmem += v;
        from += 1;
      }
      k.constBytes = cmem;
      continue;
    }
  }
  for (const auto& np : props) {
    bool isEntry = false;
    for (KernelResources& k : kernels) {
      if (k.name == np.first) {
        k.stackFrameBytes = np.second.stack;
        k.spillStoreBytes = np.second.spillStores;
        k.spillLoadBytes = np.second.spillLoads;
        isEntry = true;
      }
    }
    if (!isEntry) {
      KernelResources f;
      f.name = np.first;
      f.stackFrameBytes = np.second.stack;
      f.spillStoreBytes = np.second.spillStores;
      f.spillLoadBytes = np.second.spillLoads;
      functions.push_back(f);
    }
  }
}

std::string nvrtcVersionString() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "unknown";
  return std::to_string(major) + "." + std::to_string(minor);
}

std::vector<std::string> defaultNvrtcIncludeDirs() {
  std::string root;
  if (const char* env = std::getenv("CUDA_HOME"); env && *env) root = env;
  else root = CREDIT_CUDA_TOOLKIT_ROOT;
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  return {root + "/include", root + "/include/cccl"};
}

std::vector<std::string> nvrtcFlags(const NvrtcOptions& options) {
  std::vector<std::string> flags;
  flags.push_back("--gpu-architecture=" + options.arch);
  flags.push_back("-std=c++17");
  const std::vector<std::string> dirs =
      options.includeDirs.empty() ? defaultNvrtcIncludeDirs() : options.includeDirs;
  for (const std::string& d : dirs) flags.push_back("-I" + d);
  for (const std::string& d : options.defines) flags.push_back("-D" + d);
  if (options.ptxasVerbose) flags.push_back("--ptxas-options=-v");
  for (const std::string& f : options.extraFlags) flags.push_back(f);
  return flags;
}

NvrtcResult compileToCubin(const std::string& source, const std::string& name,
                           const NvrtcOptions& options) {
  NvrtcResult result;
  result.nvrtcVersion = nvrtcVersionString();

  result.flags = nvrtcFlags(options);
  const std::vector<std::string>& flags = result.flags;

  // The device library's headers, by the names a source #includes them.
  std::vector<const char*> headers, includeNames;
  if (options.libraryHeaders) {
    std::size_t n = 0;
    const EmbeddedHeader* h = deviceLibraryHeaders(&n);
    for (std::size_t i = 0; i < n; ++i) {
      headers.push_back(h[i].text);
      includeNames.push_back(h[i].name);
    }
  }
  nvrtcProgram prog = nullptr;
  nvrtcResult rc = nvrtcCreateProgram(&prog, source.c_str(), name.c_str(), static_cast<int>(headers.size()),
                                      headers.empty() ? nullptr : headers.data(),
                                      includeNames.empty() ? nullptr : includeNames.data());
  if (rc != NVRTC_SUCCESS) {
    result.log = std::string("nvrtcCreateProgram failed: ") + nvrtcGetErrorString(rc);
    return result;
  }
  for (const std::string& e : options.nameExpressions) {
    rc = nvrtcAddNameExpression(prog, e.c_str());
    if (rc != NVRTC_SUCCESS) {
      result.log = "nvrtcAddNameExpression(" + e + ") failed: " + nvrtcGetErrorString(rc);
      nvrtcDestroyProgram(&prog);
      return result;
    }
  }

  std::vector<const char*> argv;
  argv.reserve(flags.size());
  for (const std::string& f : flags) argv.push_back(f.c_str());
  const nvrtcResult compileRc =
      nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data());

  size_t logSize = 0;
  if (nvrtcGetProgramLogSize(prog, &logSize) == NVRTC_SUCCESS && logSize > 1) {
    std::string log(logSize, '\0');
    if (nvrtcGetProgramLog(prog, &log[0]) == NVRTC_SUCCESS) {
      while (!log.empty() && log.back() == '\0') log.pop_back();
      result.log = log;
    }
  }
  if (compileRc != NVRTC_SUCCESS) {
    if (result.log.empty()) result.log = nvrtcGetErrorString(compileRc);
    nvrtcDestroyProgram(&prog);
    return result;
  }

  size_t cubinSize = 0;
  if (nvrtcGetCUBINSize(prog, &cubinSize) == NVRTC_SUCCESS && cubinSize > 0) {
    result.cubin.resize(cubinSize);
    if (nvrtcGetCUBIN(prog, result.cubin.data()) != NVRTC_SUCCESS) result.cubin.clear();
  }
  for (const std::string& e : options.nameExpressions) {
    const char* lowered = nullptr;
    if (nvrtcGetLoweredName(prog, e.c_str(), &lowered) == NVRTC_SUCCESS && lowered)
      result.loweredNames.emplace_back(e, lowered);
  }
  nvrtcDestroyProgram(&prog);

  parsePtxasLog(result.log, result.kernels, result.functions);
  // An sm_* target must produce a cubin; compute_* yields PTX only (not fetched here).
  result.ok = options.arch.rfind("sm_", 0) != 0 || !result.cubin.empty();
  if (!result.ok) result.log += "\ncredit: NVRTC produced no cubin for " + options.arch + "\n";
  return result;
}

}  // namespace credit
