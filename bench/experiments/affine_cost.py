#!/usr/bin/env python3
"""Experiment: what do layernorm's broadcast vectors (gamma, beta) cost?

Times, in one process and interleaved per shape, the generated layernorm
(x, gamma, beta -> y) and the same kernel without the affine map
(affine/layernorm_noaffine.credit: x -> y), M = 2048, every launcher variant
(reread, staged, cluster x protocol x legal P), CUDA events, L2 flushed, median
of --reps. Prints each one's fraction of the copy ceiling on its own compulsory
bytes (layernorm: 8 B per element + 8 B per column; no-affine: 8 B per element).

    python3 bench/experiments/affine_cost.py --gen .gpu/gen --noaffine .gpu/affine --out $OUT/affine
"""
import argparse
import ctypes
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "peers"))

import torch  # noqa: E402

import timing  # noqa: E402
from run_bench import CreditKernels  # noqa: E402


def build(src, so):
    subprocess.run(["nvcc", "-O3", "-std=c++17", "-arch=sm_90", "-shared", "-Xcompiler", "-fPIC", src, "-o", so],
                   check=True)
    return ctypes.CDLL(so)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gen", required=True)
    ap.add_argument("--noaffine", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--N", default="16384,32768,65536,131072")
    ap.add_argument("--reps", type=int, default=25)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    kernels = {"layernorm": CreditKernels(build(os.path.join(a.gen, "layernorm.cu"), "/tmp/aff_ln.so"), "layernorm"),
               "layernorm_noaffine": CreditKernels(build(os.path.join(a.noaffine, "layernorm_noaffine.cu"),
                                                         "/tmp/aff_na.so"), "layernorm_noaffine")}
    ceiling = timing.copy_ceiling()
    M = 2048
    f = open(os.path.join(a.out, "affine.jsonl"), "w")
    f.write(json.dumps({"meta": {"copy_ceiling_GBps": ceiling, "M": M, "reps": a.reps}}) + "\n")
    for N in map(int, a.N.split(",")):
        x = torch.randn(M, N, device="cuda")
        gamma = torch.rand(N, device="cuda") + 0.5
        beta = torch.randn(N, device="cuda")
        y = torch.empty(M, N, device="cuda")
        refs = {"layernorm": torch.nn.functional.layer_norm(x.double(), (N,), gamma.double(), beta.double(), 1e-5),
                "layernorm_noaffine": torch.nn.functional.layer_norm(x.double(), (N,), None, None, 1e-5)}
        for name, ck in kernels.items():
            tensors = [x, gamma, beta, y] if name == "layernorm" else [x, y]
            cbytes = M * N * 8 + (N * 8 if name == "layernorm" else 0)
            for variant, P, protocol in ck.configs(N):
                fn = ck.launcher(variant, P, protocol, tensors, M, N)
                y.fill_(float("nan"))  # poisoned: every element must be written
                fn()
                torch.cuda.synchronize()
                err = ((y.double() - refs[name]).norm() / refs[name].norm()).item()
                t = timing.bench(fn, reps=a.reps)["median_ms"]
                frac = cbytes / (t * 1e-3) / 1e9 / ceiling
                rec = {"kernel": name, "N": N, "variant": variant, "P": P, "protocol": protocol,
                       "median_ms": t, "frac_copy": frac, "rel_err": err}
                f.write(json.dumps(rec) + "\n")
                f.flush()
                print(f"{name:20s} N={N:7d} {variant:8s} P={P:2d} proto={protocol} {t:.4f} ms {100 * frac:5.1f}%"
                      f" err={err:.1e}" + ("" if err <= 1e-5 else "  CHECK FAILED"), flush=True)
        del x, gamma, beta, y
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
