#!/usr/bin/env python3
"""Predicted against measured profitability of the clustered kernel (the paper's
Table V and Fig. 4, docs/cost-model.md).

    python3 bench/run.py --gen DIR --impls creditc_fastest --tslice --results bench-model.json
    python3 bench/eval_model.py --profile h200-profile.json --results bench-model.json \
        [--creditc build/bin/creditc] [--out docs/results] [--name model-h200]

--results: a results file of bench/run.py (docs/results/bench.json or one made for the model); its
creditc_fastest records carry every variant's time and, with --tslice, T_slice(P). For every
(workload, N) of the six paper workloads with timings:
  * T_B: the matched non-clustered CUDA kernel -- staged where it was measured
    (Eq. 3 allows P = 1), else reread (the paper's "selected non-DSMEM path");
  * measured: profitable iff the best clustered variant (any protocol, any P)
    is faster than T_B;
  * predicted: `creditc predict <workload>.credit --profile ... --M --N --tB T_B
    --report=json`, profitable iff its verdict is.
The 30 pairs are N in 4K..64K; 128K and 256K are extra rows (reported apart).
N*: the smallest tested N that is profitable (measured) / predicted profitable.
Writes <out>/<name>.json (every pair with all model terms) and <name>.md, and
<name>.png (predicted dT against measured T_B - T_cluster) when matplotlib exists;
`eval_model.py --replot <name>.json <name>.png` redraws it elsewhere (no creditc needed).
No model coefficient is fitted here: the profile and T_B are the only inputs.
"""
import argparse
import collections
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WORKLOADS = ["layernorm", "wvar_bwd", "pearson_bwd", "softmax_logits_bwd", "lars", "quant_int8",
             "softmax", "log_softmax", "rmsnorm", "cross_entropy_bwd"]  # the six of the paper, four general
PAIR_NS = [4096, 8192, 16384, 32768, 65536]
EXTRA_NS = [131072, 262144]


def load_measurements(path):
    """bench/run.py's results file as a list of {workload, N, M, impl, median_ms}: every variant of a
    creditc_fastest record as impl credit_<variant>, its T_slice(P) as tslice_P<P>."""
    with open(path) as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or doc.get("schema") != "creditc-bench":
        raise SystemExit(f"{path}: not a results file of bench/run.py (schema creditc-bench)")
    recs = []
    for r in doc["records"]:
        if r.get("impl") != "creditc_fastest" or r.get("dtype", "fp32") != "fp32":
            continue
        base = {"workload": r["workload"], "N": r["N"], "M": r["M"]}
        for lab, ms in r.get("variants", {}).items():
            recs.append(dict(base, impl="credit_" + lab, median_ms=ms))
        for P, ms in r.get("tslice_ms", {}).items():
            if isinstance(ms, (int, float)):
                recs.append(dict(base, impl=f"tslice_P{P}", median_ms=ms))
    return recs


def table(recs):
    """(workload, N) -> {"M": M, impl: median_ms}; credit_* impls only."""
    t = collections.defaultdict(dict)
    for r in recs:
        if "median_ms" not in r or r.get("check_failed"):
            continue
        key = (r["workload"], r["N"])
        if r.get("impl", "").startswith("tslice_P"):  # T_slice(P), run.py --tslice
            t[key].setdefault("tslice", {})[int(r["impl"][len("tslice_P"):])] = r["median_ms"]
            continue
        if not r.get("impl", "").startswith("credit_"):
            continue
        t[key]["M"] = r["M"]
        t[key][r["impl"][len("credit_"):]] = r["median_ms"]
    return t


def predict(creditc, workload, profile, M, N, tB, baseline, tslice=None):
    cmd = [creditc, "predict", os.path.join(ROOT, "dsl_examples", workload + ".credit"), "--profile", profile,
           "--M", str(M), "--N", str(N), "--tB", repr(tB), "--baseline", baseline, "--report=json"]
    if tslice:
        cmd.append("--t-slice=" + ",".join(f"{P}:{ms!r}" for P, ms in sorted(tslice.items())))
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return {"error": p.stderr.strip()[:500], "exit": p.returncode}
    return json.loads(p.stdout)


