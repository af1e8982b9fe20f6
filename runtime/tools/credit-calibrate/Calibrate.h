// credit-calibrate's parts (docs/cost-model.md, "The device profile"), one
// concern per file:
//   Options.cpp          the command line;
//   Microbench.cu        the SM clock and the SMEM, DSMEM and barrier microbenchmarks;
//   Memory.cu            the copy rate and the global-load latency;
//   Controls.cu          the control kernels of generated files, and --time-baseline;
//   ProfileJson.cpp      the profile JSON and the printed tables;
//   credit_calibrate.cu  main.
#ifndef CREDIT_CALIBRATE_TOOL_H
#define CREDIT_CALIBRATE_TOOL_H

#include "CalibrateSupport.h"

#include "credit/runtime/Layout.h"
#include "credit/runtime/Runtime.h"

#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#ifndef CREDIT_VERSION
#define CREDIT_VERSION "0.1.0"
#endif

namespace credit::calibrate::tool {

namespace cal = credit::calibrate;

// One CTA's record of a microbenchmark.
struct CtaRecord {
  unsigned long long cycles;   // the timed interval (clock64)
  unsigned long long cycles2;  // a second interval (completion), where measured
  unsigned long long bytes;    // bytes this CTA moved in `cycles`
  unsigned long long sink;     // keeps results alive
  unsigned smid;
  unsigned rank;
};

constexpr int kUnroll = 8;  // independent accesses in flight per thread
constexpr int kDataOffset = 16;  // the throughput kernels' data (their mbarrier lives at offset 0)

struct Options {
  std::string out = "device-profile.json";
  int runs = 15;
  int threads = 256;
  int device = 0;
  std::vector<std::string> controls;  // FILE.cu[@M,M...]
  std::vector<std::string> baselines; // --time-baseline FILE.cu[@M,M...]
  std::vector<long long> ctrlN = {4096, 8192, 16384, 32768, 65536, 131072, 262144};
  std::vector<long long> ctrlM = {4096};
  std::vector<int> clusterSizes = {2, 4, 8, 16};
  bool skipMicro = false;
  bool dryRun = false;
  std::string driverString;
};

// Parses the command line: 0 to run, -1 after --help, 1 on a usage error (printed).
int parseArgs(int argc, char** argv, Options& o);

// One --control argument, read and parsed.
struct ControlFile {
  std::string path;
  std::vector<long long> M;
  std::string source;
  cal::GeneratedKernel k;
  credit::WorkloadGeometry geometry() const {
    return {k.keepBytesPerElem, k.numStages, k.qMax, k.qSum, k.threads};
  }
};
bool readControl(const std::string& arg, const Options& o, ControlFile& cf);
long long oneCtaSmem(credit::WorkloadGeometry g, long long N, credit::Protocol proto, long long limit);
const char* protoName(credit::Protocol p);

#define CUDA_TRY(expr)                                                                        \
  do {                                                                                        \
    cudaError_t e_ = (expr);                                                                  \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "credit-calibrate: error: %s: %s (%s:%d)\n", #expr,                \
                   cudaGetErrorString(e_), __FILE__, __LINE__);                               \
      return false;                                                                           \
    }                                                                                         \
  } while (0)

struct Device {
  cudaDeviceProp prop{};
  int clockKHz = -1, memClockKHz = -1, busWidth = -1;
  int driverVersion = 0, runtimeVersion = 0;
  int smemPerSm = 0, smemOptin = 0;
  size_t microSmem = 0;  // dynamic SMEM per microbenchmark CTA: > half an SM, so one CTA per SM
  double clockMHzMeasured = 0;
  cudaStream_t stream = nullptr;
  CtaRecord* recs = nullptr;  // device, 64 records
  unsigned long long* scratch = nullptr;
};

struct Micro {
  bool measured = false;
  double smemLoadLatency = NAN, dsmemLoadLatency = NAN;   // cycles
  double smemReadBpc = NAN, smemWriteBpc = NAN;           // B/clk per CTA (SM)
  std::map<int, double> dsmemLoadBpc, dsmemStoreBpc, dsmemStoreAsyncBpc;
  std::map<int, double> dsmemStoreCompleteBpc, dsmemStoreAsyncCompleteBpc;
  std::map<int, double> clusterBarrier;                   // cycles per barrier
  double mbarrierRoundTrip = NAN;                         // cycles
  std::vector<int> skippedP;                              // clusters that cannot be resident
  bool distinctSms = true;
  double copyGBps = NAN;           // device-to-device copy: GB/s read + written
  double globalLoadLatency = NAN;  // cycles per dependent global load past L2
};

struct CtrlEntry {
  std::string kernel;
  cal::GeneratedKernel k;
  credit::Protocol protocol;
  int P;
  long long M, N, smem, oneCtaSmem;
  std::string baseline;  // staged | reread: whose footprint the one-CTA control has
  double tControlMs, tOneCtaMs;
};

// Busy-waits `cycles` SM cycles: keeps the stream busy while the host enqueues the
// timed launch behind it.
__global__ void spinKernel(long long cycles);
// Median over runs of `one(run)` after a warm-up; false on a CUDA error.
bool medianOf(int runs, const std::function<bool(double&)>& one, double& out);
bool measureClock(Device& dev, int runs);
bool measureMicro(Device& dev, const Options& o, Micro& m);
bool measureMemory(Device& dev, const Options& o, Micro& m);
bool measureControls(Device& dev, const Options& o, std::vector<ControlFile>& files,
                     std::vector<CtrlEntry>& ctrl, bool& complete);
// --time-baseline: T_B of each file at every M and N; the exit status.
int timeBaselines(const Options& o);
std::string profileJSON(const Device& dev, const Options& o, const Micro& m, const std::vector<CtrlEntry>& ctrl);
void printTables(const Device& dev, const Options& o, const Micro& m, const std::vector<CtrlEntry>& ctrl);

}  // namespace credit::calibrate::tool

#endif  // CREDIT_CALIBRATE_TOOL_H
