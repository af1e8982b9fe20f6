#!/usr/bin/env python3
"""The H200 benchmark: creditc's kernels against torch.compile, hand-written Triton
and our own matched CUDA baselines (reread, staged), fp32.

    python3 bench/run_bench.py --gen .gpu/gen --out $OUT [--workloads a,b] [--N 4096,65536]

Builds the generated .cu files of --gen into shared libraries (nvcc -arch=sm_90),
calls them through ctypes on torch tensors, and for every workload and N:
  - checks every variant's output against eager PyTorch before timing it (outputs
    poisoned first; over MAX_REL_ERR: recorded as check_failed, left out of the
    summaries, and the run exits with status 2),
  - times eager PyTorch, torch.compile (compile time excluded: compiled and run
    once before timing), the Triton peer (fixed config, no autotuning), and every
    creditc variant (reread, staged where legal, cluster x {sync, mbarrier} x legal P),
  - CUDA events, L2 flushed between iterations, warm-up, median of 15 (timing.py),
  - bandwidth on compulsory bytes (each input read once, each output written once)
    as a fraction of a 1 GiB device-to-device copy.
Writes results.json incrementally (one record per measurement) so a run cut short
still leaves what it measured.
"""
import argparse
import ctypes
import datetime
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "peers"))

import torch  # noqa: E402

import timing  # noqa: E402
from workloads import WORKLOADS  # noqa: E402

NS = [4096, 8192, 16384, 32768, 65536, 131072, 262144]


def build_libs(gen, outdir, names=None):
    """nvcc each generated .cu (of `names`, default every workload) into a shared library, in parallel."""
    libs = {}
    jobs = []
    for name in names or WORKLOADS:
        src = os.path.join(gen, f"{name}.cu")
        if not os.path.exists(src):  # an --extra-gen dir may hold only the workloads it varies
            continue
        so = os.path.join(outdir, f"libcredit_{name}.so")
        cmd = ["nvcc", "-O3", "-std=c++17", "-arch=sm_90", "-shared", "-Xcompiler", "-fPIC", src, "-o", so]
        jobs.append((name, so, cmd))

    def run(job):
        name, so, cmd = job
        subprocess.run(cmd, check=True)
        return name, so

    with ThreadPoolExecutor(max_workers=6) as ex:
        for name, so in ex.map(run, jobs):
            libs[name] = ctypes.CDLL(so)
    return libs


