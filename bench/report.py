#!/usr/bin/env python3
"""The benchmark's report, from the results file alone (no torch, no GPU).

    python3 bench/report.py docs/results/bench.json [more.json ...] [--out docs/results] [--name bench]
                            [--dtype fp32|bf16] [--write-merged FILE] [--no-plots]

Reads one or more results files (several are merged: per (workload, dtype, M, N, impl) the last
file's record wins; --write-merged writes that union, e.g. back over the file of record), then
writes <out>/<name>.md (tables) and, where matplotlib is installed, <name>-speedup.png (creditc_auto
over the strongest peer against N) and <name>-copy.png (% of copy bandwidth against N), and prints
the headline figures: the geometric-mean speedup of creditc_auto at N = 65536 over the six paper
workloads (--dtype bf16: over the five bf16 workloads), every shape's speedup, % of copy at
N >= 16384, and the goals' misses. One dtype's records are reported at a time (default fp32).

Definitions (docs/performance.md):
  strongest peer  per shape, the fastest checked record of torch_compile_default,
                  torch_compile_max_autotune, triton_autotuned (fp32 only) and eager
  speedup         strongest peer's median / creditc_auto's median (> 1: creditc is faster)
  % of copy       frac_copy: a device-to-device copy of the shape's compulsory bytes, timed in the
                  same process, over the implementation's time
"""
import argparse
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from benchlib import records as R  # noqa: E402
from benchlib import shapes as S  # noqa: E402

# The goals the report checks; each is (name, description, predicate on a shape summary that is
# True for a MISS). A shape without the figures a goal needs is reported as missing, not as a miss.
WIN_FROM_N = 65536
PARITY = 0.97
COPY_FROM_N = 16384
COPY_GOAL = 0.90
DISPATCH = 0.97

GOALS = (
    ("win", f"creditc_auto at least as fast as the strongest peer at N >= {WIN_FROM_N}",
     lambda s: s["N"] >= WIN_FROM_N and s["speedup"] is not None and s["speedup"] < 1.0),
    ("parity", f"creditc_auto at least {PARITY:.2f}x the strongest peer at N < {WIN_FROM_N}",
     lambda s: s["N"] < WIN_FROM_N and s["speedup"] is not None and s["speedup"] < PARITY),
    ("copy", f"creditc_auto at {COPY_GOAL:.0%} of copy bandwidth or more at N >= {COPY_FROM_N}",
     lambda s: s["N"] >= COPY_FROM_N and s["auto_frac_copy"] is not None and s["auto_frac_copy"] < COPY_GOAL),
    ("dispatch", f"creditc_auto within {1 - DISPATCH:.0%} of creditc_fastest (fastest / auto >= {DISPATCH:.2f})",
     lambda s: s["auto_vs_fastest"] is not None and s["auto_vs_fastest"] < DISPATCH),
)

# What the headline's geometric mean is taken over, per dtype (the set's name in the text).
HEADLINE_LABEL = {"fp32": "six paper workloads", "bf16": "five bf16 workloads"}
# The plots' panels per dtype: (title, workloads).
PLOT_GROUPS = {"fp32": (("paper workloads", S.PAPER),
                        ("general workloads (not among the calibrated kernels)", S.GENERAL)),
               "bf16": (("bf16 workloads (not among the calibrated kernels)", S.BF16),)}

PLAN_VARIANTS = {0: "reread", 1: "staged", 2: "cluster"}
PROTOCOLS = {0: "sync", 1: "mbarrier"}


def geomean(xs):
    xs = [x for x in xs if x]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def plan_label(plan):
    """'cluster mbarrier P=8 (model)', 'staged (fallback)', ... from a creditc_auto record's plan."""
    if not plan:
        return "-"
    v = plan.get("variant")
    v = PLAN_VARIANTS.get(v, v)
    text = str(v)
    if v == "cluster":
        proto = plan.get("protocol")
        text += f" {PROTOCOLS.get(proto, proto)} P={plan.get('P')}"
    src = plan.get("source")
    if src is not None:
        text += f" ({src})"
    return text


