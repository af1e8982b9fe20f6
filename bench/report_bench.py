#!/usr/bin/env python3
"""Summarises bench/run_bench.py's results.jsonl: a JSON summary, a markdown table
and (where matplotlib is available) two plots.

    python3 bench/report_bench.py results.jsonl --out docs/results --name bench-h200

Definitions (docs/results/README and the issue):
  best baseline   fastest of torch.compile, Triton, creditc reread, creditc staged
  creditc best    fastest of every creditc variant (reread, staged, cluster x protocol x P)
  cluster best    fastest clustered variant (sync or mbarrier, any legal P)
  speedup         best baseline time / creditc best time (and / cluster best time)
  N*              smallest N at which the cluster best beats the best baseline
"""
import argparse
import json
import math
import os
from collections import defaultdict

BASELINES = ("torch_compile", "triton", "credit_reread", "credit_staged")


def load(path):
    meta, rows = None, []
    with open(path) as f:
        for line in f:
            rec = json.loads(line)
            if "meta" in rec:
                meta = rec["meta"]
            elif "median_ms" in rec and not rec.get("check_failed"):  # wrong results are not timings
                rows.append(rec)
    return meta, rows


def summarise(rows):
    by = defaultdict(dict)
    for r in rows:
        by[(r["workload"], r["N"])][r["impl"]] = r
    shapes = []
    for (w, N), impls in sorted(by.items()):
        base = {k: v for k, v in impls.items() if k in BASELINES}
        ours = {k: v for k, v in impls.items() if k.startswith("credit_")}
        clus = {k: v for k, v in ours.items() if k.startswith("credit_cluster")}
        if not base or not ours:
            continue
        bb = min(base.values(), key=lambda r: r["median_ms"])
        cb = min(ours.values(), key=lambda r: r["median_ms"])
        cl = min(clus.values(), key=lambda r: r["median_ms"]) if clus else None
        shapes.append({
            "workload": w, "N": N, "M": bb["M"],
            "best_baseline": bb["impl"], "best_baseline_ms": bb["median_ms"],
            "credit_best": cb["impl"], "credit_best_ms": cb["median_ms"],
            "credit_best_frac_copy": cb["frac_copy"],
            "cluster_best": cl["impl"] if cl else None,
            "cluster_best_ms": cl["median_ms"] if cl else None,
            "cluster_best_frac_copy": cl["frac_copy"] if cl else None,
            "speedup": bb["median_ms"] / cb["median_ms"],
            "cluster_speedup": bb["median_ms"] / cl["median_ms"] if cl else None,
            "times_ms": {k: v["median_ms"] for k, v in sorted(impls.items())},
            # tslice_P<P> (the model's T_slice, another shape: M*P x slice) has no fraction.
            "frac_copy": {k: v["frac_copy"] for k, v in sorted(impls.items()) if "frac_copy" in v},
        })
    return shapes


def crossovers(shapes):
    out = {}
    for w in sorted({s["workload"] for s in shapes}):
        ss = sorted((s for s in shapes if s["workload"] == w), key=lambda s: s["N"])
        nstar = next((s["N"] for s in ss if s["cluster_speedup"] and s["cluster_speedup"] > 1.0), None)
        out[w] = nstar
    return out


