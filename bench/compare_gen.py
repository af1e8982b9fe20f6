#!/usr/bin/env python3
"""Two sets of generated files for the same kernels, timed against each other in one process.

    python3 bench/compare_gen.py --new NEW_DIR --old OLD_DIR [--workloads paper]
                                 [--N 4096,16384,65536,262144] [--out compare.json]

Use it when the code generator changes: NEW_DIR and OLD_DIR each hold <workload>.cu files made
by one creditc (with --profile, for launch_auto). Each set is built into its own shared libraries
(benchlib/creditlib.py: RTLD_LOCAL, -Bsymbolic, -fno-gnu-unique), both loaded side by side; the
tool first checks that the two libraries of a kernel are separate (distinct entry points, no
STB_GNU_UNIQUE symbols, and on the GPU: a plan made by one library's dispatch is not seen by the
other's). Then, for every workload and N (M as the benchmark of record chooses it):
  * launch_auto of each set (first call made apart, then steady state) and every variant both
    sets generate (reread, staged, cluster x {sync, mbarrier} x legal P), each checked against
    the float64 reference on poisoned outputs before it is timed;
  * old and new timed interleaved (old, new, old, new, ... with the L2 flushed before each
    launch; CUDA events; median of --reps), so that drift affects both alike;
  * the new/old ratio of every kernel (< 1: the new file is faster).
Prints one compact line per (workload, N) and a summary (geometric mean, the kernels more than
--tolerance away from 1, plans that differ); --out writes every figure as JSON.
Exit status: 0 done, 1 bad arguments / build / isolation failure, 2 a kernel failed its check.
"""
import argparse
import json
import math
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "peers"))

from benchlib import creditlib as C  # noqa: E402
from benchlib import shapes as S  # noqa: E402

COMPARE_NS = (4096, 16384, 65536, 262144)
COLUMNS = ["auto", "reread", "staged"] + [f"cluster_{p}_P{P}" for p in ("sync", "mbarrier") for P in C.CLUSTER_SIZES]
SHORT = {"auto": "auto", "reread": "rr", "staged": "st",
         **{f"cluster_{p}_P{P}": f"{p[0]}{P}" for p in ("sync", "mbarrier") for P in C.CLUSTER_SIZES}}


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--new", required=True, help="directory of the new generated files")
    ap.add_argument("--old", required=True, help="directory of the old generated files")
    ap.add_argument("--workloads", default="paper",
                    help="all, paper, general, or a comma-separated list (of one dtype's set: fp32 or bf16)")
    ap.add_argument("--N", default=",".join(map(str, COMPARE_NS)))
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--tolerance", type=float, default=0.02, help="flag ratios further than this from 1")
    ap.add_argument("--include-new", action="append", metavar="DIR",
                    help="nvcc include directory for the new files (default: runtime/include)")
    ap.add_argument("--include-old", action="append", default=[], metavar="DIR")
    ap.add_argument("--lib-dir", default="/tmp/creditc-compare-libs")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--build-only", action="store_true", help="build both sets of libraries and stop (no GPU)")
    ap.add_argument("--out", help="write every figure here (JSON)")
    args = ap.parse_args(argv)
    try:
        args.dtype = S.infer_dtype(args.workloads)
        args.workload_list = S.parse_workloads(args.workloads, args.dtype)
        args.n_list = S.parse_ns(args.N, args.dtype)
    except ValueError as e:
        ap.error(str(e))
    for d in (args.new, args.old):
        if not os.path.isdir(d):
            ap.error(f"{d}: not a directory")
    if args.include_new is None:
        inc = os.path.join(ROOT, "runtime", "include")
        args.include_new = [inc] if os.path.isdir(inc) else []
    return args


def build_both(args):
    jobs = max(1, (os.cpu_count() or 4))
    with ThreadPoolExecutor(max_workers=2) as ex:
        fo = ex.submit(C.build_libraries, args.old, args.workload_list, args.lib_dir, "old", args.arch,
                       args.include_old, (), jobs, lambda m: print(m, flush=True))
        fn = ex.submit(C.build_libraries, args.new, args.workload_list, args.lib_dir, "new", args.arch,
                       args.include_new, (), jobs, lambda m: print(m, flush=True))
        return fo.result(), fn.result()


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def plan_text(p):
    if not p:
        return "-"
    if p["variant"] == "cluster":
        return f"{p['protocol'][0]}{p['P']}"
    return {"reread": "rr", "staged": "st"}.get(p["variant"], str(p["variant"]))


