#!/usr/bin/env python3
"""Experiment: the persistent form on fewer clusters than are resident.

The generated launcher gives the persistent form a grid of every resident cluster (on the H200 66,
30, 15 and 7 clusters of 2, 4, 8 and 16: 132, 120, 120 and 112 SMs). The exchange-free streaming
kernel of sm_ceiling.cu moved one kept input faster on 112 CTAs than on 120 (91% against 84-85% of
the copy ceiling, two runs). This script writes copies of the generated files (never the compiler's
output itself) whose launcher caps the persistent grid at `--sms` SMs' worth of clusters
(min(resident, sms / P)); run_bench.py --extra-gen times them against the unchanged files.

Prediction: if that effect carries over to clusters, layernorm at 65536 P = 4 and 131072 P = 8
(120 SMs) about 0.95 of the time on 112 SMs; if the kernels are bound by the SMs they get, 1.05-1.07.

    python3 bench/experiments/fewer_clusters.py --gen .gpu/gen --out .gpu/sms112 --sms 112
    python3 bench/run_bench.py --gen .gpu/gen --extra-gen sms112=.gpu/sms112 --no-peers ...
"""
import argparse

from gen_patch import sub_checked, write_patched_copies


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gen", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--sms", type=int, default=112)
    a = ap.parse_args()
    write_patched_copies(a.gen, a.out, lambda src, w: sub_checked(
        src,
        r"^(    if \(resident < 1\) return static_cast<int>\(credit::LaunchStatus::ClusterTooLarge\);\n)",
        r"\1" + f"    if (resident > {a.sms} / P && {a.sms} / P >= 1) resident = {a.sms} / P;  // EXPERIMENT\n",
        f"{w}: the persistent grid"))


if __name__ == "__main__":
    main()
