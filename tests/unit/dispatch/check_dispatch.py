#!/usr/bin/env python3
"""The generated dispatch decides exactly as `creditc predict` (ctest: dispatch-model).

For each kernel: `creditc K.credit --profile P -o K.cu`, nvcc DispatchPlanMain.cu
against it, and for a grid of (M, N, T_B, T_slice) compare its plan with `creditc predict
--report=json`: the chosen variant (cluster iff predicted profitable, else the
baseline predict names), P, protocol, and dT of the best candidate (relative
1e-12). Exit 1 on the first disagreement, printing both.
"""
import argparse
import json
import os
import subprocess
import sys

KERNELS = ["layernorm", "pearson_bwd", "softmax_logits_bwd", "quant_int8", "softmax", "rmsnorm"]
MS = [7, 4096]
NS = [1000, 4096, 16384, 65536, 65537, 262144]
TBS = [0.02, 0.5, 5.0]
# T_slice(P) for P = 2, 4, 8, 16 as fractions of T_B (0: not given): none, and
# the occupancy term at work (some P faster than T_B, some slower, one missing).
SLICES = [(0, 0, 0, 0), (0.8, 0.95, 1.2, 0)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--creditc", required=True)
    ap.add_argument("--nvcc", required=True)
    ap.add_argument("--include", required=True, help="the credit include directory (credit::device)")
    ap.add_argument("--profile", required=True)
    ap.add_argument("--examples", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    here = os.path.dirname(os.path.abspath(__file__))
    checked = 0
    for k in KERNELS:
        src = os.path.join(a.examples, f"{k}.credit")
        gen = os.path.join(a.work, f"{k}.cu")
        exe = os.path.join(a.work, f"plan_{k}")
        subprocess.run([a.creditc, src, "--profile", a.profile, "-o", gen], check=True)
        subprocess.run([a.nvcc, "-std=c++17", "-arch=sm_90", "-O1", f"-I{a.include}", f"-DCREDIT_GEN_FILE=\"{gen}\"",
                        f"-DCREDIT_NS=credit_{k}", os.path.join(here, "DispatchPlanMain.cu"), "-o", exe],
                       check=True)
        points = [(m, n, t, [f * t for f in fs]) for m in MS for n in NS for t in TBS for fs in SLICES]
        out = subprocess.run([exe], input="".join(f"{m} {n} {t!r} {' '.join(map(repr, s))}\n"
                                                  for m, n, t, s in points),
                             capture_output=True, text=True, check=True).stdout.split("\n")
        for (m, n, t, s), line in zip(points, out):
            f = line.split()
            variant, P, protocol, baseline, evaluated = map(int, f[3:8])
            dT = float(f[8])
            slices = ",".join(f"{P}:{v!r}" for P, v in zip((2, 4, 8, 16), s) if v > 0)
            r = subprocess.run([a.creditc, "predict", src, "--profile", a.profile, "--M", str(m), "--N", str(n),
                                "--tB", repr(t), "--report=json"] + ([f"--t-slice={slices}"] if slices else []),
                               capture_output=True, text=True)
            what = f"{k} M={m} N={n} tB={t} slices={slices}: dispatch (variant {variant}, P {P}, protocol {protocol}, " \
                   f"baseline {baseline}, evaluated {evaluated}, dT {dT!r})"
            if r.returncode != 0:
                # predict fails only when no legal candidate can be evaluated
                if evaluated or variant == 2:
                    sys.exit(f"MISMATCH {what}; predict failed: {r.stderr.strip()}")
                checked += 1
                continue
            p = json.loads(r.stdout)
            want_baseline = 1 if p["baseline"] == "staged" else 0
            if baseline != want_baseline:
                sys.exit(f"MISMATCH {what}; predict's baseline is {p['baseline']}")
            chosen = p.get("chosen")
            if chosen is None:
                if evaluated or variant != baseline:
                    sys.exit(f"MISMATCH {what}; predict: {p['verdict']}")
            else:
                if not evaluated or abs(dT - chosen["delta_T_ms"]) > 1e-12 * max(1.0, abs(dT)):
                    sys.exit(f"MISMATCH {what}; predict dT {chosen['delta_T_ms']!r}")
                if p["profitable"]:
                    if (variant, P, protocol) != (2, chosen["P"], 0 if chosen["protocol"] == "sync" else 1):
                        sys.exit(f"MISMATCH {what}; predict chose {chosen}")
                elif variant != baseline:
                    sys.exit(f"MISMATCH {what}; predict: not profitable")
            checked += 1
    print(f"dispatch plan == creditc predict at {checked} points ({len(KERNELS)} kernels)")


if __name__ == "__main__":
    main()
