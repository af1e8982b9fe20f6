"""The copy ceiling against the copy's size: a device-to-device torch copy_ of
64 MiB ... 2 GiB, timed exactly as run_bench.py times every kernel (timing.bench:
CUDA events, 256 MiB L2 flush, 5 warm-ups, median of 15), as GB/s of bytes read
+ written and as a fraction of the 1 GiB copy (run_bench.py's ceiling). Shows how
much of a shape's distance from that ceiling its total traffic alone explains
(layernorm's M = 2048 moves 256 MiB at N = 16384).

    python3 bench/experiments/copy_sizes.py --out results.json
"""
import argparse
import datetime
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "peers"))

import torch  # noqa: E402

import timing  # noqa: E402
from run_bench import device_record  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--reps", type=int, default=15)
    args = ap.parse_args()
    sizes = [(64 << 20) << k for k in range(6)]  # 64 MiB .. 2 GiB copied
    rows = []
    for nbytes in sizes:
        n = nbytes // 4
        src = torch.ones(n, dtype=torch.float32, device="cuda")
        dst = torch.empty_like(src)
        t = timing.bench(lambda: dst.copy_(src), reps=args.reps)
        rows.append({"copied_bytes": nbytes, "traffic_bytes": 2 * nbytes, "median_ms": t["median_ms"],
                     "min_ms": t["min_ms"], "all_ms": t["all"], "GBps": timing.gbps(2 * nbytes, t["median_ms"])})
        del src, dst
    ref = next(r["GBps"] for r in rows if r["copied_bytes"] == 1 << 30)
    for r in rows:
        r["frac_of_1GiB_copy"] = r["GBps"] / ref
        print(f"copy {r['copied_bytes'] >> 20:5d} MiB: {r['median_ms']:.4f} ms {r['GBps']:7.1f} GB/s "
              f"{100 * r['frac_of_1GiB_copy']:5.1f}% of the 1 GiB copy", flush=True)
    meta = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(), "device": device_record()}
    with open(args.out, "w") as f:
        json.dump({"meta": meta, "copies": rows}, f, indent=1)


if __name__ == "__main__":
    main()
