#!/usr/bin/env python3
"""Experiment: h's global stores as streaming stores (st.global.cs, __stcs) instead of write-back
ones (__stwb, what creditc emits).

Every generated kernel writes its outputs once and never reads them again. A streaming store marks
the lines evict-first in L2, so the outputs' dirty lines should leave L2 before the kept inputs'
lines that the ring's bulk copies and h's re-reads still need. This script writes copies of the
generated files (never the compiler's output itself) in which credit_st_global uses __stcs;
run_bench.py --extra-gen times them against the unchanged files in one process.

Prediction: 0-2% faster where the persistent and staged forms run at N >= 16384 (their loads are
bulk copies into SMEM or L2 prefetches; the outputs compete with them for L2), nothing elsewhere.

    python3 bench/experiments/streaming_stores.py --gen .gpu/gen --out .gpu/stcs
    python3 bench/run_bench.py --gen .gpu/gen --extra-gen stcs=.gpu/stcs --no-peers ...
"""
import argparse

from gen_patch import sub_checked, write_patched_copies


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gen", required=True, help="the generated files (scripts/gpu-prepare.sh's .gpu/gen)")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    # The float4, float and packed-int8 stores of credit_st_global (quant_int8's scalar int8 store is a
    # plain assignment on the VEC = 1 path, which the benchmark does not time).
    write_patched_copies(a.gen, a.out, lambda src, w: sub_checked(
        src, r"__stwb\(", "__stcs(", f"{w}: credit_st_global's stores", count=None))


if __name__ == "__main__":
    main()
