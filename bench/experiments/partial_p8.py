#!/usr/bin/env python3
"""Experiment: the partial-retention form at P = 8 for the two-input workloads at N = 262144.

At 262144 the two-input cluster kernels run the partial-retention form at P = 16 (64 KiB per
CTA, three CTAs per SM) on the 112 SMs that clusters of 16 can use (docs/results §2). The full
form is illegal at P = 8 (256 KiB), but the partial form is legal there (128 KiB per CTA, one
256-thread CTA per SM) and clusters of 8 can use 120 SMs. The launcher never runs it (the form
needs two CTAs per SM, credit::usePartialRetention); the generic variant "cluster_partial"
does, but checks legality with the full form's geometry, so this script patches a copy of
each file to check it with geometry_partial (credit::maxLegalN of the form it launches). It
times it against the launcher's choice at P = 16, mbarrier protocol, in one process, order
P16, P8, P8, P16 (CUDA events, 256 MiB L2 flush, 5 warm-ups, median of --reps), every launch
checked first against eager PyTorch on poisoned outputs.

Prediction: 1.1-1.3 of the P = 16 kernel's time: one CTA of 8 warps per SM on 120 SMs
against three on 112, and the same bytes per row.

    python3 bench/experiments/partial_p8.py --gen .gpu/gen --out $OUT/partial_p8
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
from run_bench import CreditKernels, build_libs, checked_record, device_record, gen_commit  # noqa: E402
from workloads import WORKLOADS  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gen", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--workloads", default="lars,pearson_bwd,softmax_logits_bwd,wvar_bwd")
    ap.add_argument("--N", type=int, default=262144)
    ap.add_argument("--reps", type=int, default=15)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    os.makedirs("/tmp/p8_libs", exist_ok=True)
    pdir = "/tmp/p8_gen"
    os.makedirs(pdir, exist_ok=True)
    old = "return launch(kernel, true, credit::clusterLoadBalancing(true), P, M, N, smem_bytes_partial("
    new = "return launch_geo(kernel, geometry_partial, true, credit::clusterLoadBalancing(true), P, M, N, smem_bytes_partial("
    for name in a.workloads.split(","):
        src = open(os.path.join(a.gen, f"{name}.cu")).read()
        if src.count(old) < 1:  # host::cluster_partial (and host::cluster's partial path: moot there)
            raise SystemExit(f"patch does not apply to {name}.cu: the generated launcher changed")
        with open(os.path.join(pdir, f"{name}.cu"), "w") as f:
            f.write(src.replace(old, new))
    libs = build_libs(pdir, "/tmp/p8_libs")
    ceiling = timing.copy_ceiling()
    commit = gen_commit(a.gen)
    out = open(os.path.join(a.out, "partial_p8.jsonl"), "w")
    out.write(json.dumps({"meta": {"copy_ceiling_GBps": ceiling, "reps": a.reps, "commit": commit,
                                   "device": device_record()}}) + "\n")
    failed = 0
    N = a.N
    for name in a.workloads.split(","):
        wl = WORKLOADS[name]
        ck = CreditKernels(libs[name], name)
        M = wl.default_M
        ins = wl.make_inputs(M, N, seed=N + 5, device="cuda")
        ref = wl.eager(*ins)
        cbytes = wl.compulsory_bytes(M, N)
        outs = wl.alloc_outputs(M, N)
        tensors = list(ins) + list(outs)
        forms = {"cluster_P16": ck.launcher("cluster", 16, 1, tensors, M, N),
                 "cluster_partial_P8": ck.launcher("cluster_partial", 8, 1, tensors, M, N)}
        for order, form in enumerate(["cluster_P16", "cluster_partial_P8", "cluster_partial_P8", "cluster_P16"]):
            rec = {"workload": name, "N": N, "M": M, "form": form, "order": order}
            msg, bad = checked_record(out, rec, forms[form], outs, ref, cbytes, ceiling, a.reps)
            failed += bad
            print(f"{name:18s} N={N} {form:20s} {msg}", flush=True)
        del ins, ref, outs
        torch.cuda.empty_cache()
    print(f"{failed} check(s) failed", flush=True)
    sys.exit(2 if failed else 0)


if __name__ == "__main__":
    main()