class CreditKernels:
    """ctypes view of one generated file's generic launch API."""

    def __init__(self, lib, name):
        self.name = name
        self.launch_fn = getattr(lib, f"credit_{name}_launch_generic")
        self.launch_fn.restype = ctypes.c_int
        self.launch_fn.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_longlong,
                                   ctypes.c_longlong, ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
        self.max_n = getattr(lib, f"credit_{name}_max_legal_n")
        self.max_n.restype = ctypes.c_longlong
        self.max_n.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int]
        self.status = getattr(lib, f"credit_{name}_status_string")
        self.status.restype = ctypes.c_char_p
        self.status.argtypes = [ctypes.c_int]

    def other_form_configs(self, N):
        """The forms the launchers do not run (ablations), as (record prefix,
        variant, P, protocol): otherform_* the staged kernel in SMEM where the
        launcher holds the row in registers, the cluster kernel with the slice
        in registers where it fits; fullform_* the cluster kernel retaining
        every kept input (two or more) in SMEM, from 32768 on, where the
        launcher may run the partial-retention form instead; rowwise_* the
        cluster kernel one row per cluster, where it may run the persistent form."""
        out = []
        if N <= STAGED_REGS_MAX_N and self.max_n(b"staged", 1, 0) >= N:
            out.append(("otherform", "staged_smem", 1, 0))
        if N <= CLUSTER_REGS_MAX_N:
            out += [("otherform", "cluster_regs", P, protocol) for v, P, protocol in self.configs(N)
                    if v == "cluster" and -(-N // P) <= CLUSTER_REGS_MAX_SLICE]
        if N >= 32768:
            out += [("fullform", "cluster_full", P, protocol) for v, P, protocol in self.configs(N)
                    if v == "cluster" and self.max_n(b"cluster_partial", P, protocol) >= N]
        # rowwise_*: one row per cluster where the launcher may run the persistent form
        # (broadcast inputs only h reads; mbarrier protocol).
        if N >= 16384:
            out += [("rowwise", "cluster_rowwise", P, protocol) for v, P, protocol in self.configs(N)
                    if v == "cluster" and protocol == 1 and self.max_n(b"cluster_rowwise", P, protocol) >= N]
        return out

    def configs(self, N):
        out = [("reread", 1, 0)]
        if self.max_n(b"staged", 1, 0) >= N:
            out.append(("staged", 1, 0))
        for protocol in (0, 1):
            for P in (2, 4, 8, 16):
                if self.max_n(b"cluster", P, protocol) >= N:
                    out.append(("cluster", P, protocol))
        return out

    def launcher(self, variant, P, protocol, tensors, M, N):
        ptrs = (ctypes.c_void_p * len(tensors))(*[t.data_ptr() for t in tensors])
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        v = variant.encode()

        def fn():
            rc = self.launch_fn(v, ptrs, M, N, P, protocol, stream)
            if rc != 0:
                raise RuntimeError(f"{self.name} {variant} P={P}: launch status {rc}: "
                                   f"{self.status(rc).decode()}")
        return fn


def label(variant, P, protocol):
    if variant in ("cluster", "cluster_regs", "cluster_full", "cluster_partial", "cluster_rowwise",
                   "cluster_persistent"):
        return f"cluster_{'mbarrier' if protocol else 'sync'}_P{P}"
    return "staged" if variant == "staged_smem" else variant


# Register forms (256 threads): staged rows up to 32 x 256 = 8192 elements,
# cluster slices up to 8192 (N up to 16 x 8192).
STAGED_REGS_MAX_N = 8192
CLUSTER_REGS_MAX_SLICE = 8192
CLUSTER_REGS_MAX_N = 131072


def max_rel_err(outs, refs):
    worst = 0.0
    for o, r in zip(outs, refs):
        if o.dtype == torch.int8:
            worst = max(worst, float((o.int() - r.int()).abs().max().item() > 1))
            continue
        o64, r64 = o.double(), r.double()
        mask = ~torch.isnan(r64)
        if torch.isnan(o64[mask]).any():  # a poisoned or NaN element where the reference has a value
            return float("inf")
        num = torch.linalg.vector_norm((o64 - r64)[mask])
        den = torch.linalg.vector_norm(r64[mask]).clamp_min(1e-30)
        worst = max(worst, float(num / den))
    return worst


# Relative L2 error a timed kernel must meet (f32 outputs; i8: no element off by more than 1,
# as max_rel_err scores it), the GPU tests' bound. A record over it is kept with
# "check_failed": true, printed as CHECK FAILED, left out of every summary
# (report_bench.py), and makes the run exit with status 2.
MAX_REL_ERR = 1e-5


def slice_elems(N, P):
    """credit::sliceElems (Layout.h): ceil(N / P) rounded up to 4."""
    return -(-(-(-N // P)) // 4) * 4


def poison(outs):
    """NaN in f32 outputs, -128 (never produced: q is clamped to +-127) in i8 ones."""
    for o in outs:
        o.fill_(float("nan") if o.dtype.is_floating_point else -128)


def checked_record(out, rec, fn, outs, ref, compulsory_bytes, ceiling, reps):
    """The experiments' step for one configuration: poison the outputs, launch once, check against
    the reference (max_rel_err against MAX_REL_ERR), time as the benchmark does (timing.bench: CUDA
    events, L2 flushed, warm-ups, median of reps), and append `rec` with the results to the JSONL
    file `out`. An exception (an unlaunchable configuration) is recorded, not raised. Returns
    (a one-line message, ending in CHECK FAILED when the check failed; whether it failed)."""
    failed = False
    try:
        poison(outs)
        fn()
        torch.cuda.synchronize()
        err = max_rel_err(outs, ref)
        t = timing.bench(fn, reps=reps)
        frac = compulsory_bytes / (t["median_ms"] * 1e-3) / 1e9 / ceiling
        failed = not err <= MAX_REL_ERR
        rec.update(median_ms=t["median_ms"], min_ms=t["min_ms"], all_ms=t["all"], frac_copy=frac,
                   max_rel_err=err, check_failed=failed)
        msg = f"{t['median_ms']:.4f} ms {100 * frac:5.1f}% err={err:.1e}" + ("  CHECK FAILED" if failed else "")
    except Exception as e:  # recorded, not fatal
        rec["error"] = str(e)[:200]
        msg = rec["error"]
    out.write(json.dumps(rec) + "\n")
    out.flush()
    return msg, failed


def gen_commit(gen):
    """The commit a generated-files directory was made from (scripts/gpu-prepare.sh writes it), or "unknown"."""
    path = os.path.join(gen, "commit")
    if not os.path.exists(path):
        return "unknown"
    with open(path) as f:
        return f.read().strip()


def device_record():
    q = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.max.sm,memory.total",
                        "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
    return {"nvidia_smi": q, "torch": torch.__version__,
            "triton": __import__("triton").__version__,
            "cuda": torch.version.cuda,
            "sm_count": torch.cuda.get_device_properties(0).multi_processor_count}


def run_peers(wl, ins, row, measure):
    """Times eager PyTorch, torch.compile (compiled and run once first, so the
    compile time is recorded apart and excluded) and the Triton peer."""
    measure("torch_eager", lambda: wl.eager(*ins))
    try:
        cfn = wl.compiled()
        t0 = time.time()
        cfn(*ins)
        torch.cuda.synchronize()
        measure.record(dict(row, impl="torch_compile_compile_s", seconds=time.time() - t0))
        couts = cfn(*ins)
        # It returns new tensors each call: couts (the call above) are checked, not poisoned.
        measure("torch_compile", lambda: cfn(*ins), couts, poisonable=False)
    except Exception as e:
        measure.record(dict(row, impl="torch_compile", error=str(e)[:300]))
    M, N = row["M"], row["N"]
    touts = wl.alloc_outputs(M, N)
    measure("triton", lambda: wl.triton(*ins, *touts), touts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gen", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    ap.add_argument("--N", default=",".join(map(str, NS)))
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--budget-s", type=float, default=1e9, help="stop starting new shapes after this")
    ap.add_argument("--extra-gen", default="", help="more generated dirs (other CTA sizes): tag=dir,...")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--no-other-forms", dest="other_forms", action="store_false",
                    help="skip the forms the launchers do not run (staged_smem, cluster_regs, cluster_full)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    t_start = time.time()

    libs = build_libs(args.gen, "/tmp")
    extra = {}  # tag -> libs of another generated dir (e.g. another CTA size)
    for item in filter(None, args.extra_gen.split(",")):
        tag, d = item.split("=", 1)
        os.makedirs(f"/tmp/{tag}", exist_ok=True)
        extra[tag] = build_libs(d, f"/tmp/{tag}")
    commit = gen_commit(args.gen)
    ceiling = timing.copy_ceiling()
    meta = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(), "commit": commit,
            "device": device_record(), "copy_ceiling_GBps": ceiling, "reps": args.reps,
            "method": "CUDA events, 256 MiB L2 flush between iterations, 5 warm-up, median"}
    print(json.dumps(meta), flush=True)
    results_path = os.path.join(args.out, "results.jsonl")
    with open(results_path, "w") as f:
        f.write(json.dumps({"meta": meta}) + "\n")

    def record(rec):
        with open(results_path, "a") as f:
            f.write(json.dumps(rec) + "\n")

    failures = []
    # N outermost, so a run cut by --budget-s still covers every workload.
    for N in map(int, args.N.split(",")):
        for name in args.workloads.split(","):
            wl = WORKLOADS[name]
            ck = CreditKernels(libs[name], name)
            M = wl.default_M
            if time.time() - t_start > args.budget_s:
                print(f"budget reached, skipping {name} N={N}", flush=True)
                continue
            ins = wl.make_inputs(M, N, seed=N, device="cuda")
            ref = wl.eager(*ins)
            cbytes = wl.compulsory_bytes(M, N)
            row = {"workload": name, "M": M, "N": N, "compulsory_bytes": cbytes}

            def measure(impl, fn, outs=None, poisonable=True):
                try:
                    if outs is not None and poisonable:
                        poison(outs)
                    fn()
                    torch.cuda.synchronize()
                    err = max_rel_err(outs, ref) if outs is not None else None
                    t = timing.bench(fn, reps=args.reps)
                    gbps = cbytes / (t["median_ms"] * 1e-3) / 1e9
                    rec = dict(row, impl=impl, median_ms=t["median_ms"], min_ms=t["min_ms"],
                               all_ms=t["all"], GBps=gbps, frac_copy=gbps / ceiling, max_rel_err=err)
                    if err is not None and not err <= MAX_REL_ERR:
                        rec["check_failed"] = True
                        failures.append(f"{name} N={N} {impl} err={err}")
                except Exception as e:  # record, never abort the sweep
                    rec = dict(row, impl=impl, error=str(e)[:300])
                record(rec)
                msg = rec.get("error") or f"{rec['median_ms']:.4f} ms {rec['frac_copy']*100:5.1f}% copy err={rec['max_rel_err']}"
                if rec.get("check_failed"):
                    msg += "  CHECK FAILED"
                print(f"{name:18s} N={N:7d} {impl:26s} {msg}", flush=True)
            measure.record = record

            if not args.no_peers:
                run_peers(wl, ins, row, measure)
            for variant, P, protocol in ck.configs(N):
                outs = wl.alloc_outputs(M, N)
                fn = ck.launcher(variant, P, protocol, list(ins) + list(outs), M, N)
                measure("credit_" + label(variant, P, protocol), fn, outs)
            if args.other_forms:
                for prefix, variant, P, protocol in ck.other_form_configs(N):
                    outs = wl.alloc_outputs(M, N)
                    fn = ck.launcher(variant, P, protocol, list(ins) + list(outs), M, N)
                    measure(f"{prefix}_" + label(variant, P, protocol), fn, outs)
            # T_slice(P) for the model (credit/runtime/Model.h, occupancySaving): the
            # staged kernel's SMEM form at M*P rows of slice(N, P), where the staged
            # kernel is legal. A timing of an already-checked form on its own inputs
            # (no reference at that shape): recorded as tslice_P<P>, not as a variant.
            if ck.max_n(b"staged", 1, 0) >= N:
                for P in (2, 4, 8, 16):
                    if max(ck.max_n(b"cluster", P, 0), ck.max_n(b"cluster", P, 1)) < N:
                        continue
                    rows, width = M * P, slice_elems(N, P)
                    sins = wl.make_inputs(rows, width, seed=N + P, device="cuda")
                    souts = wl.alloc_outputs(rows, width)
                    fn = ck.launcher("staged_smem", 1, 0, list(sins) + list(souts), rows, width)
                    try:
                        t = timing.bench(fn, reps=args.reps)
                        rec = dict(row, impl=f"tslice_P{P}", slice_rows=rows, slice_width=width,
                                   median_ms=t["median_ms"], min_ms=t["min_ms"], all_ms=t["all"])
                    except Exception as e:  # record, never abort the sweep
                        rec = dict(row, impl=f"tslice_P{P}", error=str(e)[:300])
                    record(rec)
                    print(f"{name:18s} N={N:7d} {'tslice_P%d' % P:26s} "
                          + (rec.get("error") or f"{rec['median_ms']:.4f} ms ({rows} x {width})"), flush=True)
                    del sins, souts
            for tag, tlibs in extra.items():
                if name not in tlibs:
                    continue
                tk = CreditKernels(tlibs[name], name)
                for variant, P, protocol in tk.configs(N):
                    outs = wl.alloc_outputs(M, N)
                    fn = tk.launcher(variant, P, protocol, list(ins) + list(outs), M, N)
                    measure(f"{tag}_" + label(variant, P, protocol), fn, outs)
            del ins, ref
            torch.cuda.empty_cache()
    print(f"done in {time.time() - t_start:.0f} s", flush=True)
    if failures:
        print(f"{len(failures)} kernel(s) failed the check against eager PyTorch "
              f"(relative error over {MAX_REL_ERR}):", *failures, sep="\n  ", flush=True)
        sys.exit(2)


if __name__ == "__main__":
    main()