class IsolationError(RuntimeError):
    """The two libraries of one kernel share state."""


class Env:
    """What compare_shape needs besides the kernels (torch, timing, checks, device, figures)."""

    def __init__(self, torch, timing, checks, device, reps, warmup, tolerance):
        self.torch, self.timing, self.checks, self.device = torch, timing, checks, device
        self.reps, self.warmup, self.tolerance = reps, warmup, tolerance


def compare_shape(wl, ko, kn, N, M, env):
    """Checks and times launch_auto and every common variant of the old (ko) and new (kn) library
    at (M, N). Returns (row, {"failures", "flagged", "plans_differ"}); IsolationError when a plan
    made by one library's dispatch shows in the other's."""
    torch, checks, name = env.torch, env.checks, wl.name
    ins = wl.make_inputs(M, N, seed=N, device=env.device)
    ref = checks.reference(wl, ins)
    tol = checks.tolerance(ins[0].dtype)
    outs = {s: wl.alloc_outputs(M, N, device=env.device) for s in ("old", "new")}
    ptrs = {s: [t.data_ptr() for t in ins + outs[s]] for s in outs}
    lib = {"old": ko, "new": kn}
    stream = torch.cuda.current_stream().cuda_stream
    row = {"workload": name, "M": M, "N": N, "kernels": {}, "first_use_ms": {}, "plan": {}}
    msgs = {"failures": [], "flagged": [], "plans_differ": []}

    fns = {}
    common = set(ko.configs(N)) & set(kn.configs(N))
    only = set(ko.configs(N)) ^ set(kn.configs(N))
    if only:
        row["only_in_one_set"] = sorted(C.label(*c) for c in only)
    for v, P, proto in sorted(common, key=lambda c: COLUMNS.index(C.label(*c))):
        fns[C.label(v, P, proto)] = {s: lib[s].launcher(v, P, proto, ptrs[s], M, N, stream) for s in lib}
    if ko.has_dispatch and kn.has_dispatch:
        # Load every variant's kernels, then the first launch_auto of each set; a plan made by
        # one library's dispatch must not be visible to the other's.
        for f in fns.values():
            for s in f:
                try:
                    f[s]()
                except C.ApiError:
                    pass
        torch.cuda.synchronize()
        autos = {s: lib[s].auto_launcher(ptrs[s], M, N, stream) for s in lib}
        if ko.last_plan(M, N) is not None or kn.last_plan(M, N) is not None:
            raise IsolationError("a dispatch holds a plan for the shape before its first call")
        for s in ("old", "new"):
            t0 = time.perf_counter()
            try:
                autos[s]()
                torch.cuda.synchronize()
            except C.ApiError as e:
                row["first_use_ms"][s] = None
                row.setdefault("auto_error", {})[s] = str(e)
                continue
            row["first_use_ms"][s] = (time.perf_counter() - t0) * 1e3
            row["plan"][s] = lib[s].last_plan(M, N)
            if s == "old" and kn.last_plan(M, N) is not None:
                raise IsolationError("the old library's plan is visible to the new one: the two dispatch "
                                     "caches are shared")
        fns = {"auto": autos, **fns}
        if plan_text(row["plan"].get("old")) != plan_text(row["plan"].get("new")):
            msgs["plans_differ"].append(f"{name} N={N}: {plan_text(row['plan'].get('old'))} > "
                                        f"{plan_text(row['plan'].get('new'))}")

    for lab, f in fns.items():
        entry, ok = {}, True
        for s in ("old", "new"):
            try:
                checks.poison(outs[s])
                f[s]()
                torch.cuda.synchronize()
            except C.ApiError as e:
                entry[f"{s}_error"] = str(e)
                ok = False
                continue
            err = checks.max_rel_err(outs[s], ref)
            entry[f"{s}_err"] = err
            if not err <= tol:
                msgs["failures"].append(f"{name} N={N} {lab} ({s}): max_rel_err {err:.3g}")
                ok = False
        if ok:
            t_old, t_new = env.timing.bench_interleaved([f["old"], f["new"]], reps=env.reps, warmup=env.warmup)
            entry.update(old_ms=t_old["median_ms"], new_ms=t_new["median_ms"],
                         ratio=t_new["median_ms"] / t_old["median_ms"])
            if abs(entry["ratio"] - 1) > env.tolerance:
                msgs["flagged"].append((name, N, lab, entry["ratio"], t_old["median_ms"], t_new["median_ms"]))
        row["kernels"][lab] = entry
    return row, msgs


