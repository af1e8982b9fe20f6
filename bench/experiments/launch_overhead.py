#!/usr/bin/env python3
"""Experiment: the host time of one call of the generated launch API.

The persistent profile (docs/results/persistent-profile/) found 27-40 us between a CUDA event
recorded on an idle GPU and the first CTA of the kernel launched right after it: the generated
launcher's host work (device attributes, cudaFuncSetAttribute, cudaOccupancyMaxPotentialClusterSize
and, for the persistent form, cudaOccupancyMaxActiveClusters) before cudaLaunchKernelEx. The
benchmark hides it behind its 256 MiB L2 flush, but a caller whose kernels are short (small M)
waits for it.

For each configuration this script calls the C launch API (credit_<name>_launch_generic, as
run_bench.py does) --calls times back to back without synchronising, at a small M so that the
GPU keeps up, and reports the host time per call (time.perf_counter; median of --trials), and
the GPU time per call of the same loop (CUDA events around it): when the GPU time per call equals
the host time per call, the launches are host-bound. torch's own launch (a 1-element add_) is the
reference.

    python3 bench/experiments/launch_overhead.py --gen .gpu/gen --out $OUT/launch
"""
import argparse
import datetime
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "peers"))

import torch  # noqa: E402

from run_bench import CreditKernels, build_libs, device_record, gen_commit  # noqa: E402
from workloads import WORKLOADS  # noqa: E402

# (workload, N, variant, P, protocol): the staged and reread kernels, the cluster launcher's
# one-row form (sync) and its persistent form (mbarrier; P = 4 at 65536, slices of 16384).
DEFAULT_CONFIGS = ("layernorm:65536:cluster:4:1,layernorm:65536:cluster:4:0,layernorm:8192:staged:1:0,"
                   "softmax_logits_bwd:131072:cluster:8:1,quant_int8:32768:cluster:2:1,"
                   "quant_int8:16384:staged:1:0,wvar_bwd:4096:reread:1:0")


def time_calls(fn, calls, trials):
    host, gpu = [], []
    for _ in range(trials):
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        t1 = time.perf_counter()
        end.record()
        torch.cuda.synchronize()
        host.append((t1 - t0) / calls * 1e6)
        gpu.append(start.elapsed_time(end) / calls * 1e3)
    return statistics.median(host), statistics.median(gpu)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gen", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--configs", default=DEFAULT_CONFIGS, help="workload:N:variant:P:protocol,...")
    ap.add_argument("--M", type=int, default=8)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--trials", type=int, default=7)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    configs = [(w, int(n), v, int(p), int(pr)) for w, n, v, p, pr in (c.split(":") for c in a.configs.split(","))]
    names = sorted({c[0] for c in configs})
    os.makedirs("/tmp/launch_libs", exist_ok=True)
    libs = build_libs(a.gen, "/tmp/launch_libs", names)
    commit = gen_commit(a.gen)
    out = open(os.path.join(a.out, "launch_overhead.jsonl"), "w")
    out.write(json.dumps({"meta": {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(), "commit": commit,
                                   "device": device_record(), "M": a.M, "calls": a.calls, "trials": a.trials}}) + "\n")
    x = torch.zeros(1, device="cuda")
    host, gpu = time_calls(lambda: x.add_(1), a.calls, a.trials)
    out.write(json.dumps({"impl": "torch_add_1_element", "host_us_per_call": host, "gpu_us_per_call": gpu}) + "\n")
    print(f"{'torch add_ (1 element)':44s} host {host:6.2f} us/call  gpu {gpu:6.2f} us/call", flush=True)
    for name, N, variant, P, protocol in configs:
        wl = WORKLOADS[name]
        ins = wl.make_inputs(a.M, N, seed=1, device="cuda")
        outs = wl.alloc_outputs(a.M, N)
        fn = CreditKernels(libs[name], name).launcher(variant, P, protocol, list(ins) + list(outs), a.M, N)
        fn()  # first call: module load, attributes
        host, gpu = time_calls(fn, a.calls, a.trials)
        rec = {"workload": name, "M": a.M, "N": N, "variant": variant, "P": P, "protocol": protocol,
               "host_us_per_call": host, "gpu_us_per_call": gpu}
        out.write(json.dumps(rec) + "\n")
        out.flush()
        label = f"{name} N={N} {variant} P={P} {'mbarrier' if protocol else 'sync'}"
        print(f"{label:44s} host {host:6.2f} us/call  gpu {gpu:6.2f} us/call", flush=True)


if __name__ == "__main__":
    main()
