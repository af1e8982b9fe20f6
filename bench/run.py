#!/usr/bin/env python3
"""The benchmark of record: creditc's model-driven dispatch against its peers' strongest configurations.

    python3 bench/run.py --gen DIR --results OUT/bench.json [--dtype fp32|bf16]
                         [--workloads all|paper|general|a,b] [--N all|4096,65536] [--impls all|a,b]
                         [--cache-dir DIR] [--budget-s 510] [--resume FILE] [--force] [--dry-run] [--tslice]

DIR holds the generated files (<workload>.cu, made with creditc --profile <device profile>, and
optionally <workload>.h and a file `commit`). --dtype selects the workload set: fp32 (default; the
paper's six and four general workloads) or bf16 (rmsnorm_bf16, layernorm_bf16, softmax_bf16,
cross_entropy_fwd_bf16, cross_entropy_bwd_bf16: their own kernels, bf16 rows, i64 class indices,
f32 per-row results; no triton_autotuned peer); naming bf16 workloads selects it too.
For every workload, N and implementation it:
  * makes the inputs (M = max(4096, rows making each row input 256 MiB)), the float64 reference
    (row chunks) and times a device-to-device copy of the shape's compulsory bytes (every operand
    read or written once in its own element size);
  * runs the implementation once on poisoned outputs and checks them against the reference
    (benchlib/checks.py); a failed check is recorded (check_failed) and never timed;
  * times it: CUDA events, L2 flushed before every timed launch, median of --reps after warm-up;
  * writes the record into --results at once (the whole file rewritten and renamed), so a run
    that is stopped keeps everything it measured; records already there (or in --resume files)
    are skipped unless --force.
Implementations (records' "impl"):
  creditc_auto                credit_<K>_launch_auto_generic; its first call for the shape (host
                              wall clock, device synchronized before and after) is first_use_ms,
                              after every variant's kernels have been loaded; the plan it chose
                              (credit_<K>_last_plan) is recorded
  creditc_fastest             the fastest of reread, staged, cluster x {sync, mbarrier} x legal P
                              (credit_<K>_launch_named), each checked; every variant's time kept
  torch_compile_default       torch.compile(dynamic=False, fullgraph=True)
  torch_compile_max_autotune  mode="max-autotune-no-cudagraphs", coordinate_descent_tuning=True
  triton_autotuned            bench/peers/triton_kernels.py, @triton.autotune over its config space
                              (fp32 only)
  eager                       eager PyTorch, native fused ops where they exist; where several idioms
                              compute the outputs (cross_entropy_bwd_bf16: autograd or the closed
                              form) each is checked and timed and the faster is the record's
--cache-dir keeps torch.compile's and Triton's caches (TORCHINDUCTOR_CACHE_DIR, TRITON_CACHE_DIR),
the Triton autotuning choices and the built libraries, so a second run compiles and tunes nothing.
--dry-run prints what would be measured and the time it should take, without a GPU.
Exit status: 0 done, 1 bad arguments or set-up (the message says which), 2 a creditc kernel failed
its check.
"""
import argparse
import datetime
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "peers"))

from benchlib import records as R  # noqa: E402
from benchlib import shapes as S  # noqa: E402

ORDER = (R.CREDITC_FASTEST, R.CREDITC_AUTO, "eager", "triton_autotuned", "torch_compile_default",
         "torch_compile_max_autotune")

# Wall seconds per (shape, impl) on an H200 (torch 2.11, Triton 3.6), for planning runs
# (docs/performance.md): with empty caches ("cold") and with --cache-dir filled by an earlier run
# ("warm"), rounded up from measured runs. Per-shape set-up (inputs, reference, copy timing) and the
# library builds are listed apart.
ESTIMATE_S = {
    R.CREDITC_FASTEST: (1.0, 1.0),
    R.CREDITC_AUTO: (0.5, 0.5),
    "eager": (0.5, 0.5),
    "triton_autotuned": (4.5, 0.5),
    "torch_compile_default": (1.5, 0.5),
    "torch_compile_max_autotune": (10.0, 1.0),
}
SETUP_S = 1.5
BUILD_S = 20.0

