#!/usr/bin/env python3
"""Experiment: the persistent form with a ring half as large, so that two CTAs share an SM.

At N = 262144 the clusters of 16 of one CTA per SM use 112 of the H200's 132 SMs (7 resident
clusters). quant_int8's persistent kernel needs 62-63 registers at 512 threads, so two CTAs fit
the register file; a ring of three half-slice units (96 KiB) lets two fit the SMEM too, and more
clusters become resident. This script writes copies of a generated file (never the compiler's
output itself) whose launcher sizes the ring for `--budget` bytes per CTA instead of the opt-in
limit and runs the persistent form wherever it fits (credit::persistentFits, not
credit::usePersistent):
  fit1: the opt-in limit (one CTA per SM), the persistent form wherever it fits;
  two0: half the SM's SMEM less the 1 KiB per-CTA reserve, cluster scheduling policy default;
  two1: the same with the LoadBalancing policy (several CTAs of a cluster may share an SM).
run_bench.py --extra-gen times them against the unchanged file.

Prediction (two0/two1 at 262144): 0.90-0.95 of the time (more SMs, and a second CTA's work
while one waits for its exchange).

    python3 bench/experiments/persistent_two_ctas.py --gen .gpu/gen --out .gpu
    python3 bench/run_bench.py --gen .gpu/gen --workloads quant_int8 \
        --extra-gen fit1=.gpu/fit1,two0=.gpu/two0,two1=.gpu/two1 --N 262144,131072,65536,32768 --no-peers ...
"""
import argparse
import os


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gen", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--workload", default="quant_int8")
    a = ap.parse_args()
    src = open(os.path.join(a.gen, f"{a.workload}.cu")).read()
    start = src.index("inline credit::PersistentRing persistent_ring(")
    old = src[start:src.index("\n}\n", start) + 3]

    def ring_fn(budget_expr):
        return ("inline credit::PersistentRing persistent_ring(long long N, int P, bool whereFits) {\n"
                "  int perSm = 0, optin = 0;\n  device_smem(perSm, optin);\n  (void)whereFits;\n"
                "  constexpr bool halves = !kKeptInputReadLate;\n"
                f"  const long long budget = {budget_expr};  // EXPERIMENT\n"
                "  const bool run = credit::persistentFits(geometry_wide_cta, kThreads, N, P, budget, halves);\n"
                "  return run ? credit::persistentRing(geometry_wide_cta, N, P, budget, halves) : "
                "credit::PersistentRing{0, 1};\n}\n")

    call = "return launch_impl(kernel, geometry_wide_cta, true, false, true, P"
    if src.count(call) != 1:
        raise SystemExit("the generated persistent launch changed")
    for name, budget, load_balance in [("fit1", "optin", False), ("two0", "perSm / 2 - 1024", False),
                                       ("two1", "perSm / 2 - 1024", True)]:
        s = src.replace(old, ring_fn(budget))
        if load_balance:
            s = s.replace(call, "return launch_impl(kernel, geometry_wide_cta, true, true, true, P")
        os.makedirs(os.path.join(a.out, name), exist_ok=True)
        with open(os.path.join(a.out, name, f"{a.workload}.cu"), "w") as f:
            f.write(s)


if __name__ == "__main__":
    main()
