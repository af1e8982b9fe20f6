#!/usr/bin/env python3
"""What Eq. 8's W would say with the measured resident clusters instead of floor(S / P).

docs/cost-model.md: the model's W = ceil(M / floor(S / P)) assumes floor(132 / P) = 66, 33, 16, 8 clusters of
one CTA per SM resident at once on the H200; the persistent grids measured 66, 30, 15, 7
(cudaOccupancyMaxActiveClusters, docs/results/persistent-profile/, 12-02 06:12). W scales T_replay, T_DSM and
T_SMEM^w (Model.h, candidateTerms), so this script re-prices every evaluated candidate of an eval_model.py
result with W' = ceil(M / resident(P)):
    dT' = T_saved + T_occ - T_ctrl - (W'/W) (T_replay + T_DSM) - max(0, (W'/W) T_SMEM^w - T_input)
and compares the verdicts (best dT' > 0) with the measured ones. No GPU, no creditc: the terms are in the JSON.

    python3 bench/experiments/model_residency.py docs/results/model-h200.json [--resident 2:66,4:30,8:15,16:7]

Prediction: T_replay, T_DSM and T_SMEM^w are small next to T_saved and T_ctrl wherever the verdict is not a
near tie, so no verdict changes; dT shrinks by at most a few percent of those terms.
"""
import argparse
import json
import math


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model_json")
    ap.add_argument("--resident", default="2:66,4:30,8:15,16:7")
    a = ap.parse_args()
    resident = {int(p): int(c) for p, c in (x.split(":") for x in a.resident.split(","))}
    with open(a.model_json) as f:
        d = json.load(f)
    right_old = right_new = total = 0
    changed = []
    choice = []
    max_shift = (0.0, None)
    for pair in d["pairs"]:
        pred = pair.get("prediction")
        if not pred or "candidates" not in pred:
            continue
        t_input = pred["T_input_ms"]
        best_old = best_new = -math.inf
        arg_old = arg_new = None
        for c in pred["candidates"]:
            if not c.get("evaluated") or c["P"] not in resident:
                continue
            M = pred["M"]
            w_old = c["W"]
            w_new = -(-M // resident[c["P"]])
            s = w_new / w_old
            dep_old = max(0.0, c["T_SMEM_w_ms"] - t_input)
            dep_new = max(0.0, s * c["T_SMEM_w_ms"] - t_input)
            dt_new = (c["delta_T_ms"] - (s - 1.0) * (c["T_replay_ms"] + c["T_DSM_ms"])
                      - (dep_new - dep_old))
            if c["delta_T_ms"] > best_old:
                best_old, arg_old = c["delta_T_ms"], (c["protocol"], c["P"])
            if dt_new > best_new:
                best_new, arg_new = dt_new, (c["protocol"], c["P"])
            if c["delta_T_ms"] != 0 and abs(dt_new - c["delta_T_ms"]) > max_shift[0]:
                max_shift = (abs(dt_new - c["delta_T_ms"]),
                             f'{pair["workload"]} {pair["N"]} {c["protocol"]} P{c["P"]}: '
                             f'{c["delta_T_ms"]:+.4f} -> {dt_new:+.4f} ms')
        if best_old == -math.inf:
            continue
        measured = pair["measured_profitable"]
        v_old, v_new = best_old > 0, best_new > 0
        if not pair.get("extra"):
            total += 1
            right_old += v_old == measured
            right_new += v_new == measured
        if v_old != v_new:
            changed.append(f'{pair["workload"]} {pair["N"]}: {v_old} -> {v_new} (measured {measured})')
        if v_new and arg_old != arg_new:
            choice.append(f'{pair["workload"]} {pair["N"]}: {arg_old} -> {arg_new}')
    print(f"resident clusters: {resident}")
    print(f"4K..64K pairs right: floor(S/P) {right_old}/{total}, measured residency {right_new}/{total}")
    print("verdicts changed:", changed if changed else "none")
    print("predicted best (protocol, P) changed:", choice if choice else "none")
    print("largest dT shift:", f"{max_shift[0]:.4f} ms", max_shift[1])


if __name__ == "__main__":
    main()
