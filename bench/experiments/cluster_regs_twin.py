#!/usr/bin/env python3
"""Experiment: the light register row for the cluster kernel (quant_int8, slices of 16384 elements).

The staged launcher runs the 512-thread twin's register kernel for a light row
(credit::useLightTwin: one kept input, nothing only h reads, and the SMEM kernel
holds fewer threads per SM than two twin CTAs): quant_int8 16384 took 0.977 of the
SMEM kernel's time (docs/results/light-row/). quant_int8's best cluster kernels at
32768..262144 keep slices of exactly 16384 elements (P = N / 16384) in SMEM, three
CTAs of 256 threads per SM, and 262144 is 0.04 points short of 90% of copy bandwidth.
The files carry no 512-thread cluster register kernel, so this script appends one
to a copy of the generated quant_int8.cu (CLUSTER_REGS_MBARRIER, kWideCtaThreads,
RPT 32; ptxas: 64 registers, two CTAs per SM) with a launcher through the file's own
launch_geo, LoadBalancing as the SMEM cluster kernels.

Prediction: as for the staged kernel, 0.97-0.99 of the SMEM cluster kernel's time
at every N (same per-CTA shape: 16384 elements, 32 warps per SM against 24). Against
that: the register form loads with LDG instead of bulk copies (the 256-thread
register cluster form lost to the SMEM form at 19 of 24 shapes, docs/results §6).

Each (N, P) is timed as twin, SMEM, SMEM, twin (CUDA events, 256 MiB L2 flush,
5 warm-ups, median of --reps), every launch checked first against eager PyTorch on
poisoned outputs (int8 off by at most 1, relative error <= 1e-5).

    python3 bench/experiments/cluster_regs_twin.py --gen .gpu/gen --out $OUT/twin
"""
import argparse
import ctypes
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

PATCH = r'''
// ---- experiment (bench/experiments/cluster_regs_twin.py): not part of creditc's output ----
extern "C" __global__ void __launch_bounds__(512, 1) credit_quant_int8_cluster_regs_mbarrier_v4_cta512(
    const float* __restrict__ x, int8_t* __restrict__ q, float* __restrict__ scale, long long M, int N, int P) {
  credit_quant_int8::credit_quant_int8_body<4, credit_quant_int8::CLUSTER_REGS_MBARRIER,
      credit::kRegsWideElemsPerThread, credit_quant_int8::kWideCtaThreads>(x, q, scale, M, N, P);
}
#if !defined(__CUDACC_RTC__)
extern "C" int credit_exp_launch_regs_twin(const float* x, int8_t* q, float* scale, long long M, long long N, int P,
                                           cudaStream_t stream) {
  using namespace credit_quant_int8;
  if (P < 1 || N % 4 != 0 || credit::sliceElems(N, P) > credit::regsWideMaxN(kWideCtaThreads)) return -1;
  const void* ptrs[3] = {x, q, scale};
  const int elemBytes[3] = {4, 1, 4};
  return host::launch_geo(credit_quant_int8_cluster_regs_mbarrier_v4_cta512, geometry_wide_cta, true,
                          credit::clusterLoadBalancing(false), P, M, N,
                          credit::scratchBytes(geometry_wide_cta, P, credit::Protocol::Mbarrier), false,
                          credit::Protocol::Mbarrier, ptrs, elemBytes, 3, stream, x, q, scale, M,
                          static_cast<int>(N), P);
}
#endif
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gen", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--shapes", default="32768:2,65536:4,131072:8,262144:16")
    ap.add_argument("--reps", type=int, default=25)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    pdir, ldir = "/tmp/twin_gen", "/tmp/twin_libs"
    os.makedirs(pdir, exist_ok=True)
    os.makedirs(ldir, exist_ok=True)
    src = open(os.path.join(a.gen, "quant_int8.cu")).read()
    if "credit_quant_int8_body<" not in src or "launch_geo(" not in src:
        raise SystemExit("patch does not apply: the generated file changed")
    with open(os.path.join(pdir, "quant_int8.cu"), "w") as f:
        f.write(src + PATCH)
    lib = build_libs(pdir, ldir)["quant_int8"]
    twin = lib.credit_exp_launch_regs_twin
    twin.restype = ctypes.c_int
    twin.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_longlong, ctypes.c_longlong, ctypes.c_int, ctypes.c_void_p]
    ck = CreditKernels(lib, "quant_int8")
    wl = WORKLOADS["quant_int8"]
    ceiling = timing.copy_ceiling()
    commit = gen_commit(a.gen)
    out = open(os.path.join(a.out, "twin.jsonl"), "w")
    out.write(json.dumps({"meta": {"copy_ceiling_GBps": ceiling, "reps": a.reps, "commit": commit,
                                   "device": device_record()}}) + "\n")
    failed = 0
    for item in a.shapes.split(","):
        N, P = map(int, item.split(":"))
        M = wl.default_M
        ins = wl.make_inputs(M, N, seed=N + 3, device="cuda")
        ref = wl.eager(*ins)
        cbytes = wl.compulsory_bytes(M, N)
        outs = wl.alloc_outputs(M, N)
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        x, q, scale = ins[0], outs[0], outs[1]

        def run_twin():
            rc = twin(x.data_ptr(), q.data_ptr(), scale.data_ptr(), M, N, P, stream)
            if rc != 0:
                raise RuntimeError(f"twin launch status {rc}: {ck.status(rc).decode() if rc > 0 else 'rejected'}")
        forms = {"regs_twin": run_twin, "smem": ck.launcher("cluster", P, 1, list(ins) + list(outs), M, N)}
        for order, name in enumerate(["regs_twin", "smem", "smem", "regs_twin"]):
            fn = forms[name]
            rec = {"workload": "quant_int8", "N": N, "M": M, "P": P, "form": name, "order": order}
            msg, bad = checked_record(out, rec, fn, outs, ref, cbytes, ceiling, a.reps)
            failed += bad
            print(f"quant_int8 N={N:7d} P={P:2d} {name:10s} {msg}", flush=True)
        del ins, ref, outs
        torch.cuda.empty_cache()
    print(f"{failed} check(s) failed", flush=True)
    sys.exit(2 if failed else 0)


if __name__ == "__main__":
    main()