def summarize(doc, dtype=None):
    """One summary per (workload, dtype, M, N) that has any record, in workload and N order."""
    groups = {}
    for rec in doc["records"]:
        if dtype and rec["dtype"] != dtype:
            continue
        groups.setdefault((rec["workload"], rec["dtype"], rec["M"], rec["N"]), {})[rec["impl"]] = rec
    out = []
    for (w, dt, M, N), by in groups.items():
        auto = by.get(R.CREDITC_AUTO)
        fastest = by.get(R.CREDITC_FASTEST)
        peers = {i: by[i] for i in R.PEERS if i in by and R.is_timed(by[i])}
        failed = {i: (r.get("error") or f"check failed (max_rel_err {r.get('max_rel_err')})")
                  for i, r in by.items() if not R.is_timed(r)}
        best = min(peers.values(), key=lambda r: r["median_ms"]) if peers else None
        auto_ok = auto is not None and R.is_timed(auto)
        fastest_ok = fastest is not None and R.is_timed(fastest)
        out.append({
            "workload": w, "dtype": dt, "M": M, "N": N, "paper": w in S.PAPER,
            "headline_set": w in S.HEADLINE_SET.get(dt, ()),
            "auto_ms": auto["median_ms"] if auto_ok else None,
            "auto_frac_copy": auto.get("frac_copy") if auto_ok else None,
            "auto_plan": plan_label(auto.get("plan")) if auto else None,
            "first_use_ms": auto.get("first_use_ms") if auto else None,
            "fastest_ms": fastest["median_ms"] if fastest_ok else None,
            "fastest_variant": fastest.get("variant") if fastest else None,
            "peers_ms": {i: r["median_ms"] for i, r in peers.items()},
            "peers_frac_copy": {i: r.get("frac_copy") for i, r in peers.items()},
            "peer_best": best["impl"] if best else None,
            "peer_best_ms": best["median_ms"] if best else None,
            "peer_best_frac_copy": best.get("frac_copy") if best else None,
            "speedup": best["median_ms"] / auto["median_ms"] if best and auto_ok else None,
            "fastest_speedup": best["median_ms"] / fastest["median_ms"] if best and fastest_ok else None,
            "auto_vs_fastest": fastest["median_ms"] / auto["median_ms"] if fastest_ok and auto_ok else None,
            "failed": failed,
            "missing": [i for i in R.IMPLS if i not in by],
            "eager_op": by["eager"].get("op") if "eager" in by else None,
            "omits": {i: r["omits"] for i, r in by.items() if r.get("omits")},
        })
    order = {w: i for i, w in enumerate(S.ALL_WORKLOADS)}
    out.sort(key=lambda s: (order.get(s["workload"], len(order)), s["workload"], s["dtype"], s["N"], s["M"]))
    return out


def headline(shapes, dtype="fp32"):
    """The figures the report leads with (a dict; text() prints it). The geometric mean is over
    the dtype's headline set (fp32: the six paper workloads; bf16: the five bf16 workloads)."""
    hs = S.HEADLINE_SET[dtype]
    at = [s for s in shapes if s["N"] == S.HEADLINE_N and s["workload"] in hs and s["dtype"] == dtype]
    ratios = [s["speedup"] for s in at if s["speedup"]]
    have = {s["workload"] for s in at if s["speedup"]}
    copy_shapes = [s for s in shapes if s["N"] >= COPY_FROM_N and s["auto_frac_copy"] is not None]
    misses = {name: [s for s in shapes if pred(s)] for name, _, pred in GOALS}
    return {
        "dtype": dtype,
        "geomean_N": S.HEADLINE_N,
        "geomean_over": HEADLINE_LABEL[dtype],
        "geomean_set": len(hs),
        "geomean_speedup": geomean(ratios) if len(have) == len(hs) else None,
        "geomean_partial": geomean(ratios),
        "geomean_missing": [w for w in hs if w not in have],
        "copy_at_goal": sum(1 for s in copy_shapes if s["auto_frac_copy"] >= COPY_GOAL),
        "copy_shapes": len(copy_shapes),
        "misses": misses,
        "failed": [(s, i, why) for s in shapes for i, why in sorted(s["failed"].items())],
        "incomplete": [s for s in shapes if s["speedup"] is None],
    }


def _ns(shapes):
    return sorted({s["N"] for s in shapes})


def _matrix(shapes, field, fmt, label):
    """Rows: workload (and dtype, M when they vary); columns: N."""
    ns = _ns(shapes)
    rows = {}
    for s in shapes:
        rows.setdefault((s["workload"], s["dtype"]), {})[s["N"]] = s
    lines = [f"| {label} | " + " | ".join(str(n) for n in ns) + " |",
             "|---|" + "---:|" * len(ns)]
    for (w, dt), by in rows.items():
        cells = []
        for n in ns:
            v = by[n][field] if n in by else None
            cells.append(fmt(v) if v is not None else "-")
        name = _row_name(w, dt)
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def _row_name(w, dt):
    """The workload, with its dtype where the name does not say it."""
    return w if dt == "fp32" or w.endswith("_" + dt) else f"{w} ({dt})"