# Peers that have no implementation for a dtype's workloads ("all" leaves them out).
NO_PEER = {"bf16": {"triton_autotuned": "bench/peers/triton_kernels.py has fp32 kernels only"}}


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gen", help="directory of generated <workload>.cu files (needed for the creditc impls)")
    ap.add_argument("--results", default="bench-out/bench.json", help="the results file written (and resumed)")
    ap.add_argument("--resume", action="append", default=[], metavar="FILE",
                    help="merge these results files in first (their records are skipped unless --force)")
    ap.add_argument("--workloads", default="all",
                    help="all (the dtype's set), paper, general (fp32), or a comma-separated list")
    ap.add_argument("--N", default="all", help="all (the dtype's widths), or a comma-separated list of row widths")
    ap.add_argument("--impls", default="all", help="all, or a comma-separated list of " + ", ".join(R.IMPLS))
    ap.add_argument("--dtype", choices=sorted(S.DTYPES),
                    help="the workload set: fp32 (default) or bf16 (default: that of the named workloads)")
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--force", action="store_true", help="measure again what the results file already has")
    ap.add_argument("--cache-dir", help="persistent compile and autotuning caches, and built libraries")
    ap.add_argument("--lib-dir", help="where built libraries are kept (default <cache-dir>/libs, else /tmp)")
    ap.add_argument("--include", action="append", default=[], metavar="DIR",
                    help="nvcc include directory for the generated files (default: runtime/include)")
    ap.add_argument("--nvcc-flag", action="append", default=[], metavar="FLAG")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--build-jobs", type=int, default=os.cpu_count() or 4)
    ap.add_argument("--budget-s", type=float, default=510.0,
                    help="start no work expected to end after this many seconds (default 510)")
    ap.add_argument("--tslice", action="store_true",
                    help="creditc_fastest also records T_slice(P) for the cost model's evaluation")
    ap.add_argument("--commit", help="the commit the generated files come from (default: <gen>/commit)")
    ap.add_argument("--dry-run", action="store_true", help="print the plan and its time estimate; no GPU")
    args = ap.parse_args(argv)
    if args.dtype is not None and args.dtype not in S.SUPPORTED_DTYPES:
        ap.error(f"--dtype {args.dtype}: the benchmark has {', '.join(S.SUPPORTED_DTYPES)} workload sets only")
    try:
        if args.dtype is None:
            args.dtype = S.infer_dtype(args.workloads)
        args.workload_list = S.parse_workloads(args.workloads, args.dtype)
        args.n_list = S.parse_ns(args.N, args.dtype)
        impls = [i for i in R.IMPLS if i not in NO_PEER.get(args.dtype, {})]
        args.impl_list = impls if args.impls == "all" else S.parse_list(args.impls, R.IMPLS, "impl")
    except ValueError as e:
        ap.error(str(e))
    absent = [i for i in args.impl_list if i in NO_PEER.get(args.dtype, {})]
    if absent:
        ap.error("; ".join(f"{i}: {NO_PEER[args.dtype][i]}" for i in absent))
    if args.reps < 1 or args.warmup < 0:
        ap.error("--reps must be >= 1 and --warmup >= 0")
    needs_gen = any(i in (R.CREDITC_AUTO, R.CREDITC_FASTEST) for i in args.impl_list)
    if needs_gen and not args.dry_run:
        if not args.gen:
            ap.error("--gen DIR is needed for creditc_auto and creditc_fastest")
        if not os.path.isdir(args.gen):
            ap.error(f"--gen {args.gen}: not a directory")
    if not args.include:
        default_inc = os.path.join(ROOT, "runtime", "include")
        args.include = [default_inc] if os.path.isdir(default_inc) else []
    args.impl_list = [i for i in ORDER if i in args.impl_list]
    return args


def planned_units(args, doc):
    """[(workload, N, M, impl, already measured)] in run order."""
    units = []
    for w in args.workload_list:
        for N in args.n_list:
            M = S.rows_for(N, args.dtype)
            for impl in args.impl_list:
                done = R.find(doc, w, args.dtype, M, N, impl) is not None
                units.append((w, N, M, impl, done))
    return units


