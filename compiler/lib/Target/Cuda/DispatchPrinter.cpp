//===- DispatchPrinter.cpp - the dispatch data of a generated file --------===//
//
// With --profile: the device's figures (credit::model::Device) and this
// kernel's traffic as constants for the runtime's model-driven dispatch
// (credit/runtime/Dispatch.h, docs/cost-model.md "Dispatch"). The kernel's
// geometry and forms are the launchers' kWorkload already.
//
//===----------------------------------------------------------------------===//
#include "Printers.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <cstdio>
#include <string>

namespace credit::cuda {

/// A double literal that reads back as exactly `d`.
static std::string doubleLiteral(double d) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", d);
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos)
    s += ".0";
  return s;
}

template <class T, class F>
static std::string list(const T *v, int n, F item) {
  std::string s = "{";
  for (int i = 0; i < n; ++i)
    s += (i ? ", " : "") + item(v[i]);
  return s + "}";
}

void printDispatchData(const KernelView &k, llvm::raw_ostream &os) {
  const DispatchProfile &prof = *k.options->dispatch;
  const model::Device &d = prof.device;
  using model::kMaxResidentCtas;
  using model::kNumClusterSizes;
  auto num = [](double v) { return doubleLiteral(v); };
  auto integer = [](int v) { return std::to_string(v); };
  auto boolean = [](bool v) { return std::string(v ? "true" : "false"); };
  os << "\n// The device profile " << llvm::sys::path::filename(prof.path) << " (" << prof.deviceName
     << ") and this kernel's traffic.\n";
  os << "inline constexpr credit::host::Profile kProfile = {\n";
  os << "    {" << d.sms << ", " << num(d.smClockMHz) << ", " << d.smemPerSm << ", " << d.smemOptin << ", "
     << d.maxThreadsPerSm << ", " << d.maxCtasPerSm
     << ",  // S, f (MHz), SMEM per SM and per block, threads and CTAs per SM\n";
  os << "     " << num(d.smemReadBpc) << ", " << num(d.smemWriteBpc) << ",  // B_SMEM^r, B_SMEM^w (B/clk/SM)\n";
  os << "     {" << list(d.dsmStoreBpc[0], kNumClusterSizes, num) << ",\n      "
     << list(d.dsmStoreBpc[1], kNumClusterSizes, num) << "},  // B_DSM^w: [protocol][log2 P]\n";
  // Resident clusters per P and CTAs per SM: only the entries the profile has.
  os << "     {";
  for (int l = 0; l < kNumClusterSizes; ++l) {
    int n = kMaxResidentCtas;
    while (n > 0 && d.residentClusters[l][n - 1] == 0)
      --n;
    os << (l ? ", " : "") << list(d.residentClusters[l], n, integer);
  }
  os << "},  // resident clusters: [log2 P][CTAs per SM - 1], {}: not measured\n";
  os << "     {";
  for (int p = 0; p < 2; ++p) {
    os << (p ? ",\n      {" : "{");
    for (int l = 0; l < kNumClusterSizes; ++l) {
      const model::GridCost &c = d.grid[p][l];
      os << (l ? ",\n       " : "") << "{" << num(c.launchUs) << ", " << num(c.ctaCycles) << ", "
         << num(c.stageCycles) << ", " << num(c.statisticCycles) << ", " << num(c.issueCycles) << "}";
    }
    os << "}";
  }
  os << "},  // control grid: [protocol][log2 P] {launch us, CTA, stage, statistic, issue cycles}\n";
  os << "     {" << list(d.gridMeasured[0], kNumClusterSizes, boolean) << ", "
     << list(d.gridMeasured[1], kNumClusterSizes, boolean) << "},\n";
  os << "     " << num(d.globalLoadCycles) << ", " << num(d.copyBytesPerMs)
     << "},  // global-load latency (cycles), copy rate (B/ms); 0: not measured\n";
  const model::Traffic &t = prof.traffic;
  if (t.baselineReread >= 0) // the reread kernel runs its own stages
    os << llvm::formatv("    {{{0}, {1}, {2}, {3}, {4}, {5}, {6}},", t.baseline, t.reread, t.keep,
                        t.fixedPerElement, t.fixedPerRow, t.qSum, t.baselineReread)
       << "  // b_B, b_reread, b_keep, D_fixed per element, D_fixed per row, sum q, the reread kernel's "
          "b_reread\n";
  else
    os << llvm::formatv("    {{{0}, {1}, {2}, {3}, {4}, {5}},", t.baseline, t.reread, t.keep, t.fixedPerElement,
                        t.fixedPerRow, t.qSum)
       << "  // b_B, b_reread, b_keep, D_fixed per element, D_fixed per row, sum q\n";
  os << "};\n";
  os << "inline credit::host::PlanCache planCache;\n";
  os << "inline const credit::host::Dispatch kDispatch = {&kWorkload, &kProfile, &planCache};\n";
}

} // namespace credit::cuda