def _ms(v):
    return f"{v:.4f}" if v is not None else "-"


def _pct(v):
    return f"{100 * v:.1f}" if v is not None else "-"


def runs_used(doc, shapes):
    used = {r.get("run") for r in doc["records"]}
    return {k: v for k, v in doc["runs"].items() if k in used}


def describe_run(rid, meta):
    dev = meta.get("device", {})
    parts = [f"run `{rid}`: {meta.get('date', '?')}", f"{dev.get('name', '?')} ({dev.get('sms', '?')} SMs)",
             f"driver {meta.get('driver', '?')}", f"CUDA {meta.get('cuda', '?')}",
             f"torch {meta.get('torch', '?')}", f"triton {meta.get('triton', '?')}",
             f"generated files from `{meta.get('commit', '?')}`"]
    if meta.get("copy_GBps"):
        parts.append(f"1 GiB copy {meta['copy_GBps']:.0f} GB/s")
    return ", ".join(parts)


def text(head, shapes):
    """The headline as printed to the terminal."""
    out = []
    g = head["geomean_speedup"]
    if g is not None:
        out.append(f"geomean speedup of creditc_auto over the strongest peer at N = {head['geomean_N']}, "
                   f"{head['geomean_over']}: {g:.3f}x")
    else:
        part = head["geomean_partial"]
        out.append(f"geomean speedup at N = {head['geomean_N']}: incomplete, missing "
                   f"{', '.join(head['geomean_missing'])}"
                   + (f" (over the {head['geomean_set'] - len(head['geomean_missing'])} measured: {part:.3f}x)"
                      if part else ""))
    out.append("")
    out.append("speedup (strongest peer / creditc_auto) per shape:")
    ns = _ns(shapes)
    out.append(f"  {'workload':<20}" + "".join(f"{n:>9}" for n in ns))
    rows = {}
    for s in shapes:
        rows.setdefault((s["workload"], s["dtype"]), {})[s["N"]] = s
    for (w, dt), by in rows.items():
        cells = "".join(f"{by[n]['speedup']:>8.3f}x" if n in by and by[n]["speedup"] else f"{'-':>9}" for n in ns)
        out.append(f"  {_row_name(w, dt):<20}" + cells)
    out.append("")
    out.append(f"% of copy bandwidth (creditc_auto) at N >= {COPY_FROM_N}: {head['copy_at_goal']} of "
               f"{head['copy_shapes']} shapes at >= {COPY_GOAL:.0%}")
    for (w, dt), by in rows.items():
        cells = "  ".join(f"{n}: {100 * by[n]['auto_frac_copy']:.1f}%" for n in ns
                          if n >= COPY_FROM_N and n in by and by[n]["auto_frac_copy"] is not None)
        if cells:
            out.append(f"  {w:<20}{cells}")
    out.append("")
    out.append("goals' misses:")
    for name, desc, _ in GOALS:
        miss = head["misses"][name]
        if not miss:
            out.append(f"  {name}: none ({desc})")
            continue
        out.append(f"  {name}: {len(miss)} ({desc})")
        for s in miss:
            out.append("    " + _miss_text(name, s))
    if head["failed"]:
        out.append("")
        out.append("failed checks and errors (excluded, never timed):")
        for s, impl, why in head["failed"]:
            out.append(f"  {s['workload']} N={s['N']} {impl}: {why}")
    if head["incomplete"]:
        out.append("")
        out.append("shapes without a speedup (creditc_auto or every peer missing): "
                   + ", ".join(f"{s['workload']} {s['N']}" for s in head["incomplete"]))
    return "\n".join(out)


def _miss_text(goal, s):
    base = f"{s['workload']} N={s['N']}"
    if goal in ("win", "parity"):
        return f"{base}: {s['speedup']:.3f}x against {s['peer_best']} (plan {s['auto_plan']})"
    if goal == "copy":
        return f"{base}: {100 * s['auto_frac_copy']:.1f}% of copy (plan {s['auto_plan']})"
    return (f"{base}: creditc_fastest ({s['fastest_variant']}) {s['fastest_ms']:.4f} ms, "
            f"creditc_auto ({s['auto_plan']}) {s['auto_ms']:.4f} ms")