def header():
    legend = ", ".join(f"{v}={k}" for k, v in SHORT.items() if k != v)
    return (f"new/old time ratio per kernel (< 1: new faster; x: failed or refused; -: not generated); {legend}\n"
            f"{'workload':<19} {'N':>7}  {'plan old>new':<12}" + "".join(f"{SHORT[c]:>7}" for c in COLUMNS)
            + "  worst")


def table_line(row):
    cells = []
    for c in COLUMNS:
        e = row["kernels"].get(c)
        cells.append(f"{e['ratio']:7.3f}" if e and "ratio" in e else f"{'x' if e is not None else '-':>7}")
    ratios = [e["ratio"] for e in row["kernels"].values() if "ratio" in e]
    worst = max(ratios, key=lambda r: abs(r - 1)) if ratios else None
    plan = f"{plan_text(row['plan'].get('old'))}>{plan_text(row['plan'].get('new'))}" if row["plan"] else "-"
    return (f"{row['workload']:<19} {row['N']:>7}  {plan:<12}" + "".join(cells)
            + (f"  {worst:.3f}" if worst else ""))


def main(argv=None):
    args = parse_args(argv)
    t_start = time.time()
    try:
        old_paths, new_paths = build_both(args)
    except C.BuildError as e:
        print(f"compare_gen: {e}", file=sys.stderr)
        return 1
    print(f"libraries ready after {time.time() - t_start:.0f} s", flush=True)
    if args.build_only:
        return 0

    import torch
    if not torch.cuda.is_available():
        print("compare_gen: no CUDA device visible to torch", file=sys.stderr)
        return 1
    import timing
    from benchlib import checks
    from workloads import WORKLOADS

    sets = {}
    for name in args.workload_list:
        try:
            ko, kn = C.GeneratedKernel(old_paths[name], name), C.GeneratedKernel(new_paths[name], name)
            for k in (ko, kn):
                C.check_signature(k, WORKLOADS[name].inputs, WORKLOADS[name].outputs)
        except C.ApiError as e:
            print(f"compare_gen: {e}", file=sys.stderr)
            return 1
        problems = C.check_side_by_side(ko, kn)
        if problems:
            print(f"compare_gen: {name}: the two libraries are not separate:\n  " + "\n  ".join(problems),
                  file=sys.stderr)
            return 1
        sets[name] = (ko, kn)

    env = Env(torch, timing, checks, "cuda", args.reps, args.warmup, args.tolerance)
    results, failures, flagged, plans_differ = [], [], [], []
    print(header())
    for name in args.workload_list:
        ko, kn = sets[name]
        for N in args.n_list:
            try:
                row, msgs = compare_shape(WORKLOADS[name], ko, kn, N, S.rows_for(N, args.dtype), env)
            except IsolationError as e:
                print(f"compare_gen: {name} N={N}: {e}", file=sys.stderr)
                return 1
            results.append(row)
            failures += msgs["failures"]
            flagged += msgs["flagged"]
            plans_differ += msgs["plans_differ"]
            print(table_line(row), flush=True)
            torch.cuda.empty_cache()

    all_ratios = [e["ratio"] for r in results for e in r["kernels"].values() if "ratio" in e]
    auto_ratios = [r["kernels"]["auto"]["ratio"] for r in results if "ratio" in r["kernels"].get("auto", {})]
    print()
    g = geomean(all_ratios)
    print(f"{len(all_ratios)} kernels compared in {time.time() - t_start:.0f} s"
          + (f": geomean new/old {g:.4f}" if g else "")
          + (f", launch_auto {geomean(auto_ratios):.4f}" if auto_ratios else ""))
    print(f"{len(flagged)} beyond +-{args.tolerance:.0%}" + (":" if flagged else ""))
    for name, N, lab, ratio, o, n in sorted(flagged, key=lambda x: -abs(x[3] - 1)):
        print(f"  {name} N={N} {lab}: {ratio:.3f} (old {o:.4f} ms, new {n:.4f} ms)")
    if plans_differ:
        print("launch_auto plans that differ (old > new): " + "; ".join(plans_differ))
    if failures:
        print(f"{len(failures)} kernel(s) failed the check against the float64 reference:", *failures, sep="\n  ")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"new": os.path.abspath(args.new), "old": os.path.abspath(args.old), "reps": args.reps,
                       "tolerance": args.tolerance, "results": results}, f, indent=1)
    return 2 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
