#!/usr/bin/env python3
"""Experiment: layernorm's gamma and beta multicast to the R rows of a two-dimensional cluster.

Times, in one process and interleaved per shape, the generated layernorm (cluster, mbarrier
protocol, every legal P) and the hand-written prototype multicast_layernorm.cu: a cluster of
P x R CTAs, one row slice per CTA, with gamma and beta loaded by LDG in h (mode 0, the
generated kernel's way) or multicast by the column leader into a two-stage SMEM ring of
2 x 512 elements per vector (mode 1), for R = 1 and 2. The LoadBalancing cluster policy
as the generated launchers. M = 2048 (the benchmark's layernorm), CUDA events, 256 MiB L2
flush, 5 warm-ups, median of --reps. Every launch is first checked against F.layer_norm in
float64 on poisoned (NaN) outputs: relative L2 error <= 1e-5 or the record says CHECK FAILED.
Compulsory bytes: 8 per element + 8 per column, as the benchmark counts them. Within each N
the multicast configurations run last, so a hang (the process runs under `timeout`) loses
only them.

    timeout 300 python3 bench/experiments/multicast.py --gen .gpu/gen --out $OUT/multicast
"""
import argparse
import ctypes
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "peers"))

import torch  # noqa: E402

import timing  # noqa: E402
from run_bench import CreditKernels, device_record, gen_commit, label  # noqa: E402


def build(src, so, extra=(), arch=("-arch=sm_90",)):
    subprocess.run(["nvcc", "-O3", "-std=c++17", *arch, "-shared", "-Xcompiler", "-fPIC", *extra, src,
                    "-o", so], check=True)
    return ctypes.CDLL(so)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gen", required=True, help="generated files (layernorm.cu)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--N", default="32768,65536,131072")
    ap.add_argument("--reps", type=int, default=25)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    gen = CreditKernels(build(os.path.join(a.gen, "layernorm.cu"), "/tmp/mc_gen.so"), "layernorm")
    proto = build(os.path.join(HERE, "multicast_layernorm.cu"), "/tmp/mc_proto.so",
                  ["-I", os.path.join(ROOT, "runtime", "include")], ("-gencode", "arch=compute_90a,code=sm_90a"))
    proto.mc_launch.restype = ctypes.c_int
    proto.mc_launch.argtypes = [ctypes.c_int] * 3 + [ctypes.c_void_p] * 4 + [ctypes.c_longlong, ctypes.c_int,
                                                                             ctypes.c_float, ctypes.c_int,
                                                                             ctypes.c_void_p]
    proto.mc_smem_bytes.restype = ctypes.c_longlong
    proto.mc_smem_bytes.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_longlong]
    optin = torch.cuda.get_device_properties(0).shared_memory_per_block_optin
    ceiling = timing.copy_ceiling()
    M, eps = 2048, 1e-5
    commit = gen_commit(a.gen)
    f = open(os.path.join(a.out, "multicast.jsonl"), "w")
    f.write(json.dumps({"meta": {"copy_ceiling_GBps": ceiling, "M": M, "reps": a.reps, "commit": commit,
                                 "device": device_record(), "smem_optin": optin}}) + "\n")
    failed = 0
    for N in map(int, a.N.split(",")):
        g = torch.Generator(device="cuda").manual_seed(N)
        x = torch.randn(M, N, device="cuda", generator=g)
        gamma = 1.0 + 0.1 * torch.randn(N, device="cuda", generator=g)
        beta = 0.1 * torch.randn(N, device="cuda", generator=g)
        y = torch.empty(M, N, device="cuda")
        ref = torch.nn.functional.layer_norm(x.double(), (N,), gamma.double(), beta.double(), eps)
        cbytes = M * N * 8 + N * 8
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)

        def measure(name, fn, **cfg):
            nonlocal failed
            y.fill_(float("nan"))
            try:
                fn()
                torch.cuda.synchronize()
            except Exception as e:  # an unlaunchable configuration: recorded, not fatal
                rec = dict(cfg, kernel=name, N=N, error=str(e)[:200])
                f.write(json.dumps(rec) + "\n")
                print(f"{name:10s} N={N:7d} {cfg} {rec['error']}", flush=True)
                return
            err = ((y.double() - ref).norm() / ref.norm()).item()
            t = timing.bench(fn, reps=a.reps)
            frac = cbytes / (t["median_ms"] * 1e-3) / 1e9 / ceiling
            ok = err <= 1e-5
            failed += not ok
            rec = dict(cfg, kernel=name, N=N, M=M, median_ms=t["median_ms"], min_ms=t["min_ms"], all_ms=t["all"],
                       frac_copy=frac, rel_err=err, check_failed=not ok)
            f.write(json.dumps(rec) + "\n")
            f.flush()
            print(f"{name:10s} N={N:7d} {json.dumps(cfg):48s} {t['median_ms']:.4f} ms {100 * frac:5.1f}% "
                  f"err={err:.1e}" + ("" if ok else "  CHECK FAILED"), flush=True)

        tensors = [x, gamma, beta, y]
        for variant, P, protocol in gen.configs(N):
            if variant == "staged" or (variant == "cluster" and protocol == 1):
                measure("generated", gen.launcher(variant, P, protocol, tensors, M, N),
                        variant=label(variant, P, protocol))
        for mode in (0, 1):
            for R in (1, 2):
                for P in (2, 4, 8, 16):
                    smem = proto.mc_smem_bytes(mode, P, N)
                    if smem > optin or P * R > 16:
                        continue

                    def fn(mode=mode, R=R, P=P):
                        rc = proto.mc_launch(mode, P, R, x.data_ptr(), gamma.data_ptr(), beta.data_ptr(),
                                             y.data_ptr(), M, N, eps, 1, stream)
                        if rc != 0:
                            raise RuntimeError(f"mc_launch status {rc}")
                    measure("multicast" if mode else "ldg", fn, mode=mode, R=R, P=P, smem=smem)
        del x, gamma, beta, y, ref
        torch.cuda.empty_cache()
    print(f"{failed} check(s) failed", flush=True)
    sys.exit(2 if failed else 0)


if __name__ == "__main__":
    main()