def markdown(doc, shapes, head, plot_files=()):
    dtype = head.get("dtype", "fp32")
    lines = ["# creditc benchmark of record" + ("" if dtype == "fp32" else f", {dtype} workloads"), ""]
    for rid, meta in sorted(runs_used(doc, shapes).items()):
        lines.append(f"- {describe_run(rid, meta)}")
    lines += ["",
              "Method (docs/performance.md): M = max(4096, rows making each row input 256 MiB); inputs "
              "as the workloads define them; every output checked against a float64 reference before it "
              "is timed (failed checks are listed, never timed); CUDA events, L2 flushed before every "
              "timed launch, median of 15 after warm-up. `% copy`: a device-to-device copy of the shape's "
              "compulsory bytes in the same process, over the time. Speedup: the strongest peer's time "
              + ("(fastest of torch.compile default and max-autotune, autotuned Triton, eager) over "
                 "creditc_auto's." if dtype == "fp32" else
                 "(fastest of torch.compile default and max-autotune and eager; no autotuned Triton peer for "
                 f"{dtype}) over creditc_auto's. Compulsory bytes: every operand once in its own element size "
                 "(bf16 2 B, f32 4 B, i64 8 B); outputs checked at a relative L2 error of 1e-2 (bf16)."), ""]
    g = head["geomean_speedup"]
    lines.append(f"**Geometric-mean speedup at N = {head['geomean_N']} ({head['geomean_over']}): "
                 + (f"{g:.3f}x**" if g is not None else
                    f"incomplete** (missing {', '.join(head['geomean_missing'])})"))
    lines.append("")
    lines.append(f"**At N >= {COPY_FROM_N}: {head['copy_at_goal']} of {head['copy_shapes']} shapes at "
                 f">= {COPY_GOAL:.0%} of copy bandwidth.**")
    lines += ["", "## Speedup of creditc_auto over the strongest peer", ""]
    lines += _matrix(shapes, "speedup", lambda v: f"{v:.3f}", "workload \\ N")
    lines += ["", "## creditc_auto, % of copy bandwidth", ""]
    lines += _matrix(shapes, "auto_frac_copy", _pct, "workload \\ N")
    lines += ["", "## Every shape", "",
              "Times in ms (median). `plan`: what creditc_auto ran (variant, protocol, P, and whether the "
              "model, autotune or a fallback chose it); `first use`: its first call for the shape (host "
              "wall clock with a sync), excluded from its time.", "",
              "| workload | M | N | creditc_auto | plan | first use | creditc_fastest | variant | eager | "
              "compile default | compile max-autotune | triton autotuned | strongest peer | speedup | "
              "% copy auto | % copy peer |",
              "|---|---:|---:|---:|---|---:|---:|---|---:|---:|---:|---:|---|---:|---:|---:|"]
    for s in shapes:
        p = s["peers_ms"]
        sp = f"{s['speedup']:.3f}" if s["speedup"] else "-"
        fu = f"{s['first_use_ms']:.1f}" if s["first_use_ms"] is not None else "-"
        lines.append(
            f"| {s['workload']} | {s['M']} | {s['N']} | {_ms(s['auto_ms'])} | {s['auto_plan'] or '-'} | "
            f"{fu} | {_ms(s['fastest_ms'])} | {s['fastest_variant'] or '-'} | "
            f"{_ms(p.get('eager'))} | {_ms(p.get('torch_compile_default'))} | "
            f"{_ms(p.get('torch_compile_max_autotune'))} | {_ms(p.get('triton_autotuned'))} | "
            f"{s['peer_best'] or '-'} | {sp} | "
            f"{_pct(s['auto_frac_copy'])} | {_pct(s['peer_best_frac_copy'])} |")
    eager = [(s["workload"], s["eager_op"], s["omits"]) for s in shapes if s["eager_op"] or s["omits"]]
    if any(om for _, _, om in eager) or any(s["dtype"] != "fp32" for s in shapes):
        # Which op the eager peer ran and the outputs a peer does not produce (it does less work).
        lines += ["", "## What the peers ran", ""]
        seen = set()
        for w, op, om in eager:
            text = f"- {w}: eager `{op}`" if op else f"- {w}:"
            text += "".join(f"; {impl} omits {', '.join(o)}" for impl, o in sorted(om.items()))
            if text not in seen:
                seen.add(text)
                lines.append(text)
    lines += ["", "## Goals", ""]
    for name, desc, _ in GOALS:
        miss = head["misses"][name]
        lines.append(f"- **{name}** ({desc}): " + ("met" if not miss else f"{len(miss)} miss(es)"))
        for s in miss:
            lines.append(f"  - {_miss_text(name, s)}")
    if head["failed"]:
        lines += ["", "## Failed checks and errors (excluded, never timed)", ""]
        for s, impl, why in head["failed"]:
            lines.append(f"- {s['workload']} N={s['N']} {impl}: {why}")
    if plot_files:
        lines += [""] + [f"![{os.path.basename(p)}]({os.path.basename(p)})" for p in plot_files]
    return "\n".join(lines) + "\n"


