#!/usr/bin/env python3
"""The dispatch's choice against the measured fastest variant, offline (no GPU).

    python3 bench/check_choice.py --times compare.json [--times bench.json ...] \
        [--profile docs/results/h200-profile.json] [--creditc build/bin/creditc] [--copy-GBps 4217.5]

--times: per-variant kernel times of one device, either a compare file of bench/compare_gen.py
(results[].kernels[variant].new_ms) or a results file of bench/run.py (measurements[] with
impl credit_<variant>). For every (workload, M, N) it runs `creditc predict` with the
profile and reports, for each way launch_auto decides (Dispatch.h):
  * model:    the model's choice from the measured T_B (the baseline predict names);
  * measure:  the fastest of the baseline and the model's shortlist, as first use times
              them (T_slice is not in these files: the model runs without T_occ);
  * predict:  the model's choice from T_B predicted by the copy rate (only where the
              profile has memory.copy_GBps, or --copy-GBps gives one);
the chosen variant's measured time over the fastest variant's ("ratio"; 1 is the best
choice). Workloads whose .credit is not in dsl_examples/ are skipped. Exit 0; this is a
report, not a test.
"""
import argparse
import collections
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def load_times(path):
    """{(workload, M, N): {variant: ms}} from a compare file or a bench results file."""
    with open(path) as f:
        doc = json.load(f)
    shapes = collections.defaultdict(dict)
    if "results" in doc:  # bench/compare_gen.py
        for r in doc["results"]:
            for variant, k in r["kernels"].items():
                if variant != "auto" and k.get("new_ms"):
                    shapes[(r["workload"], r["M"], r["N"])][variant] = k["new_ms"]
    for m in doc.get("measurements", []):  # bench/run.py
        impl = m.get("impl", "")
        if impl.startswith("credit_") and m.get("median_ms"):
            shapes[(m["workload"], m["M"], m["N"])][impl[len("credit_"):]] = m["median_ms"]
    return shapes


def variant_of(choice):
    return "cluster_%s_P%d" % (choice["protocol"], choice["P"])


def predict(creditc, src, profile, M, N, tB):
    cmd = [creditc, "predict", src, "--profile", profile, "--M", str(M), "--N", str(N), "--report=json"]
    if tB is not None:
        cmd += ["--tB", repr(tB)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "exit %d" % r.returncode
    return json.loads(r.stdout), ""


def choice(p, times):
    """The variant the model runs: the chosen candidate if profitable, else the baseline."""
    if p["profitable"] and p["chosen"]:
        return variant_of(p["chosen"])
    return p["baseline"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--times", action="append", required=True)
    ap.add_argument("--profile", default=os.path.join(ROOT, "docs", "results", "h200-profile.json"))
    ap.add_argument("--creditc", default=os.path.join(ROOT, "build", "bin", "creditc"))
    ap.add_argument("--examples", default=os.path.join(ROOT, "dsl_examples"))
    ap.add_argument("--copy-GBps", type=float, default=0.0,
                    help="the device's copy rate, where the profile has none (predict mode)")
    ap.add_argument("--tolerance", type=float, default=0.03)
    a = ap.parse_args()

    profile = a.profile
    with open(profile) as f:
        prof = json.load(f)
    if a.copy_GBps > 0:
        prof.setdefault("memory", {})["copy_GBps"] = a.copy_GBps
        tmp = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
        json.dump(prof, tmp)
        tmp.close()
        profile = tmp.name
    has_copy = bool(prof.get("memory", {}).get("copy_GBps"))

    shapes = {}
    for path in a.times:
        shapes.update(load_times(path))
    modes = ["model", "measure"] + (["predict"] if has_copy else [])
    ratios = {m: [] for m in modes}
    print("%-20s %7s %7s  %-20s %-22s %6s  %-22s %6s%s" % (
        "workload", "M", "N", "fastest", "model", "ratio", "measure", "ratio",
        "  %-22s %6s" % ("predict", "ratio") if has_copy else ""))
    for (w, M, N), times in sorted(shapes.items()):
        src = os.path.join(a.examples, w + ".credit")
        if not os.path.exists(src):
            continue
        fastest = min(times, key=times.get)
        probe, err = predict(a.creditc, src, profile, M, N, 1.0)
        if probe is None:
            print("%-20s %7d %7d  predict failed: %s" % (w, M, N, err))
            continue
        base = probe["baseline"]
        if base not in times:
            print("%-20s %7d %7d  no time for the baseline %s" % (w, M, N, base))
            continue
        p, err = predict(a.creditc, src, profile, M, N, times[base])
        if p is None:
            print("%-20s %7d %7d  predict failed: %s" % (w, M, N, err))
            continue
        picked = {"model": choice(p, times)}
        timed = [base] + [variant_of(c) for c in p.get("shortlist", []) if variant_of(c) in times]
        picked["measure"] = min(timed, key=times.get)
        if has_copy:
            q, _ = predict(a.creditc, src, profile, M, N, None)
            picked["predict"] = choice(q, times) if q else base
        cells = []
        for m in modes:
            v = picked[m]
            r = times[v] / times[fastest] if v in times else float("nan")
            ratios[m].append(r)
            cells.append("%-22s %6.3f" % (v, r))
        print("%-20s %7d %7d  %-20s %s" % (w, M, N, fastest, "  ".join(cells)))
    for m in modes:
        rs = [r for r in ratios[m] if not math.isnan(r)]
        if not rs:
            continue
        within = sum(1 for r in rs if r <= 1 + a.tolerance)
        geo = math.exp(sum(math.log(r) for r in rs) / len(rs))
        print("%-8s %d shapes: fastest or within %.0f%% at %d (%.0f%%), geomean %.3f, worst %.3f" % (
            m, len(rs), a.tolerance * 100, within, 100.0 * within / len(rs), geo, max(rs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
