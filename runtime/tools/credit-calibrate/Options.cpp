// credit-calibrate's command line.
#include "Calibrate.h"

#include <cstdlib>

namespace credit::calibrate::tool {

namespace {

void usage(FILE* f) {
  std::fprintf(f,
               "usage: credit-calibrate [options]\n"
               "  --out FILE            profile JSON to write (default device-profile.json)\n"
               "  --runs N              runs per measurement, the median is kept (default 15)\n"
               "  --threads N           threads per CTA of the microbenchmarks (default 256)\n"
               "  --device N            CUDA device ordinal (default 0)\n"
               "  --control FILE.cu[@M,M...]\n"
               "                        a creditc-generated file whose work-free control kernels\n"
               "                        give T_ctrl(M, N, P); repeatable; M list default --ctrl-M\n"
               "  --ctrl-N LIST         row widths for T_ctrl (default 4K,8K,16K,32K,64K,128K,256K)\n"
               "  --time-baseline FILE.cu[@M,M...]\n"
               "                        instead of calibrating: time T_B, the file's staged kernel\n"
               "                        (reread where Eq. 3 forbids P = 1) at every M and --ctrl-N,\n"
               "                        median of --runs, L2 flushed; repeatable; prints a table\n"
               "  --ctrl-M LIST         rows for T_ctrl (default 4096)\n"
               "  --P LIST              cluster sizes (default 2,4,8,16)\n"
               "  --skip-micro          T_ctrl only (the profile then lacks the rates)\n"
               "  --driver-string S     driver version text to record (e.g. from nvidia-smi)\n"
               "  --dry-run             read the --control files and print the plan; no GPU\n");
}


}  // namespace

int parseArgs(int argc, char** argv, Options& o) {
  auto need = [&](int& i, const std::string& name, std::string& val, const char* arg) -> bool {
    const std::string a = arg;
    const std::string eq = name + "=";
    if (a.rfind(eq, 0) == 0) {
      val = a.substr(eq.size());
      return true;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "credit-calibrate: error: %s needs a value\n", name.c_str());
      return false;
    }
    val = argv[++i];
    return true;
  };
  auto intArg = [](const std::string& name, const std::string& v, int lo, int hi, int& out) {
    char* end = nullptr;
    long x = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || x < lo || x > hi) {
      std::fprintf(stderr, "credit-calibrate: error: %s must be an integer in [%d, %d], not '%s'\n",
                   name.c_str(), lo, hi, v.c_str());
      return false;
    }
    out = static_cast<int>(x);
    return true;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto is = [&](const char* n) { return a == n || a.rfind(std::string(n) + "=", 0) == 0; };
    std::string v;
    if (a == "--help" || a == "-h") {
      usage(stdout);
      return -1;
    } else if (a == "--skip-micro") {
      o.skipMicro = true;
    } else if (a == "--dry-run") {
      o.dryRun = true;
    } else if (is("--out")) {
      if (!need(i, "--out", o.out, argv[i])) return 1;
    } else if (is("--runs")) {
      if (!need(i, "--runs", v, argv[i]) || !intArg("--runs", v, 1, 1000, o.runs)) return 1;
    } else if (is("--threads")) {
      if (!need(i, "--threads", v, argv[i]) || !intArg("--threads", v, 32, 1024, o.threads)) return 1;
      if (o.threads % 32) {
        std::fprintf(stderr, "credit-calibrate: error: --threads must be a multiple of 32\n");
        return 1;
      }
    } else if (is("--device")) {
      if (!need(i, "--device", v, argv[i]) || !intArg("--device", v, 0, 1024, o.device)) return 1;
    } else if (is("--control")) {
      if (!need(i, "--control", v, argv[i])) return 1;
      o.controls.push_back(v);
    } else if (is("--time-baseline")) {
      if (!need(i, "--time-baseline", v, argv[i])) return 1;
      o.baselines.push_back(v);
    } else if (is("--ctrl-N") || is("--ctrl-M") || is("--P")) {
      const std::string name = a.substr(0, a.find('='));
      std::vector<long long> list;
      std::string err;
      if (!need(i, name, v, argv[i])) return 1;
      if (!cal::parseIntList(v, list, err)) {
        std::fprintf(stderr, "credit-calibrate: error: %s: %s\n", name.c_str(), err.c_str());
        return 1;
      }
      if (name == "--ctrl-N") o.ctrlN = list;
      if (name == "--ctrl-M") o.ctrlM = list;
      if (name == "--P") {
        o.clusterSizes.clear();
        for (long long p : list) {
          if (p != 2 && p != 4 && p != 8 && p != 16) {
            std::fprintf(stderr, "credit-calibrate: error: --P takes 2, 4, 8 and 16, not %lld\n", p);
            return 1;
          }
          o.clusterSizes.push_back(static_cast<int>(p));
        }
      }
    } else if (is("--driver-string")) {
      if (!need(i, "--driver-string", o.driverString, argv[i])) return 1;
    } else {
      std::fprintf(stderr, "credit-calibrate: error: unknown argument '%s' (see --help)\n", a.c_str());
      return 1;
    }
  }
  for (long long n : o.ctrlN)
    if (n > credit::kMaxRowElems) {
      std::fprintf(stderr, "credit-calibrate: error: --ctrl-N %lld exceeds %lld\n", n, credit::kMaxRowElems);
      return 1;
    }
  return 0;
}

}  // namespace credit::calibrate::tool