def geomean(xs):
    xs = [x for x in xs if x]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def markdown(meta, shapes, nstar):
    lines = []
    d = meta["device"]
    lines.append(f"# creditc benchmark on {d['nvidia_smi'].split(',')[0]}\n")
    lines.append(f"Date {meta['date']}, commit `{meta['commit']}`, nvidia-smi: `{d['nvidia_smi']}`, "
                 f"torch {d['torch']}, triton {d['triton']}, CUDA {d['cuda']}. {meta['method']}, "
                 f"{meta['reps']} timed runs. Copy ceiling (1 GiB D2D, read+write): "
                 f"{meta['copy_ceiling_GBps']:.0f} GB/s.\n")
    lines.append("Speedup = best baseline / creditc (best baseline: fastest of torch.compile, Triton, "
                 "creditc reread, creditc staged). `% copy` = compulsory bytes / time as a fraction of "
                 "the copy ceiling.\n")
    lines.append("| workload | N | best baseline | ms | creditc best | ms | % copy | speedup | best cluster | ms | cluster speedup |")
    lines.append("|---|---:|---|---:|---|---:|---:|---:|---|---:|---:|")
    for s in shapes:
        cs = f"{s['cluster_speedup']:.3f}" if s["cluster_speedup"] else "-"
        cms = f"{s['cluster_best_ms']:.4f}" if s["cluster_best_ms"] else "-"
        lines.append(f"| {s['workload']} | {s['N']} | {s['best_baseline']} | {s['best_baseline_ms']:.4f} | "
                     f"{s['credit_best']} | {s['credit_best_ms']:.4f} | {100*s['credit_best_frac_copy']:.1f} | "
                     f"{s['speedup']:.3f} | {s['cluster_best'] or '-'} | {cms} | {cs} |")
    lines.append("")
    lines.append("| workload | crossover N* (cluster beats best baseline) |")
    lines.append("|---|---|")
    for w, n in nstar.items():
        lines.append(f"| {w} | {n if n else 'not reached'} |")
    tags = sorted({k.split("_", 1)[0] for s in shapes for k in s["times_ms"]
                   if not k.startswith(("credit_", "torch_", "triton", "tslice_"))})
    if tags:
        lines.append("\nOther generated configurations (best clustered variant, ms):\n")
        lines.append("| workload | N | credit (default) | " + " | ".join(tags) + " |")
        lines.append("|---|---:|---:|" + "---:|" * len(tags))
        for s in shapes:
            def best(prefix):
                ts = [v for k, v in s["times_ms"].items() if k.startswith(prefix + "_cluster")]
                return f"{min(ts):.4f}" if ts else "-"
            lines.append(f"| {s['workload']} | {s['N']} | {best('credit')} | " +
                         " | ".join(best(t) for t in tags) + " |")
    gm = geomean([s["speedup"] for s in shapes if s["N"] == 65536])
    gmc = geomean([s["cluster_speedup"] for s in shapes if s["N"] == 65536])
    if gm:
        lines.append(f"\nGeometric-mean speedup at N = 65536: creditc best {gm:.3f}x, clustered kernel {gmc:.3f}x.")
    return "\n".join(lines) + "\n"


def plots(shapes, out, name):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    files = []
    ws = sorted({s["workload"] for s in shapes})
    fig, axes = plt.subplots(2, 3, figsize=(13, 7), sharex=True)
    for ax, w in zip(axes.flat, ws):
        ss = sorted((s for s in shapes if s["workload"] == w), key=lambda s: s["N"])
        ax.plot([s["N"] for s in ss], [s["cluster_speedup"] or float("nan") for s in ss], "o-", label="cluster / best baseline")
        ax.plot([s["N"] for s in ss], [s["speedup"] for s in ss], "s--", label="creditc best / best baseline")
        ax.axhline(1.0, color="gray", lw=0.8)
        ax.set_xscale("log", base=2)
        ax.set_title(w)
        ax.set_ylabel("speedup")
    axes.flat[0].legend(fontsize=7)
    for ax in axes[-1]:
        ax.set_xlabel("N")
    fig.tight_layout()
    p = os.path.join(out, f"{name}-speedup.png")
    fig.savefig(p, dpi=110)
    files.append(p)
    fig, axes = plt.subplots(2, 3, figsize=(13, 7), sharex=True, sharey=True)
    for ax, w in zip(axes.flat, ws):
        ss = sorted((s for s in shapes if s["workload"] == w), key=lambda s: s["N"])
        impls = sorted({k for s in ss for k in s["frac_copy"]})
        for impl in ("torch_compile", "triton", "credit_reread", "credit_staged"):
            if impl in impls:
                ax.plot([s["N"] for s in ss if impl in s["frac_copy"]],
                        [100 * s["frac_copy"][impl] for s in ss if impl in s["frac_copy"]], ".-", label=impl)
        ax.plot([s["N"] for s in ss], [100 * (s["cluster_best_frac_copy"] or float("nan")) for s in ss],
                "o-", lw=2, label="creditc cluster (best P)")
        ax.set_xscale("log", base=2)
        ax.set_ylim(0, 105)
        ax.set_title(w)
        ax.set_ylabel("% of copy bandwidth")
    axes.flat[0].legend(fontsize=7)
    fig.tight_layout()
    p = os.path.join(out, f"{name}-bandwidth.png")
    fig.savefig(p, dpi=110)
    files.append(p)
    return files


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--out", required=True)
    ap.add_argument("--name", default="bench-h200")
    args = ap.parse_args()
    meta, rows = load(args.results)
    shapes = summarise(rows)
    nstar = crossovers(shapes)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, f"{args.name}.json"), "w") as f:
        json.dump({"meta": meta, "shapes": shapes, "crossover_N": nstar, "measurements": rows}, f, indent=1)
    with open(os.path.join(args.out, f"{args.name}.md"), "w") as f:
        f.write(markdown(meta, shapes, nstar))
    print(markdown(meta, shapes, nstar))
    print(plots(shapes, args.out, args.name))


if __name__ == "__main__":
    main()
