// credit-calibrate: the profile JSON (schema credit-device-profile, version 1:
// the device's figures and the control-kernel timings, which creditc reduces to the
// control grid) and the printed tables.
#include "Calibrate.h"

#include <ctime>

namespace credit::calibrate::tool {

namespace {

std::string isoNow() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

void writeRates(cal::JsonWriter& w, const std::string& key, const std::map<int, double>& m) {
  w.key(key);
  w.beginObject();
  for (const auto& [P, v] : m) w.field(std::to_string(P), v);
  w.endObject();
}

std::string fmt(double v, const char* f = "%9.1f") {
  if (!std::isfinite(v)) return "        -";
  char b[32];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

}  // namespace

std::string profileJSON(const Device& dev, const Options& o, const Micro& m,
                        const std::vector<CtrlEntry>& ctrl) {
  cal::JsonWriter w;
  w.beginObject();
  w.field("schema", "credit-device-profile");
  w.field("version", 1);
  w.field("generator", "credit-calibrate " CREDIT_VERSION);
  w.field("date", isoNow());
  w.key("device");
  w.beginObject();
  w.field("name", std::string(dev.prop.name));
  w.field("arch", "sm_" + std::to_string(dev.prop.major) + std::to_string(dev.prop.minor));
  w.field("sms", dev.prop.multiProcessorCount);
  w.field("sm_clock_MHz", dev.clockMHzMeasured);
  w.field("sm_clock_max_MHz", dev.clockKHz > 0 ? dev.clockKHz / 1000.0 : NAN);
  w.field("mem_clock_max_MHz", dev.memClockKHz > 0 ? dev.memClockKHz / 1000.0 : NAN);
  w.field("mem_bus_width_bits", dev.busWidth);
  w.field("l2_bytes", dev.prop.l2CacheSize);
  w.field("smem_per_sm_bytes", dev.smemPerSm);
  w.field("smem_per_block_optin_bytes", dev.smemOptin);
  w.field("driver_api_version", dev.driverVersion);
  w.field("runtime_version", dev.runtimeVersion);
  if (o.driverString.empty()) w.nullField("driver");
  else w.field("driver", o.driverString);
  w.endObject();
  w.key("method");
  w.beginObject();
  w.field("runs", o.runs);
  w.field("statistic", "median");
  w.field("threads_per_cta", o.threads);
  w.field("dynamic_smem_bytes", static_cast<long long>(dev.microSmem));
  w.field("one_cta_per_sm", true);
  if (m.measured) w.field("distinct_sms_verified", m.distinctSms);
  else w.nullField("distinct_sms_verified");  // --skip-micro: nothing was launched in clusters
  w.field("accesses_in_flight_per_thread", kUnroll);
  w.endObject();
  if (m.measured) {
    w.key("latency_cycles");
    w.beginObject();
    w.field("smem_load", m.smemLoadLatency);
    w.field("dsmem_load", m.dsmemLoadLatency);
    writeRates(w, "cluster_barrier", m.clusterBarrier);
    w.field("mbarrier_round_trip", m.mbarrierRoundTrip);
    w.field("global_load", m.globalLoadLatency);
    w.endObject();
    w.key("memory");
    w.beginObject();
    w.field("copy_GBps", m.copyGBps);
    w.endObject();
    w.key("rates_Bpc");
    w.beginObject();
    w.field("smem_read", m.smemReadBpc);
    w.field("smem_write", m.smemWriteBpc);
    writeRates(w, "dsmem_load", m.dsmemLoadBpc);
    writeRates(w, "dsmem_store", m.dsmemStoreBpc);
    writeRates(w, "dsmem_store_async", m.dsmemStoreAsyncBpc);
    writeRates(w, "dsmem_store_complete", m.dsmemStoreCompleteBpc);
    writeRates(w, "dsmem_store_async_complete", m.dsmemStoreAsyncCompleteBpc);
    w.endObject();
    w.key("skipped_cluster_sizes");
    w.beginArray();
    for (int P : m.skippedP) w.value(P);
    w.endArray();
  }
  w.key("control");
  w.beginObject();
  w.field("method",
          "t_ctrl_ms = t_control_ms - t_one_cta_ms: the generated work-free control kernel at "
          "grid M*P, cluster P, dynamic SMEM smem_bytes(N, P, protocol), minus the same kernel "
          "at grid M, no cluster, with the one-CTA baseline's footprint (staged where Eq. 3 "
          "allows P = 1, else reread scratch); CUDA events behind a spin kernel, median");
  w.key("entries");
  w.beginArray();
  for (const CtrlEntry& e : ctrl) {
    w.beginObject();
    w.field("kernel", e.kernel);
    w.key("geometry");
    w.beginObject();
    w.field("keep_bytes_per_element", e.k.keepBytesPerElem);
    w.field("L", e.k.numStages);
    w.field("q_max", e.k.qMax);
    w.field("q_sum", e.k.qSum);
    w.field("threads", e.k.threads);
    w.endObject();
    w.field("protocol", protoName(e.protocol));
    w.field("P", e.P);
    w.field("M", e.M);
    w.field("N", e.N);
    w.field("K", e.protocol == credit::Protocol::Sync ? e.k.Ksync : e.k.Kmbarrier);
    w.field("smem_bytes", e.smem);
    w.field("one_cta_baseline", e.baseline);
    w.field("one_cta_smem_bytes", e.oneCtaSmem);
    w.field("t_control_ms", e.tControlMs);
    w.field("t_one_cta_ms", e.tOneCtaMs);
    w.field("t_ctrl_ms", e.tControlMs - e.tOneCtaMs);
    w.endObject();
  }
  w.endArray();
  w.endObject();
  w.endObject();
  return w.str();
}

void printTables(const Device& dev, const Options& o, const Micro& m, const std::vector<CtrlEntry>& ctrl) {
  if (m.measured) {
    std::printf("\nTable II -- %s (sm_%d%d, %d SMs), SM clock %.0f MHz measured (max %.0f), median of %d "
                "runs, one CTA per SM, %d threads per CTA\n",
                dev.prop.name, dev.prop.major, dev.prop.minor, dev.prop.multiProcessorCount,
                dev.clockMHzMeasured, dev.clockKHz / 1000.0, o.runs, o.threads);
    std::printf("  %-46s %12s\n", "latency", "cycles");
    std::printf("  %-46s %s\n", "local SMEM dependent load (ld.shared.u32)", fmt(m.smemLoadLatency, "%12.1f").c_str());
    std::printf("  %-46s %s   (%.1fx local)\n", "remote DSMEM dependent load (ld.shared::cluster)",
                fmt(m.dsmemLoadLatency, "%12.1f").c_str(), m.dsmemLoadLatency / m.smemLoadLatency);
    std::printf("  %-46s %s\n", "mbarrier round trip (st.async+complete_tx+wait)",
                fmt(m.mbarrierRoundTrip, "%12.1f").c_str());
    std::printf("  %-46s %s\n", "global load past L2 (dependent)", fmt(m.globalLoadLatency, "%12.1f").c_str());
    std::printf("  %-46s %s GB/s\n", "device-to-device copy (read + written)", fmt(m.copyGBps, "%12.1f").c_str());
    std::printf("\n  %-46s %12s\n", "rate, B/clk per CTA (SM)", "local");
    std::printf("  %-46s %s\n", "SMEM read (LDS.128)", fmt(m.smemReadBpc, "%12.1f").c_str());
    std::printf("  %-46s %s\n", "SMEM store (STS.128)", fmt(m.smemWriteBpc, "%12.1f").c_str());
    std::printf("\n  %-46s", "per cluster size P");
    for (int P : o.clusterSizes) std::printf("     P=%-3d", P);
    std::printf("\n");
    auto row = [&](const char* name, const std::map<int, double>& mp, const char* f) {
      std::printf("  %-46s", name);
      for (int P : o.clusterSizes) {
        auto it = mp.find(P);
        std::printf(" %s", fmt(it == mp.end() ? NAN : it->second, f).c_str());
      }
      std::printf("\n");
    };
    row("DSMEM load, B/clk (ld.shared::cluster.v4)", m.dsmemLoadBpc, "%9.2f");
    row("DSMEM store issue, B/clk (st.shared::cluster)", m.dsmemStoreBpc, "%9.2f");
    row("DSMEM st.async issue, B/clk (+complete_tx)", m.dsmemStoreAsyncBpc, "%9.2f");
    row("cluster barrier, cycles", m.clusterBarrier, "%9.1f");
    std::printf("  remote load rate / local read rate (P=2): %.1fx lower\n",
                m.smemReadBpc / (m.dsmemLoadBpc.count(2) ? m.dsmemLoadBpc.at(2) : NAN));
    if (!m.skippedP.empty()) {
      std::printf("  not resident with one CTA per SM (skipped): P =");
      for (int P : m.skippedP) std::printf(" %d", P);
      std::printf("\n");
    }
  }
  if (!ctrl.empty()) {
    std::printf("\nT_ctrl(M, N, P) = control - one-CTA control, us\n");
    std::printf("  %-20s %-9s %7s %8s %9s", "kernel", "protocol", "M", "N", "one-CTA");
    for (int P : o.clusterSizes) std::printf("    P=%-3d", P);
    std::printf("\n");
    for (size_t i = 0; i < ctrl.size();) {
      const CtrlEntry& h = ctrl[i];
      std::printf("  %-20s %-9s %7lld %8lld %s", h.kernel.c_str(), protoName(h.protocol), h.M, h.N,
                  fmt(h.tOneCtaMs * 1e3, "%9.1f").c_str());
      size_t j = i;
      std::map<int, double> byP;
      while (j < ctrl.size() && ctrl[j].kernel == h.kernel && ctrl[j].protocol == h.protocol &&
             ctrl[j].M == h.M && ctrl[j].N == h.N) {
        byP[ctrl[j].P] = (ctrl[j].tControlMs - ctrl[j].tOneCtaMs) * 1e3;
        ++j;
      }
      for (int P : o.clusterSizes) std::printf(" %s", fmt(byP.count(P) ? byP[P] : NAN, "%8.1f").c_str());
      std::printf("\n");
      i = j;
    }
  }
}

}  // namespace credit::calibrate::tool