def plots(shapes, outdir, name, dtype="fp32"):
    """The two figures; [] where matplotlib is missing."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    files = []
    groups = PLOT_GROUPS[dtype]

    def series(w, field):
        ss = sorted((s for s in shapes if s["workload"] == w and s[field] is not None), key=lambda s: s["N"])
        return [s["N"] for s in ss], ss

    fig, axes = plt.subplots(1, len(groups), figsize=(6.5 * len(groups), 4.8), sharey=True, squeeze=False)
    axes = axes[0]
    for ax, (title, ws) in zip(axes, groups):
        for w in ws:
            ns, ss = series(w, "speedup")
            if ns:
                ax.plot(ns, [s["speedup"] for s in ss], "o-", label=w)
        ax.axhline(1.0, color="gray", lw=0.8)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("N (row width)")
        ax.set_title(title)
        ax.legend(fontsize=7)
    axes[0].set_ylabel("creditc_auto speedup over the strongest peer")
    fig.tight_layout()
    p = os.path.join(outdir, f"{name}-speedup.png")
    fig.savefig(p, dpi=110)
    plt.close(fig)
    files.append(p)

    ws = [w for w in S.ALL_WORKLOADS if any(s["workload"] == w for s in shapes)]
    cols = 5
    rows = max(1, -(-len(ws) // cols))
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 3.0 * rows), sharex=True, squeeze=False)
    for ax, w in zip(axes.flat, ws):
        ns, ss = series(w, "auto_frac_copy")
        ax.plot(ns, [100 * s["auto_frac_copy"] for s in ss], "o-", lw=2, label="creditc_auto")
        ns, ss = series(w, "peer_best_frac_copy")
        ax.plot(ns, [100 * s["peer_best_frac_copy"] for s in ss], "s--", label="strongest peer")
        ax.axhline(100 * COPY_GOAL, color="gray", lw=0.8, ls=":")
        ax.set_xscale("log", base=2)
        top = max([105] + [100 * s[f] + 5 for s in shapes if s["workload"] == w
                           for f in ("auto_frac_copy", "peer_best_frac_copy") if s[f] is not None])
        ax.set_ylim(0, top)
        ax.set_title(w, fontsize=9)
    for ax in axes.flat[len(ws):]:
        ax.set_visible(False)
    axes[0][0].legend(fontsize=7)
    for ax in axes[:, 0]:
        ax.set_ylabel("% of copy bandwidth")
    fig.tight_layout()
    p = os.path.join(outdir, f"{name}-copy.png")
    fig.savefig(p, dpi=110)
    plt.close(fig)
    files.append(p)
    return files


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="+", help="results files (bench.json); several are merged, the last wins")
    ap.add_argument("--out", help="directory for <name>.md and the plots (default: the first file's)")
    ap.add_argument("--name", default="bench")
    ap.add_argument("--dtype", default="fp32", choices=sorted(S.HEADLINE_SET),
                    help="report this dtype's records (default fp32)")
    ap.add_argument("--write-merged", metavar="FILE", help="write the merged results there")
    ap.add_argument("--no-plots", action="store_true")
    args = ap.parse_args(argv)
    try:
        docs = [R.load(p) for p in args.results]
    except R.RecordsError as e:
        print(f"report: {e}", file=sys.stderr)
        return 1
    doc = R.merge(*docs)
    if args.write_merged:
        R.save(doc, args.write_merged)
    shapes = summarize(doc, args.dtype)
    if not shapes:
        print(f"report: no {args.dtype} records in {', '.join(args.results)}", file=sys.stderr)
        return 1
    out = args.out or os.path.dirname(os.path.abspath(args.results[0]))
    os.makedirs(out, exist_ok=True)
    head = headline(shapes, args.dtype)
    files = [] if args.no_plots else plots(shapes, out, args.name, args.dtype)
    with open(os.path.join(out, f"{args.name}.md"), "w") as f:
        f.write(markdown(doc, shapes, head, files))
    print(text(head, shapes))
    print()
    print(f"wrote {os.path.join(out, args.name + '.md')}" + "".join(f", {p}" for p in files)
          + ("" if files or args.no_plots else " (no matplotlib: no plots)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
