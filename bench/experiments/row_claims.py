#!/usr/bin/env python3
"""Experiment: the persistent form's row claims against its static rows, and the claims' knob.

The launch API hands the persistent kernels a row-claim counter (host::RowClaimLease, Layout.h):
each cluster's first rows are the static ones, row_first + k * clusters, and the last
CREDIT_ROW_CLAIM_SHARE percent of its rows are claimed at run time. This script writes copies of
the generated files (never the compiler's output itself):
  --static:     the launcher runs the static rows' kernels and passes no counter, as before the
                claims (the 13:21 and 13:45 runs patched only the counter away, so their static
                rows ran in the claims' code; docs/results/row-claims/);
  --share S:    the kernels compiled with that knob value (#define before the file);
  --every-p:    claims at every P (credit::useRowClaims true), e.g. P = 16;
  --fake-index: no atomic: the claims' path carries the static rows' indices (what the path
                costs without the atomic).
run_bench.py --extra-gen tag=DIR,... times them in the same process as the unchanged files.
The 16:50 run's --handoff (warp 1 claims a row ahead, as the emitter now does) and the 13:45
run's --early (CREDIT_ROW_CLAIM_EARLY, now gone) are in this file at 748d585 and 742bf59.

Prediction, static against claims (docs/results/persistent-profile/: the median CTA idles 7.6 / 20 /
23 us at the end of layernorm's 140 / 281 / 558 us kernels at M = 2048 while the slowest clusters
finish): claims 0.95-0.97 of the static time at layernorm 32768 and 65536, 0.97-0.99 at 131072,
within 1% at 262144 and for the M = 4096 workloads (their idle ends are 0.1-0.8% of the span).

    python3 bench/experiments/row_claims.py --gen .gpu/gen --out-gen .gpu/static --static
    python3 bench/experiments/row_claims.py --gen .gpu/gen --out-gen .gpu/t50 --share 50
"""
import argparse

from gen_patch import sub_checked, write_patched_copies


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gen", required=True, help="the generated files (scripts/gpu-prepare.sh)")
    ap.add_argument("--out-gen", required=True, help="where the patched copies go")
    ap.add_argument("--static", action="store_true", help="no counter: the static rows")
    ap.add_argument("--share", type=int, help="CREDIT_ROW_CLAIM_SHARE (percent)")
    ap.add_argument("--every-p", action="store_true", help="claims at every P (credit::useRowClaims true)")
    ap.add_argument("--fake-index", action="store_true",
                    help="no atomic: rank 0 sends the static row's index through the claims' path")
    args = ap.parse_args()
    if args.static and (args.every_p or args.fake_index):
        ap.error("--static runs no claims")

    def patch(src, name):
        if "launch_persistent(kernel, claims_kernel, rowClaims," not in src:
            return src  # no persistent form in this file
        if args.static:  # the static rows' kernels, no counter
            src = sub_checked(src, r"const bool rowClaims = persistentMode != 3 && credit::useRowClaims\(P\);",
                              "const bool rowClaims = false;  /* EXPERIMENT: static rows */", f"{name}.cu")
        what = f"{name}.cu"
        if args.every_p:
            src = sub_checked(src, r"const bool rowClaims = persistentMode != 3 && credit::useRowClaims\(P\);",
                              "const bool rowClaims = persistentMode != 3;  /* EXPERIMENT: claims at every P */", what)
        if args.fake_index:  # the row the static schedule gives: claim_from * clusters + v is row_first + kk * clusters
            fake = "static_cast<unsigned>(({} + claim_ahead - claim_from) * clusters + row_first);  /* EXPERIMENT: no atomic */"
            src = sub_checked(src, r"  if \(rank == 0 && tid == kClaimThread && claim_sent_at\(0\)\) claim_pending = atomicAdd\(row_claims, 1u\);",
                              "  if (rank == 0 && tid == kClaimThread && claim_sent_at(0)) claim_pending = " + fake.format("0"), what)
            src = sub_checked(src, r"    if \(claim_sent_at\(k \+ 1\)\) claim_pending = atomicAdd\(row_claims, 1u\);",
                              "    if (claim_sent_at(k + 1)) claim_pending = " + fake.format("k + 1"), what)
        head = ""
        if args.share is not None:
            head += f"#define CREDIT_ROW_CLAIM_SHARE {args.share}  // EXPERIMENT (row_claims.py)\n"
        return head + src

    write_patched_copies(args.gen, args.out_gen, patch)


if __name__ == "__main__":
    main()