def dry_run(args, doc):
    units = planned_units(args, doc)
    todo = [u for u in units if args.force or not u[4]]
    shapes = sorted({(u[0], u[1]) for u in todo})
    print(f"{len(units)} (shape, impl) units, {len(units) - len(todo)} already measured "
          f"({', '.join([args.results] + args.resume)})"
          + (" (--force: measured again)" if args.force else ""), flush=True)
    for w, N, M, impl, done in units:
        if args.force or not done:
            cold, warm = ESTIMATE_S[impl]
            print(f"  {w:<22} N={N:<7} M={M:<6} {impl:<27} ~{cold:.0f} s cold, ~{warm:.0f} s warm")
    cold = sum(ESTIMATE_S[u[3]][0] for u in todo) + SETUP_S * len(shapes)
    warm = sum(ESTIMATE_S[u[3]][1] for u in todo) + SETUP_S * len(shapes)
    if any(u[3] in (R.CREDITC_AUTO, R.CREDITC_FASTEST) for u in todo):
        cold += BUILD_S
    print(f"estimate: ~{cold:.0f} s with empty caches, ~{warm:.0f} s with a filled --cache-dir "
          f"(budget per run {args.budget_s:.0f} s)")
    return 0


def set_cache_env(cache_dir):
    """Before torch is imported: Inductor and Triton read these at import."""
    if not cache_dir:
        return
    cache_dir = os.path.abspath(cache_dir)
    os.makedirs(cache_dir, exist_ok=True)
    os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", os.path.join(cache_dir, "inductor"))
    os.environ.setdefault("TRITON_CACHE_DIR", os.path.join(cache_dir, "triton"))
    os.environ.setdefault("TORCHINDUCTOR_FX_GRAPH_CACHE", "1")
    os.environ.setdefault("TORCHINDUCTOR_AUTOTUNE_REMOTE_CACHE", "0")


def gen_commit(args):
    if args.commit:
        return args.commit
    path = os.path.join(args.gen or "", "commit")
    if args.gen and os.path.exists(path):
        with open(path) as f:
            return f.read().strip() or "unknown"
    return "unknown"


def run_metadata(args, torch, copy_gbps, dtype):
    props = torch.cuda.get_device_properties(0)
    try:
        driver = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                capture_output=True, text=True).stdout.strip().splitlines()[0]
    except (OSError, IndexError):
        driver = "unknown"
    try:
        import triton
        triton_version = triton.__version__
    except ImportError:
        triton_version = None
    from benchlib import checks
    from benchlib.creditlib import nvcc_version
    nv = [ln for ln in nvcc_version().splitlines() if "release" in ln]
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "device": {"name": props.name, "sms": props.multi_processor_count,
                   "capability": f"{props.major}.{props.minor}",
                   "memory_GiB": round(props.total_memory / 2**30, 1)},
        "driver": driver, "cuda": torch.version.cuda, "nvcc": nv[0].strip() if nv else None,
        "torch": torch.__version__, "triton": triton_version, "python": platform.python_version(),
        "commit": gen_commit(args), "gen": os.path.abspath(args.gen) if args.gen else None,
        "copy_GBps": copy_gbps,
        "method": {"timer": "CUDA events", "l2_flush_bytes": 256 << 20, "warmup": args.warmup,
                   "reps": args.reps, "statistic": "median", "min_row_bytes": S.MIN_ROW_BYTES,
                   "min_rows": S.MIN_ROWS, "max_rel_err": checks.tolerance(dtype),
                   "copy": "device-to-device copy_ of the shape's compulsory bytes (half read, half written)"},
        "cache_dir": os.path.abspath(args.cache_dir) if args.cache_dir else None,
    }


class Shape:
    """Inputs, reference and copy time of one (workload, M, N)."""

    def __init__(self, wl, M, N, dtype, torch, timing, checks):
        self.wl, self.M, self.N, self.dtype = wl, M, N, dtype
        self.bytes = wl.compulsory_bytes(M, N, dtype)
        self.copy_ms = timing.copy_ms(self.bytes)
        self.inputs = wl.make_inputs(M, N, seed=N, device="cuda", dtype=dtype)
        self.ref = checks.reference(wl, self.inputs)
        self.tol = checks.tolerance(dtype)
        torch.cuda.synchronize()


