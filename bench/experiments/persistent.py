#!/usr/bin/env python3
"""Experiment: persistent layernorm CTAs that keep gamma and beta in registers.

Times, in one process and interleaved per N, the generated layernorm (staged and cluster,
mbarrier protocol, every legal P: what the launchers run) and the hand-written prototype
persistent_layernorm.cu (one CTA per SM, a grid of the resident clusters, gamma and beta
loaded once per CTA into registers, x streamed through an NS-stage bulk-copy ring), every
configuration whose slice N / P matches its T * E. The generated kernels run again after
the prototypes, as a drift control. M = 2048 (the benchmark's layernorm), CUDA events,
256 MiB L2 flush, 5 warm-ups, median of --reps, every launch checked first against
F.layer_norm in float64 on NaN-poisoned outputs (run_bench.checked_record). Compulsory
bytes: 8 per element + 8 per column, as the benchmark counts them.

    timeout 400 python3 bench/experiments/persistent.py --gen .gpu/gen --out $OUT/persistent
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
from run_bench import CreditKernels, checked_record, device_record, gen_commit, label  # noqa: E402


def build(src, so, extra=()):
    r = subprocess.run(["nvcc", "-O3", "-std=c++17", "-arch=sm_90", "-shared", "-Xcompiler", "-fPIC",
                        "-Xptxas", "-v", *extra, src, "-o", so], check=True, capture_output=True, text=True)
    return ctypes.CDLL(so), r.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gen", required=True, help="generated files (layernorm.cu)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--N", default="16384,32768,65536,131072,262144")
    ap.add_argument("--reps", type=int, default=25)
    ap.add_argument("--clusters", type=int, default=0, help="clusters launched (0: every resident one)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    gen = CreditKernels(build(os.path.join(a.gen, "layernorm.cu"), "/tmp/pl_gen.so")[0], "layernorm")
    proto, ptxas = build(os.path.join(HERE, "persistent_layernorm.cu"), "/tmp/pl_proto.so",
                         ["-I", os.path.join(ROOT, "runtime", "include")])
    with open(os.path.join(a.out, "ptxas.txt"), "w") as f:
        f.write(ptxas)
    proto.pl_launch.restype = ctypes.c_int
    proto.pl_launch.argtypes = [ctypes.c_int, ctypes.c_int] + [ctypes.c_void_p] * 4 + [
        ctypes.c_longlong, ctypes.c_int, ctypes.c_float, ctypes.c_int, ctypes.c_void_p,
        ctypes.POINTER(ctypes.c_int)]
    proto.pl_smem_bytes.restype = ctypes.c_longlong
    proto.pl_smem_bytes.argtypes = [ctypes.c_int, ctypes.c_int]
    configs = []
    for i in range(proto.pl_num_configs()):
        v = (ctypes.c_int * 4)()
        proto.pl_config(i, v)
        configs.append(dict(T=v[0], E=v[1], NS=v[2], keepx=bool(v[3])))
    optin = torch.cuda.get_device_properties(0).shared_memory_per_block_optin
    ceiling = timing.copy_ceiling()
    M, eps = 2048, 1e-5
    commit = gen_commit(a.gen)
    out = open(os.path.join(a.out, "persistent.jsonl"), "w")
    out.write(json.dumps({"meta": {"copy_ceiling_GBps": ceiling, "M": M, "reps": a.reps, "commit": commit,
                                   "device": device_record(), "smem_optin": optin}}) + "\n")
    failed = 0
    for N in map(int, a.N.split(",")):
        g = torch.Generator(device="cuda").manual_seed(N)
        x = torch.randn(M, N, device="cuda", generator=g)
        gamma = 1.0 + 0.1 * torch.randn(N, device="cuda", generator=g)
        beta = 0.1 * torch.randn(N, device="cuda", generator=g)
        y = torch.empty(M, N, device="cuda")
        ref = [torch.nn.functional.layer_norm(x.double(), (N,), gamma.double(), beta.double(), eps).float()]
        cbytes = M * N * 8 + N * 8
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)

        def measure(name, fn, **cfg):
            nonlocal failed
            rec = dict(cfg, kernel=name, N=N, M=M)
            msg, bad = checked_record(out, rec, fn, [y], ref, cbytes, ceiling, a.reps)
            failed += bad
            print(f"{name:10s} N={N:7d} {json.dumps(cfg):70s} {msg}", flush=True)

        def generated(tag):
            for variant, P, protocol in gen.configs(N):
                if variant == "staged" or (variant == "cluster" and protocol == 1):
                    measure("generated", gen.launcher(variant, P, protocol, [x, gamma, beta, y], M, N),
                            variant=label(variant, P, protocol), order=tag)

        generated("first")
        for i, c in enumerate(configs):
            slice_ = c["T"] * c["E"]
            if N % slice_ or N // slice_ > 16:
                continue
            P = N // slice_
            smem = proto.pl_smem_bytes(i, P)
            if smem > optin:
                continue
            used = ctypes.c_int(0)

            def fn(i=i, P=P, used=used):
                rc = proto.pl_launch(i, P, x.data_ptr(), gamma.data_ptr(), beta.data_ptr(), y.data_ptr(), M, N,
                                     eps, a.clusters, stream, ctypes.byref(used))
                if rc != 0:
                    raise RuntimeError(f"pl_launch status {rc}")
            try:  # a first launch fills in the clusters used; a failure is recorded by measure
                fn()
                torch.cuda.synchronize()
            except RuntimeError:
                pass
            measure("persistent", fn, P=P, smem=smem, clusters=used.value, **c)
        generated("again")
        del x, gamma, beta, y, ref
        torch.cuda.empty_cache()
    print(f"{failed} check(s) failed", flush=True)
    sys.exit(2 if failed else 0)


if __name__ == "__main__":
    main()
