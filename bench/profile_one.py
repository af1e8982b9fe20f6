#!/usr/bin/env python3
"""Launches ONE creditc variant a few times, for a profiler (ncu) to look at:

    ncu --section SpeedOfLight python3 bench/profile_one.py --gen .gpu/gen \
        --workload pearson_bwd --N 262144 --variant cluster --P 16 --protocol 1

Builds only that workload's generated .cu (nvcc -arch=sm_90), fresh random
inputs as the benchmark makes them (M = 4096, layernorm 2048). Not a timing
tool: bench/run_bench.py times; this only gives the profiler its launches.
"""
import argparse
import ctypes
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "peers"))

import torch  # noqa: E402

from run_bench import CreditKernels  # noqa: E402
from workloads import WORKLOADS  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gen", required=True)
    ap.add_argument("--workload", required=True, choices=sorted(WORKLOADS))
    ap.add_argument("--N", type=int, required=True)
    ap.add_argument("--variant", default="cluster")
    ap.add_argument("--P", type=int, default=1)
    ap.add_argument("--protocol", type=int, default=1)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--lib-dir", default="/tmp/credit-profile")
    args = ap.parse_args()
    os.makedirs(args.lib_dir, exist_ok=True)
    so = os.path.join(args.lib_dir, f"libcredit_{args.workload}.so")
    if not os.path.exists(so):
        subprocess.run(["nvcc", "-O3", "-std=c++17", "-arch=sm_90", "-shared", "-Xcompiler", "-fPIC",
                        os.path.join(args.gen, f"{args.workload}.cu"), "-o", so], check=True)
    wl = WORKLOADS[args.workload]
    M = wl.default_M
    ins = wl.make_inputs(M, args.N)
    outs = wl.alloc_outputs(M, args.N)
    ck = CreditKernels(ctypes.CDLL(so), args.workload)
    fn = ck.launcher(args.variant, args.P, args.protocol, list(ins) + list(outs), M, args.N)
    for _ in range(args.reps):
        fn()
    torch.cuda.synchronize()
    print(f"{args.workload} M={M} N={args.N} {args.variant} P={args.P} protocol={args.protocol}: "
          f"{args.reps} launches", flush=True)


if __name__ == "__main__":
    main()
