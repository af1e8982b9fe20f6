//===- DispatchPrinter.cpp - the dispatch data of a generated file --------===//
//
// With --profile: the device's figures and this kernel's (T_ctrl points,
// traffic) as constants for the runtime's model-driven dispatch
// (credit/runtime/Dispatch.h, docs/cost-model.md "Dispatch").
//
//===----------------------------------------------------------------------===//
#include "Printers.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cstdio>

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

void printDispatchData(const KernelView &k, llvm::raw_ostream &os) {
  const DispatchProfile &prof = *k.options->dispatch;
  os << "\n// The device profile " << llvm::sys::path::filename(prof.path) << " (" << prof.deviceName
     << ") and this kernel's traffic.\n";
  os << "inline constexpr credit::model::CtrlPoint kCtrl[] = {\n";
  if (prof.ctrl.empty())
    os << "    {0, 0, 0, 0, 0.0},  // none: no cluster size can be evaluated\n";
  for (const DispatchProfile::Ctrl &c : prof.ctrl)
    os << llvm::formatv("    {{{0}, {1}, {2}, {3}, {4}},\n", c.protocol, c.P, c.M, c.N, doubleLiteral(c.ms));
  os << "};\n";
  os << "inline const credit::host::Profile kProfile = {\n";
  os << llvm::formatv("    {{{0}, {1}, {2}, {3}},  // S, f (MHz), B_SMEM^r, B_SMEM^w (B/clk/SM)\n", prof.sms,
                      doubleLiteral(prof.smClockMHz), doubleLiteral(prof.smemReadBpc),
                      doubleLiteral(prof.smemWriteBpc));
  for (int protocol = 0; protocol < 2; ++protocol) {
    const std::map<int, double> &rates = protocol ? prof.dsmemStoreAsyncBpc : prof.dsmemStoreBpc;
    os << (protocol ? "     {" : "    {{");
    for (int l = 0; l < 5; ++l) {
      auto it = rates.find(1 << l);
      os << (l ? ", " : "") << (l > 0 && it != rates.end() ? doubleLiteral(it->second) : "0.0");
    }
    os << (protocol ? "}},\n" : "},  // B_DSM^w(P): [protocol][log2 P]\n");
  }
  const DispatchProfile::Traffic &t = prof.traffic;
  const std::string ctrl = "kCtrl, " + std::to_string(prof.ctrl.size()) + ",";
  const std::string traffic = llvm::formatv("{{{0}, {1}, {2}, {3}, {4}, {5}},", t.baseline, t.reread, t.keep,
                                            t.fixedPerElement, t.fixedPerRow, k.schedule.geometry.qSum);
  const size_t column = std::max(ctrl.size(), traffic.size()) + 2;
  os << "    " << ctrl << std::string(column - ctrl.size(), ' ') << "// T_ctrl points {protocol, P, M, N, ms}\n";
  os << "    " << traffic << std::string(column - traffic.size(), ' ')
     << "// b_B, b_reread, b_keep, D_fixed per element, D_fixed per row, sum q\n";
  os << "};\n";
  os << "inline credit::host::PlanCache planCache;\n";
  os << "inline const credit::host::Dispatch kDispatch = {&kWorkload, &kProfile, &planCache};\n";
}

} // namespace credit::cuda