class Runner:
    def __init__(self, args, torch, timing, checks, kernels):
        self.args, self.torch, self.timing, self.checks, self.kernels = args, torch, timing, checks, kernels
        self.creditc_failures = []

    def bench(self, fn):
        return self.timing.bench(fn, reps=self.args.reps, warmup=self.args.warmup)

    def timed_fields(self, sh, t, err):
        return {"median_ms": t["median_ms"], "min_ms": t["min_ms"], "all_ms": t["all"],
                "frac_copy": sh.copy_ms / t["median_ms"], "max_rel_err": err}

    def failed(self, err, tol):
        return not err <= tol

    @staticmethod
    def pointers(k, wl, inputs, outs, M, N):
        """Device pointers in the library's signature order, each tensor's dtype and shape checked
        against its argument (i64 class indices, f32 per-row operands, bf16 rows)."""
        return k.pointers(wl.named(inputs, outs), M, N)

    # -- creditc ---------------------------------------------------------------------------
    def creditc_fastest(self, sh, rec):
        torch, k = self.torch, self.kernels[sh.wl.name]
        from benchlib.creditlib import ApiError, label
        outs = sh.wl.alloc_outputs(sh.M, sh.N, device=sh.inputs[0].device, dtype=sh.dtype)
        ptrs = self.pointers(k, sh.wl, sh.inputs, outs, sh.M, sh.N)
        stream = torch.cuda.current_stream().cuda_stream
        variants, excluded, best = {}, {}, None
        for v, P, proto in k.configs(sh.N):
            lab = label(v, P, proto)
            fn = k.launcher(v, P, proto, ptrs, sh.M, sh.N, stream)
            try:
                self.checks.poison(outs)
                fn()
                torch.cuda.synchronize()
            except ApiError as e:
                excluded[lab] = str(e)
                continue
            err = self.checks.max_rel_err(outs, sh.ref)
            if self.failed(err, sh.tol):
                excluded[lab] = f"check failed (max_rel_err {err:.3g})"
                self.creditc_failures.append(f"{sh.wl.name} N={sh.N} {lab}: max_rel_err {err:.3g}")
                continue
            t = self.bench(fn)
            variants[lab] = t["median_ms"]
            if best is None or t["median_ms"] < best[1]["median_ms"]:
                best = (lab, t, err)
        rec.update(variants=variants, excluded=excluded)
        if best is None:
            rec.update(check_failed=True, error="no variant passed its check or launched: "
                       + "; ".join(f"{k_}: {v_}" for k_, v_ in excluded.items()))
            return
        rec.update(self.timed_fields(sh, best[1], best[2]), variant=best[0])
        if self.args.tslice:
            rec["tslice_ms"] = self.tslice(sh, k, stream)

    def tslice(self, sh, k, stream):
        """T_slice(P): the staged kernel's SMEM form at M*P rows of slice(N, P), for every P a
        cluster is legal at, where the staged kernel is (docs/cost-model.md)."""
        torch = self.torch
        out = {}
        if k.max_legal_n("staged", 1, 0) < sh.N:
            return out
        for P in (2, 4, 8, 16):
            if max(k.max_legal_n("cluster", P, 0), k.max_legal_n("cluster", P, 1)) < sh.N:
                continue
            width = -(-(-(-sh.N // P)) // 4) * 4  # credit::sliceElems: ceil(N / P) rounded up to 4
            rows = sh.M * P
            ins = sh.wl.make_inputs(rows, width, seed=sh.N + P, device="cuda", dtype=sh.dtype)
            outs = sh.wl.alloc_outputs(rows, width, dtype=sh.dtype)
            fn = k.launcher("staged_smem", 1, 0, self.pointers(k, sh.wl, ins, outs, rows, width), rows, width,
                            stream)
            try:
                out[str(P)] = self.bench(fn)["median_ms"]
            except Exception as e:  # recorded, not fatal: T_slice is an extra
                out[str(P)] = f"error: {str(e)[:200]}"
            del ins, outs
            torch.cuda.empty_cache()
        return out

    def creditc_auto(self, sh, rec):
        torch, k = self.torch, self.kernels[sh.wl.name]
        from benchlib.creditlib import ApiError
        outs = sh.wl.alloc_outputs(sh.M, sh.N, device=sh.inputs[0].device, dtype=sh.dtype)
        ptrs = self.pointers(k, sh.wl, sh.inputs, outs, sh.M, sh.N)
        stream = torch.cuda.current_stream().cuda_stream
        if k.last_plan(sh.M, sh.N) is not None:
            rec["error"] = "the dispatch already holds a plan for this shape in this process"
            return
        # Load every variant's kernels first (lazy module loading), so that first_use_ms is the
        # dispatch's own cost: timing T_B (and T_slice where it applies), planning, launching.
        for v, P, proto in k.configs(sh.N):
            try:
                k.launcher(v, P, proto, ptrs, sh.M, sh.N, stream)()
            except ApiError:
                pass
        torch.cuda.synchronize()
        fn = k.auto_launcher(ptrs, sh.M, sh.N, stream)
        self.checks.poison(outs)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        rec["first_use_ms"] = (time.perf_counter() - t0) * 1e3
        rec["plan"] = k.last_plan(sh.M, sh.N)
        err = self.checks.max_rel_err(outs, sh.ref)
        self.checks.poison(outs)
        fn()
        torch.cuda.synchronize()
        err = max(err, self.checks.max_rel_err(outs, sh.ref))
        if self.failed(err, sh.tol):
            rec.update(check_failed=True, max_rel_err=err)
            self.creditc_failures.append(f"{sh.wl.name} N={sh.N} creditc_auto: max_rel_err {err:.3g}")
            return
        rec.update(self.timed_fields(sh, self.bench(fn), err))

    # -- peers -----------------------------------------------------------------------------
    def _returning_peer(self, sh, rec, prepare, call):
        """A peer that returns new tensors: poisoned blocks offered to the allocator, first call
        (prepare: compilation happens there) checked, then timed."""
        torch = self.torch
        self.checks.prepoison(sh.wl.output_specs(sh.M, sh.N, sh.dtype), sh.inputs[0].device)
        t0 = time.perf_counter()
        outs = prepare()
        torch.cuda.synchronize()
        rec["prepare_s"] = time.perf_counter() - t0
        err = self.checks.max_rel_err(outs, sh.ref)
        omits = self.checks.omitted(sh.wl.outputs, outs)
        if omits:
            rec["omits"] = omits  # outputs the peer does not produce: it does less work
        del outs
        if self.failed(err, sh.tol):
            rec.update(check_failed=True, max_rel_err=err)
            return
        rec.update(self.timed_fields(sh, self.bench(call), err))

    def eager(self, sh, rec):
        idioms = sh.wl.eager_idioms()
        if len(idioms) == 1:
            rec["op"] = sh.wl.eager_op
            fn = lambda: sh.wl.eager(*sh.inputs)  # noqa: E731
            self._returning_peer(sh, rec, fn, fn)
            return
        # Several idioms compute the outputs (autograd, a closed form): each is checked and timed,
        # the faster is the record's; `ops` keeps every idiom's median (or why it has none).
        runs = {}
        for op, make in idioms.items():
            sub, made = {}, {}

            def prepare(make=make, made=made):
                made["fn"] = make(*sh.inputs)
                return made["fn"]()
            try:
                self._returning_peer(sh, sub, prepare, lambda made=made: made["fn"]())
            except Exception as e:  # one idiom failing leaves the other
                sub["error"] = f"{type(e).__name__}: {str(e)[:200]}"
            made.clear()
            self.torch.cuda.empty_cache()
            runs[op] = sub
        timed = {op: r for op, r in runs.items() if "median_ms" in r}
        rec["ops"] = {op: r["median_ms"] if op in timed else
                      (r.get("error") or f"check failed (max_rel_err {r.get('max_rel_err')})")
                      for op, r in runs.items()}
        op = min(timed, key=lambda o: timed[o]["median_ms"]) if timed else next(iter(runs))
        rec["op"] = op
        rec.update(runs[op])

    def torch_compile(self, sh, rec):
        from torch_impls import MODES
        peer = sh.wl.compiled(rec["impl"])
        rec["options"] = {k: v for k, v in MODES[rec["impl"]].items() if v}
        self._returning_peer(sh, rec, lambda: peer.prepare(*sh.inputs), lambda: peer(*sh.inputs))

    def triton_autotuned(self, sh, rec):
        torch = self.torch
        import triton_kernels
        outs = sh.wl.alloc_outputs(sh.M, sh.N, device=sh.inputs[0].device, dtype=sh.dtype)
        fn = lambda: sh.wl.triton(*sh.inputs, *outs)  # noqa: E731
        t0 = time.perf_counter()
        fn()  # autotunes, or runs the recorded choice
        torch.cuda.synchronize()
        rec["prepare_s"] = time.perf_counter() - t0
        cfg, source = triton_kernels.last_config(sh.wl.name, sh.M, sh.N)
        rec.update(config=cfg, config_source=source, space=len(triton_kernels.space(sh.N)))
        self.checks.poison(outs)
        fn()
        torch.cuda.synchronize()
        err = self.checks.max_rel_err(outs, sh.ref)
        if self.failed(err, sh.tol):
            rec.update(check_failed=True, max_rel_err=err)
            return
        rec.update(self.timed_fields(sh, self.bench(fn), err))

    def measure(self, sh, impl, rec):
        if impl == R.CREDITC_FASTEST:
            self.creditc_fastest(sh, rec)
        elif impl == R.CREDITC_AUTO:
            self.creditc_auto(sh, rec)
        elif impl == "eager":
            self.eager(sh, rec)
        elif impl == "triton_autotuned":
            self.triton_autotuned(sh, rec)
        else:
            self.torch_compile(sh, rec)


def line(rec):
    head = f"{rec['workload']:<22} N={rec['N']:<7} M={rec['M']:<6} {rec['impl']:<27}"
    if rec.get("error"):
        return f"{head} ERROR {rec['error'][:300]}"
    if rec.get("check_failed"):
        return f"{head} CHECK FAILED (max_rel_err {rec.get('max_rel_err')})"
    text = f"{head} {rec['median_ms']:.4f} ms {100 * rec['frac_copy']:5.1f}% copy err={rec['max_rel_err']:.1e}"
    if rec.get("plan"):
        p = rec["plan"]
        text += f" plan={p['variant']}" + (f"/{p['protocol']}/P{p['P']}" if p["variant"] == "cluster" else "")
        text += f" ({p['source']}) first use {rec['first_use_ms']:.1f} ms"
    if rec.get("variant"):
        text += f" best={rec['variant']}"
    if rec.get("config"):
        c = rec["config"]
        text += (f" {'one-pass' if c['ONE_PASS'] else 'looped'} BLOCK={c['BLOCK']} w={c['num_warps']}"
                 f" s={c['num_stages']} ({rec.get('config_source')})")
    if rec.get("ops"):
        text += f" op={rec['op']}"
    if rec.get("omits"):
        text += f" (omits {', '.join(rec['omits'])})"
    if rec.get("prepare_s") is not None:
        text += f" prepare {rec['prepare_s']:.1f} s"
    return text + f" [{rec['wall_s']:.1f} s]"


def main(argv=None):
    args = parse_args(argv)
    try:
        doc = R.merge(*[R.load(p) for p in args.resume], R.load_or_new(args.results))
    except R.RecordsError as e:
        print(f"run: {e}", file=sys.stderr)
        return 1
    if args.dry_run:
        return dry_run(args, doc)
    t_start = time.time()
    set_cache_env(args.cache_dir)
    import torch
    if not torch.cuda.is_available():
        print("run: no CUDA device visible to torch", file=sys.stderr)
        return 1
    import timing
    from benchlib import checks
    from benchlib import creditlib as C
    from workloads import DTYPES, WORKLOADS
    dtype = DTYPES[args.dtype]

    units = [u for u in planned_units(args, doc) if args.force or not u[4]]
    if not units:
        print(f"nothing to measure: {args.results} has every requested record (--force measures again)")
        return 0
    kernels = {}
    needed = sorted({u[0] for u in units if u[3] in (R.CREDITC_AUTO, R.CREDITC_FASTEST)})
    if needed:
        lib_dir = args.lib_dir or (os.path.join(args.cache_dir, "libs") if args.cache_dir else "/tmp/creditc-bench-libs")
        try:
            paths = C.build_libraries(args.gen, needed, lib_dir, "gen", args.arch, args.include, args.nvcc_flag,
                                      args.build_jobs, log=lambda m: print(m, flush=True))
            for name in needed:
                k = C.GeneratedKernel(paths[name], name)
                wl = WORKLOADS[name]
                C.check_signature(k, wl.inputs, wl.outputs)
                header = os.path.join(args.gen, f"{name}.h")
                if os.path.exists(header):
                    C.check_header_plan(header)
                kernels[name] = k
        except (C.BuildError, C.ApiError) as e:
            print(f"run: {e}", file=sys.stderr)
            return 1
        if R.CREDITC_AUTO in args.impl_list:
            missing = [n for n, k in kernels.items() if not k.has_dispatch]
            if missing:
                print(f"run: {', '.join(missing)}: no launch_auto in the generated file (generate it with "
                      "creditc --profile <device profile>)", file=sys.stderr)
                return 1
        print(f"libraries ready after {time.time() - t_start:.0f} s", flush=True)
    if "triton_autotuned" in args.impl_list:
        import triton_kernels
        if args.cache_dir:
            triton_kernels.set_tune_cache(os.path.join(os.path.abspath(args.cache_dir), "triton-autotune.json"))

    run_id = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    doc["runs"][run_id] = run_metadata(args, torch, timing.copy_GBps(), dtype)
    R.save(doc, args.results)
    meta = doc["runs"][run_id]
    print(f"run {run_id}: {meta['device']['name']}, driver {meta['driver']}, torch {meta['torch']}, "
          f"triton {meta['triton']}, 1 GiB copy {meta['copy_GBps']:.0f} GB/s, generated files {meta['commit']}",
          flush=True)

    runner = Runner(args, torch, timing, checks, kernels)
    skipped = []
    by_shape = {}
    for u in units:
        by_shape.setdefault((u[0], u[1], u[2]), []).append(u[3])
    for (w, N, M), impls in by_shape.items():
        elapsed = time.time() - t_start
        if elapsed + SETUP_S + ESTIMATE_S[impls[0]][1] > args.budget_s:
            skipped += [(w, N, i) for i in impls]
            continue
        try:
            sh = Shape(WORKLOADS[w], M, N, dtype, torch, timing, checks)
        except torch.cuda.OutOfMemoryError as e:
            for impl in impls:
                rec = {"workload": w, "dtype": args.dtype, "M": M, "N": N, "impl": impl, "run": run_id,
                       "error": f"out of memory preparing the shape: {str(e)[:200]}", "wall_s": 0.0}
                R.upsert(doc, rec)
                print(line(rec), flush=True)
            R.save(doc, args.results)
            torch.cuda.empty_cache()
            continue
        for impl in impls:
            if time.time() - t_start + ESTIMATE_S[impl][1] > args.budget_s:
                skipped.append((w, N, impl))
                continue
            rec = {"workload": w, "dtype": args.dtype, "M": M, "N": N, "impl": impl, "run": run_id,
                   "bytes": sh.bytes, "copy_ms": sh.copy_ms}
            t0 = time.time()
            try:
                runner.measure(sh, impl, rec)
            except Exception as e:  # recorded, never fatal: the next implementation still runs
                rec["error"] = f"{type(e).__name__}: {str(e)[:300]}"
                for f in ("median_ms", "min_ms", "all_ms", "frac_copy"):
                    rec.pop(f, None)
            rec["wall_s"] = time.time() - t0
            R.upsert(doc, rec)
            R.save(doc, args.results)
            print(line(rec), flush=True)
            torch.cuda.empty_cache()
        del sh
        torch.cuda.empty_cache()
    print(f"done in {time.time() - t_start:.0f} s; results in {args.results}", flush=True)
    if skipped:
        print(f"{len(skipped)} unit(s) left for a later run (the budget of {args.budget_s:.0f} s): "
              + ", ".join(f"{w} {N} {i}" for w, N, i in skipped[:12]) + (" ..." if len(skipped) > 12 else ""))
        print("run the same command again: what is measured is skipped")
    if runner.creditc_failures:
        print(f"{len(runner.creditc_failures)} creditc kernel(s) failed the check against the float64 reference:",
              *runner.creditc_failures, sep="\n  ")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
