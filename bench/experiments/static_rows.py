#!/usr/bin/env python3
"""Experiment: the persistent form with its static rows, for A/B runs against the row claims.

The launch API now hands the persistent kernels a row-claim counter (host::RowClaimLease, Layout.h):
each cluster's first rows (the ring's depth) are the static ones, row_first + k * clusters, and
every later row is claimed at run time. This script writes copies of the generated files (never the
compiler's output itself) whose launcher passes no counter, so every persistent launch takes the
static rows, as before the claims; run_bench.py --extra-gen static=DIR times them in the same
process as the unchanged files.

Prediction (docs/results/persistent-profile/: the median CTA idles 7.6 / 20 / 23 us at the end of
layernorm's 140 / 281 / 558 us kernels at M = 2048 while the slowest clusters finish): claims
0.95-0.97 of the static time at layernorm 32768 and 65536, 0.97-0.99 at 131072, within 1% at
262144 and for the M = 4096 workloads (their idle ends are 0.1-0.8% of the span).

    python3 bench/experiments/static_rows.py --gen .gpu/gen --out-gen .gpu/static
"""
import argparse

from gen_patch import sub_checked, write_patched_copies


def patch(src, name):
    if "launch_persistent(kernel, persistentMode != 3," not in src:
        return src  # no persistent form in this file
    return sub_checked(src, r"launch_persistent\(kernel, persistentMode != 3,",
                       "launch_persistent(kernel, false,  /* EXPERIMENT: static rows */", f"{name}.cu")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gen", required=True, help="the generated files (scripts/gpu-prepare.sh)")
    ap.add_argument("--out-gen", required=True, help="where the patched copies go")
    args = ap.parse_args()
    write_patched_copies(args.gen, args.out_gen, patch)


if __name__ == "__main__":
    main()