def crossover(flags):
    """Smallest N with flag True, from a {N: bool} dict over the tested widths."""
    for n in sorted(flags):
        if flags[n]:
            return n
    return None


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--replot":
        # --replot <name>.json <out.png>: the plot alone, from a result of this script
        # (for a machine with matplotlib but no creditc).
        with open(sys.argv[2]) as f:
            return 0 if plot(json.load(f)["pairs"], sys.argv[3]) else 1
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--profile", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--creditc", default=os.environ.get("CREDITC", os.path.join(ROOT, "build", "bin", "creditc")))
    ap.add_argument("--out", default=".")
    ap.add_argument("--name", default="model-h200")
    args = ap.parse_args()

    t = table(load_measurements(args.results))
    pairs = []
    for w in WORKLOADS:
        for N in PAIR_NS + EXTRA_NS:
            x = t.get((w, N))
            if not x:
                continue
            baseline = "staged" if "staged" in x else "reread"
            if baseline not in x:
                continue
            clustered = {k: v for k, v in x.items() if k.startswith("cluster_") and not isinstance(v, dict)}
            if not clustered:
                continue
            tB = x[baseline]
            best = min(clustered, key=clustered.get)
            pred = predict(args.creditc, w, args.profile, x["M"], N, tB, baseline)
            # As the dispatch does: T_slice only where the staged kernel runs one
            # CTA per SM (the profile's SMEM sizes say where).
            used_tslice = None
            if "error" not in pred and pred.get("staged_one_cta_per_sm") and x.get("tslice"):
                used_tslice = x["tslice"]
                pred = predict(args.creditc, w, args.profile, x["M"], N, tB, baseline, used_tslice)
            row = {"workload": w, "N": N, "M": x["M"], "extra": N in EXTRA_NS, "baseline": baseline,
                   "T_B_ms": tB, "measured_best": best, "measured_best_ms": clustered[best],
                   "measured_ratio": clustered[best] / tB, "measured_profitable": clustered[best] < tB,
                   "measured_delta_T_ms": tB - clustered[best], "times_ms": x, "prediction": pred,
                   "T_slice_ms": used_tslice}
            if "error" in pred:
                row["predicted_profitable"] = None
            else:
                row["predicted_profitable"] = bool(pred["profitable"])
                c = pred.get("chosen")
                row["predicted_delta_T_ms"] = c["delta_T_ms"] if c else None
                row["predicted_choice"] = f"cluster_{c['protocol']}_P{c['P']}" if c else None
                # The model's dT at the measured best (protocol, P), where it evaluated one.
                for cand in pred["candidates"]:
                    if f"cluster_{cand['protocol']}_P{cand['P']}" == best and cand.get("evaluated"):
                        row["predicted_delta_T_at_best_ms"] = cand["delta_T_ms"]
            row["correct"] = row["predicted_profitable"] == row["measured_profitable"]
            pairs.append(row)

    # The paper's reading of Eq. 7/9, recomputed from the same terms: T_saved =
    # M N b_reread / R_B with D_base = the reread schedule's bytes whichever
    # kernel T_B timed (creditc counts no saving against a staged T_B;
    # docs/cost-model.md). Only T_saved, R_B, T_input and T_deposit differ.
    for row in pairs:
        pred = row["prediction"]
        if "error" in pred:
            row["paper_reading_profitable"] = None
            continue
        b = pred["bytes_per_element"]
        M, N, tB = pred["M"], pred["N"], pred["T_B_ms"]
        rate = M * (N * (b["baseline"] + b["fixed_broadcast"]) + pred["fixed_bytes_per_row"]) / tB
        t_saved, t_input = M * N * b["reread"] / rate, M * N * b["keep"] / rate
        dts = [t_saved - c["T_ctrl_ms"] - c["T_replay_ms"] - c["T_DSM_ms"] - max(c["T_SMEM_w_ms"] - t_input, 0.0)
               - c.get("T_lat_ms", 0.0) - c.get("T_refetch_ms", 0.0)
               for c in pred["candidates"] if c.get("evaluated")]
        if row["baseline"] == "reread":  # the two readings agree there
            assert all(abs(x - c["delta_T_ms"]) < 1e-9 for x, c in
                       zip(dts, [c for c in pred["candidates"] if c.get("evaluated")])), row["workload"]
        row["paper_reading_delta_T_ms"] = max(dts) if dts else None
        row["paper_reading_profitable"] = bool(dts) and max(dts) > 0.0

    def acc(rows):
        ok = [r for r in rows if r["predicted_profitable"] is not None]
        return sum(r["correct"] for r in ok), len(ok), len(rows) - len(ok)

    main_rows = [r for r in pairs if not r["extra"]]
    extra_rows = [r for r in pairs if r["extra"]]
    n_ok, n_eval, n_err = acc(main_rows)
    e_ok, e_eval, e_err = acc(extra_rows)

    paper_rows = [r for r in main_rows if r.get("paper_reading_profitable") is not None]
    paper_ok = sum(r["paper_reading_profitable"] == r["measured_profitable"] for r in paper_rows)
    paper_xover = {}
    for w in WORKLOADS:
        rows = [r for r in paper_rows if r["workload"] == w]
        if rows:
            paper_xover[w] = crossover({r["N"]: r["paper_reading_profitable"] for r in rows})

    xover = {}
    for w in WORKLOADS:
        rows = [r for r in main_rows if r["workload"] == w and r["predicted_profitable"] is not None]
        if not rows:
            continue
        m = crossover({r["N"]: r["measured_profitable"] for r in rows})
        p = crossover({r["N"]: r["predicted_profitable"] for r in rows})
        if m and p:
            steps = abs(PAIR_NS.index(m) - PAIR_NS.index(p))
        else:
            steps = None if (m or p) else 0
        xover[w] = {"measured": m, "predicted": p, "factor_of_two_steps": steps}

    with open(os.path.join(args.profile)) as f:
        prof = json.load(f)
    # Paths relative to the output folder (the committed files name their inputs, not this machine).
    summary = {"profile": os.path.relpath(args.profile, args.out), "device": prof.get("device", {}),
               "profile_date": prof.get("date"), "results": os.path.relpath(args.results, args.out),
               "pairs_correct": n_ok, "pairs_evaluated": n_eval, "pairs_without_prediction": n_err,
               "extra_correct": e_ok, "extra_evaluated": e_eval,
               "crossover": xover,
               "crossover_exact": sum(1 for v in xover.values() if v["factor_of_two_steps"] == 0),
               "crossover_within_one": sum(1 for v in xover.values()
                                           if v["factor_of_two_steps"] is not None and v["factor_of_two_steps"] <= 1),
               "paper_reading_pairs_correct": paper_ok, "paper_reading_pairs_evaluated": len(paper_rows),
               "paper_reading_crossover": paper_xover}
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, args.name + ".json"), "w") as f:
        json.dump({"summary": summary, "pairs": pairs}, f, indent=1)

    lines = [f"# Cost model: predicted vs measured profitability ({summary['device'].get('name', '?')})", "",
             f"Profile `{os.path.basename(args.profile)}` ({summary['profile_date']}), measurements "
             f"`{os.path.basename(args.results)}`. Matched baseline: staged where measured (Eq. 3 allows P = 1), "
             "else reread; measured profitable: best clustered variant faster than it.", "",
             f"**{n_ok}/{n_eval} of the N = 4K..64K pairs right** ({100.0 * n_ok / max(n_eval, 1):.1f}%)"
             + (f", {n_err} without a prediction" if n_err else "")
             + f"; extra rows 128K/256K: {e_ok}/{e_eval}. With the paper's reading (a saving of M N b_reread "
             f"/ R_B against a staged T_B too): {paper_ok}/{len(paper_rows)}, N* predicted "
             + ", ".join(f"{w} {v}" for w, v in paper_xover.items()) + ".", "",
             "| workload | N | T_B kernel | T_B ms | best clustered | ms | measured dT ms | predicted dT ms (choice) | "
             "measured | predicted | |", "|---|---:|---|---:|---|---:|---:|---:|---|---|---|"]
    for r in pairs:
        pdt = r.get("predicted_delta_T_ms")
        pred = ("error" if r["predicted_profitable"] is None
                else ("win" if r["predicted_profitable"] else "lose"))
        lines.append(f"| {r['workload']} | {r['N']}{' (extra)' if r['extra'] else ''} | {r['baseline']} | "
                     f"{r['T_B_ms']:.4f} | {r['measured_best']} | {r['measured_best_ms']:.4f} | "
                     f"{r['measured_delta_T_ms']:+.4f} | "
                     + (f"{pdt:+.4f} ({r.get('predicted_choice')})" if pdt is not None else "-")
                     + f" | {'win' if r['measured_profitable'] else 'lose'} | {pred} | "
                     f"{'ok' if r['correct'] else '**wrong**'} |")
    lines += ["", "Crossover N* (smallest tested N in 4K..64K that is profitable):", "",
              "| workload | measured | predicted | factor-of-two steps apart |", "|---|---:|---:|---:|"]
    for w, v in xover.items():
        lines.append(f"| {w} | {v['measured']} | {v['predicted']} | {v['factor_of_two_steps']} |")
    lines += ["", f"Exact for {summary['crossover_exact']} of {len(xover)} workloads, within one factor of two for "
              f"{summary['crossover_within_one']}."]
    errs = [r for r in pairs if r["predicted_profitable"] is None]
    if errs:
        lines += ["", "Pairs without a prediction:", ""] + [
            f"- {r['workload']} N={r['N']}: {r['prediction']['error']}" for r in errs]
    with open(os.path.join(args.out, args.name + ".md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))

    plot(pairs, os.path.join(args.out, args.name + ".png"))
    return 0


def plot(pairs, path):
    """Predicted dT / T_B against measured (T_B - T_cluster) / T_B per pair."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(matplotlib not available: no plot)", file=sys.stderr)
        return False
    fig, ax = plt.subplots(figsize=(6, 5))
    for w in WORKLOADS:
        rs = [r for r in pairs if r["workload"] == w and r.get("predicted_delta_T_ms") is not None]
        ax.scatter([r["measured_delta_T_ms"] / r["T_B_ms"] for r in rs],
                   [r["predicted_delta_T_ms"] / r["T_B_ms"] for r in rs], label=w, s=18)
    ax.axhline(0, color="k", lw=0.6)
    ax.axvline(0, color="k", lw=0.6)
    ax.set_xlabel("measured (T_B - T_cluster) / T_B")
    ax.set_ylabel("predicted dT / T_B")
    ax.set_title("profitability: predicted vs measured (quadrants I and III are right)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"wrote {path}")
    return True


if __name__ == "__main__":
    sys.exit(main())
