#!/usr/bin/env python3
"""Experiment: split the rows between the P = 16 cluster kernel and a second kernel on a second stream.

At P = 16 every cluster kernel runs on 112 of the H200's 132 SMs (Nsight Compute,
docs/results §2): a cluster must fit in one GPC, and the GPCs' leftover SMs cannot
hold a cluster of 16. That idles 15% of the SMs at 131072 and 262144, where six of
the remaining misses of the 90%-of-copy target sit. One launch cannot mix cluster
sizes, but two launches on two streams can run at once. This experiment gives the
first M - m rows to the launcher's cluster kernel at P (stream A) and the last m rows
to a second kernel (stream B), forked from and joined back into the timing stream:
  - "reread": no cluster, one CTA per row, SMEM scratch only, so its CTAs fit on
    any SM, the idle ones included;
  - "cluster P=<Q>": a smaller cluster where it is legal (Q = 8 at 262144 for the
    one-input workloads), which fits a GPC's leftover SMs more often.
Prediction: if the second kernel's CTAs land on the idle SMs, the pair finishes in
up to 112/132 = 0.85 of the cluster kernel's time at the fraction m/M that balances
the two; a same-stream (serial) launch of the same split is the control and must
not be faster than the cluster kernel alone.

The generated files run unmodified (their generic launch API, pointers offset by
the first row of each part). Every launch is checked against the workload's eager
PyTorch reference on poisoned outputs (relative L2 error <= 1e-5; int8 off by at
most 1), then timed as the benchmark does (CUDA events on the timing stream, 256 MiB
L2 flush, 5 warm-ups, median of --reps).

    python3 bench/experiments/row_split.py --gen .gpu/gen --out $OUT/split
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


def row_part(tensors, kinds, first):
    """The tensors of rows [first, M): row and per-row (scalar) tensors offset, broadcast ones as they are."""
    return [t[first:] if kind in ("row", "scalar") else t for t, kind in zip(tensors, kinds)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gen", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    ap.add_argument("--N", default="131072,262144")
    ap.add_argument("--main-P", default="16")
    ap.add_argument("--fractions", default="0.08,0.15,0.25")
    ap.add_argument("--reps", type=int, default=15)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    os.makedirs("/tmp/split_libs", exist_ok=True)
    names = a.workloads.split(",")
    libs = build_libs(a.gen, "/tmp/split_libs")
    ceiling = timing.copy_ceiling()
    commit = gen_commit(a.gen)
    out = open(os.path.join(a.out, "split.jsonl"), "w")
    out.write(json.dumps({"meta": {"copy_ceiling_GBps": ceiling, "reps": a.reps, "commit": commit,
                                   "device": device_record(), "fractions": a.fractions}}) + "\n")
    side = torch.cuda.Stream()
    failed = 0
    for N in map(int, a.N.split(",")):
        for name in names:
            wl = WORKLOADS[name]
            ck = CreditKernels(libs[name], name)
            M = wl.default_M
            ins = wl.make_inputs(M, N, seed=N + 17, device="cuda")
            ref = wl.eager(*ins)
            cbytes = wl.compulsory_bytes(M, N)
            in_kinds = [kind for _, kind in wl.inputs]
            out_kinds = [kind for _, kind, _ in wl.outputs]
            for P in map(int, a.main_P.split(",")):
                if ck.max_n(b"cluster", P, 1) < N:
                    continue
                seconds = [("reread", 1, 0)] + [("cluster", Q, 1) for Q in (8, 4)
                                                 if Q < P and ck.max_n(b"cluster", Q, 1) >= N][:1]
                plans = [("alone", None, 0.0)]
                for f in map(float, a.fractions.split(",")):
                    plans += [("concurrent", s, f) for s in seconds]
                plans.append(("serial", seconds[0], 0.15))
                for mode, second, f in plans:
                    outs = wl.alloc_outputs(M, N)
                    m = int(round(f * M))
                    first_rows = M - m
                    main_fn = ck.launcher("cluster", P, 1, list(ins) + list(outs), first_rows, N)
                    fns = [main_fn]
                    if second is not None:
                        v, Q, proto = second
                        part = row_part(ins, in_kinds, first_rows) + row_part(outs, out_kinds, first_rows)
                        if mode == "concurrent":
                            with torch.cuda.stream(side):
                                sec_fn = ck.launcher(v, Q, proto, part, m, N)
                        else:
                            sec_fn = ck.launcher(v, Q, proto, part, m, N)
                        fns.append(sec_fn)

                    def fn(fns=fns, mode=mode):
                        if mode == "concurrent":
                            cur = torch.cuda.current_stream()
                            side.wait_stream(cur)
                            fns[0]()
                            fns[1]()  # bound to `side` at creation
                            cur.wait_stream(side)
                        else:
                            for g in fns:
                                g()

                    sec_label = "" if second is None else (second[0] if second[0] == "reread" else f"cluster_P{second[1]}")
                    rec = {"workload": name, "N": N, "M": M, "P": P, "mode": mode, "second": sec_label,
                           "fraction": f, "second_rows": m}
                    msg, bad = checked_record(out, rec, fn, outs, ref, cbytes, ceiling, a.reps)
                    failed += bad
                    print(f"{name:18s} N={N:7d} P={P:2d} {mode:10s} {sec_label:11s} f={f:.2f} {msg}", flush=True)
                    del outs
            del ins, ref
            torch.cuda.empty_cache()
    print(f"{failed} check(s) failed", flush=True)
    sys.exit(2 if failed else 0)


if __name__ == "__main__":
    main()
