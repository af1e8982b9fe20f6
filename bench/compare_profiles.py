#!/usr/bin/env python3
"""Whether two device profiles make the same dispatch decisions, offline (no GPU).

    python3 bench/compare_profiles.py --profile A.json --profile B.json \
        [--times docs/results/bench.json] [--creditc build/bin/creditc]

For every (workload, M, N) of the benchmark file whose .credit is in dsl_examples/, runs
`creditc predict` with each profile twice: with the T_B launch_auto measured there (the
record's plan.tB_ms, the measure and model modes) and with T_B predicted from the
profile's copy rate (predict mode). A decision is the model's choice (baseline, or
cluster P, protocol and form) and the shortlist launch_auto times in measure mode. Prints
every shape where the two profiles differ and the counts; exit 0 (a report, not a test).
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def decide(creditc, src, profile, M, N, tB):
    cmd = [creditc, "predict", src, "--profile", profile, "--M", str(M), "--N", str(N), "--report=json"]
    if tB is not None:
        cmd += ["--tB", repr(tB)]
    d = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    c = d.get("chosen")
    choice = "baseline" if not c else "P=%d %s %s" % (c["P"], c["protocol"], c["form"])
    shortlist = tuple("P=%d %s" % (s["P"], s["protocol"]) for s in d.get("shortlist") or [])
    return choice, shortlist


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", action="append", required=True, help="two profiles")
    ap.add_argument("--times", default=os.path.join(ROOT, "docs/results/bench.json"))
    ap.add_argument("--creditc", default=os.path.join(ROOT, "build/bin/creditc"))
    a = ap.parse_args()
    if len(a.profile) != 2:
        sys.exit("compare_profiles: give --profile twice")
    shapes = {}
    for r in json.load(open(a.times))["records"]:
        if r.get("impl") == "creditc_auto" and (r.get("plan") or {}).get("tB_ms"):
            shapes[(r["workload"], r["M"], r["N"])] = r["plan"]["tB_ms"]
    same = {"measured T_B": [0, 0, 0], "predicted T_B": [0, 0, 0]}  # choice, choice and shortlist, shapes
    for (w, M, N), tB in sorted(shapes.items()):
        src = os.path.join(ROOT, "dsl_examples", w + ".credit")
        if not os.path.exists(src):
            continue
        for mode, t in (("measured T_B", tB), ("predicted T_B", None)):
            d = [decide(a.creditc, src, p, M, N, t) for p in a.profile]
            same[mode][2] += 1
            same[mode][0] += d[0][0] == d[1][0]
            same[mode][1] += d[0] == d[1]
            if d[0] != d[1]:
                print("%-20s M=%-6d N=%-7d %-13s %s | %s  vs  %s | %s" %
                      (w, M, N, mode, d[0][0], ",".join(d[0][1]), d[1][0], ",".join(d[1][1])))
    for mode, (c, s, n) in same.items():
        print("%s: the same choice at %d of %d shapes, the same shortlist too at %d" % (mode, c, n, s))


if __name__ == "__main__":
    main()
