#!/usr/bin/env python3
"""Experiment: where the persistent cluster kernels spend their time, per CTA.

The persistent form (docs/codegen.md) reaches 92-99% of copy bandwidth at some shapes and
84-90% at others with the same per-CTA kernel (slices of 16384): layernorm at M = 2048 and
N = 32768 / 65536 (P = 2 / 4) against 131072 (P = 8), and every workload at 262144 (P = 16,
7 clusters of 16 on 112 SMs) against 131072. This script instruments a copy of each generated
file (never the compiler's output itself): thread 0 of every CTA of the persistent form records
  - %globaltimer at entry, after its first row, at its last row's start, and at exit;
  - clock64 cycles in total, waiting for ring units (the bulk copies' mbarriers) and waiting for
    the DSMEM exchange (the stages' mbarriers);
  - its rows and %smid,
then the launcher runs the generic variant "cluster_persistent" (the form wherever it fits, the
ring credit::persistentRing picks). --schedules picks the rows: launcher (claims where
credit::useRowClaims holds), claims (at every P, the files patched), static (the generic variant
"cluster_persistent_static"); several are timed and profiled one after another at each shape. Each configuration is checked against eager PyTorch on
poisoned outputs and timed as run_bench.py times kernels (the instrumentation included: a few
clock reads per row), then launched --profiles times after an L2 flush, reading the counters
back after each launch.

Prediction: where the fill/drain explanation holds (layernorm at M = 2048), the first row and
the last row take several steady rows' time and the exchange waits are small; at 262144 the
CTAs wait for ring units (load-bound per SM) more than at 131072.

    python3 bench/experiments/persistent_profile.py --gen .gpu/gen --out $OUT/profile
    python3 bench/experiments/persistent_profile.py --gen .gpu/gen --out $OUT/profile --schedules claims,static \
        --configs layernorm:262144:16,softmax_logits_bwd:65536:4
"""
import argparse
import ctypes
import datetime
import json
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "peers"))

import torch  # noqa: E402

import timing  # noqa: E402
from run_bench import CreditKernels, build_libs, checked_record, device_record, gen_commit  # noqa: E402
from workloads import WORKLOADS  # noqa: E402
from gen_patch import insert_before_body, sub_checked  # noqa: E402

FIELDS = 10  # per CTA: g0, g1, cycles, load wait, exchange wait, rows, g after row 0, g at last row, smid, unused
MAX_CTAS = 4096
DEFAULT_CONFIGS = ("layernorm:32768:2,layernorm:65536:4,layernorm:131072:8,layernorm:262144:16,"
                   "quant_int8:65536:4,quant_int8:131072:8,quant_int8:262144:16,"
                   "softmax_logits_bwd:65536:4,softmax_logits_bwd:131072:8,softmax_logits_bwd:262144:16,"
                   "pearson_bwd:131072:8,pearson_bwd:262144:16,wvar_bwd:131072:8,wvar_bwd:262144:16")


