#!/usr/bin/env python3
"""Where a generated variant goes wrong: runs one workload's generic launcher
(cluster/staged/reread, P, protocol) on small fresh inputs and prints, per
output, the relative error, NaN count and the first/last wrong element and
the cluster rank (slice) it falls in.
    python3 bench/experiments/debug_variant.py GEN_DIR WORKLOAD VARIANT P PROTOCOL M N [N ...]"""
import ctypes, hashlib, os, subprocess, sys
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "peers"))
sys.path.insert(0, os.path.join(HERE, ".."))
import torch  # noqa: E402
from workloads import WORKLOADS  # noqa: E402
from run_bench import CreditKernels  # noqa: E402

gen, name, variant, P, protocol, M = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
src = os.path.join(gen, f"{name}.cu")
with open(src, "rb") as f:  # the library is keyed on the source's content: never a stale build
    so = f"/tmp/dbg_{name}_{hashlib.sha256(f.read()).hexdigest()[:16]}.so"
if not os.path.exists(so):
    subprocess.run(["nvcc", "-O3", "-std=c++17", "-arch=sm_90", "-shared", "-Xcompiler", "-fPIC",
                    src, "-o", so], check=True)
k = CreditKernels(ctypes.CDLL(so), name)
wl = WORKLOADS[name]
for N in map(int, sys.argv[7:]):
    ins = wl.make_inputs(M=M, N=N, seed=N)
    outs = wl.alloc_outputs(M, N)
    for o in outs:
        o.fill_(float("nan") if o.dtype.is_floating_point else 77)
    k.launcher(variant, P, protocol, list(ins) + list(outs), M, N)()
    torch.cuda.synchronize()
    refs = wl.reference(*ins)
    refs = refs if isinstance(refs, (tuple, list)) else (refs,)
    slice_ = -(-N // P); slice_ = -(-slice_ // 4) * 4
    for i, (o, r) in enumerate(zip(outs, refs)):
        o64, r64 = o.double(), r.double().to(o.device)
        if o.dim() == 1:
            o64, r64 = o64.view(-1, 1), r64.view(-1, 1)
        diff = (o64 - r64).abs()
        bad = ~(diff <= 1e-4 * (r64.abs() + 1e-6))
        nan = torch.isnan(o64).sum().item()
        rel = ((o64 - r64).norm() / r64.norm()).item()
        line = f"N={N} out{i} shape={tuple(o.shape)} rel={rel:.3e} nan={nan} bad={bad.sum().item()}"
        if bad.any():
            idx = bad.nonzero()
            cols = idx[:, 1]
            ranks = sorted(set((cols // slice_).tolist())) if o.dim() == 2 and o.shape[1] == N else []
            line += f" first={idx[0].tolist()} last={idx[-1].tolist()} rows={sorted(set(idx[:,0].tolist()))[:8]} ranks={ranks}"
        print(line, flush=True)
