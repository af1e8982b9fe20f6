#!/usr/bin/env python3
"""Experiment: does the non-clustered kernel at a cluster's slice shape predict
the cluster kernel's streaming time?

A cluster of P runs P CTAs per row, each holding N/P elements: the same SMEM
footprint, CTA size and CTAs per SM as the SMEM staged kernel ("staged_smem")
on M*P rows of N/P. So T_match(P) = T_staged_smem(M*P, N/P) is a non-clustered
timing of the cluster kernel's streaming part at its own occupancy; what it
lacks is the exchange (T_ctrl, T_DSM of the model). This script times, in one
process, for every workload, N and legal P:
  staged (the launcher's form) at (M, N)      -- T_B
  staged_smem at (M*P, N/P)                   -- T_match(P)
  cluster at (M, N, P), both protocols        -- what T_match + exchange should predict
and writes one JSON record per timing to --out/matched.jsonl.

    python3 bench/experiments/matched_slices.py --gen .gpu/gen --out $OUT/matched
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "peers"))

import torch  # noqa: E402

import timing  # noqa: E402
from run_bench import CreditKernels, build_libs  # noqa: E402
from workloads import WORKLOADS  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gen", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    ap.add_argument("--N", default="4096,8192,16384,32768,65536")
    ap.add_argument("--reps", type=int, default=15)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    libs = build_libs(args.gen, "/tmp")
    path = os.path.join(args.out, "matched.jsonl")
    f = open(path, "w")

    def timed(ck, wl, variant, M, N, P, protocol):
        ins = wl.make_inputs(M, N, seed=N + M, device="cuda")
        outs = wl.alloc_outputs(M, N)
        fn = ck.launcher(variant, P, protocol, list(ins) + list(outs), M, N)
        try:
            t = timing.bench(fn, reps=args.reps)["median_ms"]
        except RuntimeError as e:
            t = None
            print(e, flush=True)
        del ins, outs
        return t

    for name in args.workloads.split(","):
        wl = WORKLOADS[name]
        ck = CreditKernels(libs[name], name)
        M = wl.default_M
        for N in map(int, args.N.split(",")):
            if ck.max_n(b"staged", 1, 0) < N:
                continue
            rec = {"workload": name, "M": M, "N": N, "staged_ms": timed(ck, wl, "staged", M, N, 1, 0),
                   "match_ms": {}, "cluster_ms": {}}
            for P in (2, 4, 8, 16):
                if N % P or ck.max_n(b"cluster", P, 0) < N:
                    continue
                rec["match_ms"][P] = timed(ck, wl, "staged_smem", M * P, N // P, 1, 0)
                for protocol in (0, 1):
                    rec["cluster_ms"][f"{P}/{protocol}"] = timed(ck, wl, "cluster", M, N, P, protocol)
            f.write(json.dumps(rec) + "\n")
            f.flush()
            print(json.dumps(rec), flush=True)
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