def instrument(src, name):
    """The generated file with the counters; raises if the generated code no longer matches."""
    what = f"{name}.cu (instrumentation)"

    def sub_once(pattern, repl, s, count=1):
        return sub_checked(s, pattern, repl, what, count)

    gt = 'asm volatile("mov.u64 %0, %%globaltimer;" : "=l"'
    src = insert_before_body(src, f"__device__ unsigned long long credit_prof[{MAX_CTAS * FIELDS}];\n", what)
    src = sub_once(r"^  const unsigned tid = threadIdx.x;$",
                   "  const unsigned tid = threadIdx.x;\n"
                   "  unsigned long long prof_load = 0, prof_xchg = 0, prof_g0 = 0, prof_gfirst = 0, prof_glast = 0, prof_rows = 0;\n"
                   f"  {gt}(prof_g0));\n"
                   "  const long long prof_t0 = clock64();", src)
    # the row loop (also as bench/experiments/dynamic_rows.py writes it: rows there is an upper
    # bound, the loop's last pass only finds that no row is left, and prof_glast means nothing)
    # (with row claims the loop runs while row_exists(k): the last row is known only when it
    # starts, so prof_glast is taken at every row's start and the last one stays)
    src = sub_once(r"^(  for \(long long k = 0; k < rows; \+\+k\) \{|  for \(;; \+\+k\) \{|"
                   r"  for \(long long k = 0; row_exists\(k\); \+\+k\) \{)$",
                   r"\1" "\n"
                   "    ++prof_rows;\n"
                   f"    if (kPersistent && tid == 0 && k == 1) {gt}(prof_gfirst));\n"
                   f"    if (kPersistent && tid == 0) {gt}(prof_glast));", src)
    src = sub_once(r"(credit_mbar_wait\(credit_smem_addr\(load_bars \+ row_unit\([^;]*\);)",
                   r"{ const long long pt_ = clock64(); \1 prof_load += clock64() - pt_; }", src, None)
    src = sub_once(r"(credit_mbar_wait\(credit_smem_addr\(stage_bar\), [^;]*\);)",
                   r"{ const long long pt_ = clock64(); \1 prof_xchg += clock64() - pt_; }", src, None)
    smid = 'asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));'
    src = sub_once(r"^  // Persistent form: no exit barrier either\.",
                   "  if constexpr (kPersistent) {\n"
                   f"    if (tid == 0 && blockIdx.x < {MAX_CTAS}) {{\n"
                   "      unsigned long long g1;\n"
                   "      unsigned smid;\n"
                   f"      {gt}(g1));\n"
                   f"      {smid}\n"
                   f"      unsigned long long* p = credit_prof + blockIdx.x * {FIELDS};\n"
                   "      p[0] = prof_g0; p[1] = g1; p[2] = clock64() - prof_t0; p[3] = prof_load; p[4] = prof_xchg;\n"
                   "      p[5] = prof_rows; p[6] = prof_gfirst; p[7] = prof_glast; p[8] = smid; p[9] = 1;\n"
                   "    }\n"
                   "  }\n"
                   "  // Persistent form: no exit barrier either.", src)
    ns = re.search(r"namespace CREDIT_LOCAL (credit_\w+) \{", src).group(1)
    src += ("\nextern \"C\" int credit_prof_read(unsigned long long* host) {\n"
            f"  return static_cast<int>(cudaMemcpyFromSymbol(host, {ns}::credit_prof, sizeof({ns}::credit_prof)));\n"
            "}\n"
            "extern \"C\" int credit_prof_reset() {\n"
            f"  static unsigned long long zeros[{MAX_CTAS * FIELDS}];\n"
            f"  return static_cast<int>(cudaMemcpyToSymbol({ns}::credit_prof, zeros, sizeof(zeros)));\n"
            "}\n")
    return src


def force_claims(src, name):
    """The launcher claims rows at every P (credit::useRowClaims forced true); the generic variant
    "cluster_persistent_static" still runs the static rows' kernel."""
    return sub_checked(src, r"const bool rowClaims = persistentMode != 3 && credit::useRowClaims\(P\);",
                       "const bool rowClaims = persistentMode != 3;  /* EXPERIMENT: claims at every P */",
                       f"{name}.cu (claims at every P)")


def cta_records(raw):
    """Every CTA's record (blockIdx order): g0, g1, cycles, load wait, exchange wait, rows, g after row 0,
    g at the last row, smid."""
    return [list(raw[i * FIELDS:(i + 1) * FIELDS - 1]) for i in range(MAX_CTAS) if raw[i * FIELDS + 9] == 1]


