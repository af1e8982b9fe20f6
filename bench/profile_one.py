#!/usr/bin/env python3
"""Launches ONE creditc variant a few times, for a profiler (ncu, nsys) to look at:

    ncu --section SpeedOfLight python3 bench/profile_one.py --gen DIR \\
        --workload pearson_bwd --N 262144 --variant cluster --P 16 --protocol 1

Builds that workload's generated .cu (as bench/run.py does), makes the inputs the benchmark makes
(M as the benchmark chooses it unless --M), and launches the variant --reps times ("auto": the
model-driven dispatch, whose first call also times the baseline). Not a timing tool: bench/run.py
times; this only gives the profiler its launches.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "peers"))

from benchlib import creditlib as C  # noqa: E402
from benchlib import shapes as S  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gen", required=True)
    ap.add_argument("--workload", required=True, choices=S.ALL_WORKLOADS)
    ap.add_argument("--N", type=int, required=True)
    ap.add_argument("--M", type=int, help="rows (default: the benchmark's M for N)")
    ap.add_argument("--variant", default="cluster", help="reread, staged, cluster, ... or auto")
    ap.add_argument("--P", type=int, default=1)
    ap.add_argument("--protocol", type=int, default=1, choices=(0, 1))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--lib-dir", default="/tmp/creditc-bench-libs")
    args = ap.parse_args()
    inc = os.path.join(ROOT, "runtime", "include")
    try:
        path = C.build_libraries(args.gen, [args.workload], args.lib_dir, "gen",
                                 includes=[inc] if os.path.isdir(inc) else [])[args.workload]
        k = C.GeneratedKernel(path, args.workload)
    except (C.BuildError, C.ApiError) as e:
        print(f"profile_one: {e}", file=sys.stderr)
        return 1

    import torch
    from workloads import WORKLOADS
    wl = WORKLOADS[args.workload]
    M = args.M or S.rows_for(args.N, S.dtype_of(args.workload))
    ins = wl.make_inputs(M, args.N, seed=args.N)
    outs = wl.alloc_outputs(M, args.N)
    ptrs = k.pointers(wl.named(ins, outs), M, args.N)
    stream = torch.cuda.current_stream().cuda_stream
    if args.variant == "auto":
        fn = k.auto_launcher(ptrs, M, args.N, stream)
    else:
        fn = k.launcher(args.variant, args.P, args.protocol, ptrs, M, args.N, stream)
    for _ in range(args.reps):
        fn()
    torch.cuda.synchronize()
    plan = k.last_plan(M, args.N) if args.variant == "auto" else None
    print(f"{args.workload} M={M} N={args.N} {args.variant} P={args.P} protocol={args.protocol}: "
          f"{args.reps} launches" + (f", plan {plan}" if plan else ""), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