def summarize(ctas, P, event_ms):
    g0 = min(c[0] for c in ctas)
    g1 = max(c[1] for c in ctas)
    span_ns = g1 - g0
    # SM clock from the CTAs' own cycle counts over their globaltimer lifetimes
    ghz = statistics.median(c[2] / max(1, c[1] - c[0]) for c in ctas)
    us = lambda cyc: cyc / ghz / 1e3  # noqa: E731
    rows = [c[5] for c in ctas]
    life_us = [(c[1] - c[0]) / 1e3 for c in ctas]
    first_us = [(c[6] - c[0]) / 1e3 for c in ctas if c[5] > 1]
    last_us = [(c[1] - c[7]) / 1e3 for c in ctas if c[5] > 1]
    steady_us = [((c[7] - c[6]) / 1e3) / (c[5] - 2) for c in ctas if c[5] > 2]
    load_us_row = [us(c[3]) / c[5] for c in ctas if c[5] > 0]
    xchg_us_row = [us(c[4]) / c[5] for c in ctas if c[5] > 0]
    med = statistics.median
    return {
        "ctas": len(ctas), "clusters": len(ctas) // P, "sms": len(set(c[8] for c in ctas)),
        "event_us": event_ms * 1e3, "span_us": span_ns / 1e3,
        "entry_skew_us": (max(c[0] for c in ctas) - g0) / 1e3,
        "exit_spread_us": (g1 - min(c[1] for c in ctas)) / 1e3,
        "sm_ghz": ghz, "rows_min": min(rows), "rows_max": max(rows),
        "life_us_median": med(life_us),
        "first_row_us_median": med(first_us) if first_us else None,
        "steady_row_us_median": med(steady_us) if steady_us else None,
        "steady_row_us_min": min(steady_us) if steady_us else None,
        "steady_row_us_max": max(steady_us) if steady_us else None,
        "last_row_us_median": med(last_us) if last_us else None,
        "load_wait_us_per_row_median": med(load_us_row), "load_wait_us_per_row_max": max(load_us_row),
        "xchg_wait_us_per_row_median": med(xchg_us_row), "xchg_wait_us_per_row_max": max(xchg_us_row),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gen", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--configs", default=DEFAULT_CONFIGS, help="workload:N:P,...")
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--profiles", type=int, default=3)
    ap.add_argument("--schedules", default="launcher",
                    help="comma-separated: launcher (the generic variant's rule), claims (rows claimed at "
                         "every P), static (the static rows' kernel)")
    a = ap.parse_args()
    schedules = a.schedules.split(",")
    for sch in schedules:
        if sch not in ("launcher", "claims", "static"):
            ap.error(f"unknown schedule {sch}")
    if "launcher" in schedules and "claims" in schedules:
        ap.error("launcher and claims need differently patched files: run them in two invocations")
    os.makedirs(a.out, exist_ok=True)
    configs = [(w, int(n), int(p)) for w, n, p in (c.split(":") for c in a.configs.split(","))]
    names = sorted({w for w, _, _ in configs})
    pdir, ldir, cdir = "/tmp/prof_gen", "/tmp/prof_libs", "/tmp/prof_ctl_gen"
    for d in (pdir, ldir, cdir):
        os.makedirs(d, exist_ok=True)
    for name in names:
        with open(os.path.join(a.gen, f"{name}.cu")) as f:
            src = f.read()
        if "claims" in schedules and "launch_persistent(kernel, claims_kernel, rowClaims," in src:
            src = force_claims(src, name)
        with open(os.path.join(cdir, f"{name}.cu"), "w") as f:
            f.write(src)
        with open(os.path.join(pdir, f"{name}.cu"), "w") as f:
            f.write(instrument(src, name))
    libs = build_libs(pdir, ldir)
    # The same files uninstrumented, timed alike: what the counters cost.
    os.makedirs("/tmp/prof_ctl_libs", exist_ok=True)
    ctl_libs = build_libs(cdir, "/tmp/prof_ctl_libs", names)
    ceiling = timing.copy_ceiling()
    commit = gen_commit(a.gen)
    out = open(os.path.join(a.out, "persistent_profile.jsonl"), "w")
    out.write(json.dumps({"meta": {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                                   "commit": commit, "device": device_record(), "copy_ceiling_GBps": ceiling,
                                   "reps": a.reps, "instrumented": True, "schedules": schedules}}) + "\n")
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    raw = (ctypes.c_ulonglong * (MAX_CTAS * FIELDS))()
    for name, N, P in configs:
        wl = WORKLOADS[name]
        lib = libs[name]
        lib.credit_prof_read.argtypes = [ctypes.c_void_p]
        ck = CreditKernels(lib, name)
        M = wl.default_M
        ins = wl.make_inputs(M, N, seed=N + 7, device="cuda")
        ref = wl.eager(*ins)
        outs = wl.alloc_outputs(M, N)
        for sch in schedules:  # interleaved per shape: the schedules' A/B in one process
            variant = "cluster_persistent_static" if sch == "static" else "cluster_persistent"
            fn = ck.launcher(variant, P, 1, list(ins) + list(outs), M, N)
            rec = {"workload": name, "M": M, "N": N, "P": P, "schedule": sch,
                   "impl": f"persistent_{sch}_instrumented_P{P}"}
            msg, failed = checked_record(out, rec, fn, outs, ref, wl.compulsory_bytes(M, N), ceiling, a.reps)
            print(f"{name:18s} N={N:7d} P={P:2d} {sch:8s} {msg}", flush=True)
            ctl = CreditKernels(ctl_libs[name], name).launcher(variant, P, 1, list(ins) + list(outs), M, N)
            crec = {"workload": name, "M": M, "N": N, "P": P, "schedule": sch, "impl": f"persistent_{sch}_P{P}"}
            cmsg, _ = checked_record(out, crec, ctl, outs, ref, wl.compulsory_bytes(M, N), ceiling, a.reps)
            print(f"{name:18s} N={N:7d} P={P:2d} {sch:8s} uninstrumented {cmsg}", flush=True)
            if failed or "median_ms" not in rec:
                continue
            for i in range(a.profiles):
                flush.zero_()
                lib.credit_prof_reset()
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                fn()
                end.record()
                torch.cuda.synchronize()
                lib.credit_prof_read(ctypes.cast(raw, ctypes.c_void_p))
                ctas = cta_records(raw)
                s = summarize(ctas, P, start.elapsed_time(end))
                s.update(workload=name, M=M, N=N, P=P, schedule=sch, profile=i)
                if i == 0:
                    s["per_cta"] = ctas
                out.write(json.dumps(s) + "\n")
                out.flush()
                print("   " + " ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}"
                                       for k, v in s.items() if k not in ("workload", "M", "N", "P", "per_cta")),
                      flush=True)
        del ins, ref, outs
        torch.cuda.empty_cache()

if __name__ == "__main__":
    main()
