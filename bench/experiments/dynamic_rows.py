#!/usr/bin/env python3
"""Experiment: rows handed out to the persistent clusters at run time instead of statically.

The persistent form gives cluster c the rows c, c + G, c + 2G, ... (G resident clusters).
docs/results/persistent-profile/ measured (per-CTA clocks) that the clusters do not run at one
speed: at layernorm M = 2048 the median CTA idles 7.6 / 20 / 23 us at the end of a 140 / 281 /
558 us kernel (N = 32768 / 65536 / 131072; 5.4 / 7.1 / 4.1%), the last cluster finishing up to
90 us after the first, while the row counts differ by one at most. A dynamic schedule (the
tile schedulers of persistent GEMMs) ends every cluster within about one row of the others.

This script writes copies of the generated files (never the compiler's output itself) in which
  - local rows k < A are static (row_first + k G) and row k >= A (the d = k - A-th claimed one) is claimed by thread
    0 of rank 0 during row k - A with one atomicAdd on a __device__ counter (row A G + value),
    issued just before the first exchange's wait (so that its latency overlaps that wait: the
    thread's next release, an mbarrier arrive or bar.sync, would otherwise wait for the atomic),
    and sent right after that wait to every CTA
    of the cluster by st.async into SMEM slot d % 8, whose mbarrier each CTA arms itself (4 bytes
    expected) at set-up and again when it starts the row of the slot's previous index;
    A = ceil(ring / C) + 1, so that a row's index has been sent a row before the ring's copies
    for it are issued;
  - the row loop runs until a row index reaches M; every CTA then waits for the indices still in
    flight to it (the DSMEM exit rule);
  - the generated launcher zeroes the counter on the launch's stream (cudaMemsetAsync) before the
    persistent launch. One counter per module: launches of one file on two streams at once would
    share it, which is why this is an experiment and not the form.
The copies go to --out-gen; run_bench.py --extra-gen times them against the unchanged files.
--static-claims writes the control: the same slots, sends and waits, but rank 0 sends the static
schedule's rows (row_first + k G) instead of claiming any. --memo: each thread waits for a given row
index once (the 07:01 runs' `dynm`, `dyn0m`); without it, the version timed at 06:26-06:31 (v3).

Prediction: layernorm at M = 2048 gains most of the median idle: about 3-5% at 32768-131072,
nothing at 262144 (0.9% idle); the M = 4096 workloads 0.3-1.5%.

    python3 bench/experiments/dynamic_rows.py --gen .gpu/gen --out-gen .gpu/dyn
"""
import argparse
import os

from gen_patch import insert_before_body, sub_checked

WORKLOADS = ("layernorm", "quant_int8", "softmax_logits_bwd", "pearson_bwd", "wvar_bwd", "lars")


def patch(src, name, static_claims=False, memo=False):
    what = f"{name}.cu"

    def sub(pattern, repl, s):
        return sub_checked(s, pattern, repl, what)

    src = insert_before_body(src, "// EXPERIMENT (bench/experiments/dynamic_rows.py): the persistent form's row counter.\n"
                                  "__device__ unsigned int credit_dyn_counter;\n", what)
    src = sub(r"^(  const long long rows = kPersistent \? .*;)$", (
        r"\1" "\n"
        "  // EXPERIMENT: local rows k < dyn_ahead static, row k >= dyn_ahead claimed by rank 0 during\n"
        "  // row k - dyn_ahead and sent to slot (k - dyn_ahead) % kDynSlots of every CTA of the cluster.\n"
        "  constexpr int kDynSlots = 8;\n"
        "  __shared__ unsigned dyn_rows[kDynSlots];\n"
        "  __shared__ __align__(8) uint64_t dyn_bars[kDynSlots];\n"
        "  const int dyn_copies = static_cast<int>(credit::numKeptArrays(geometry)) * PIECES;\n"
        "  const int dyn_ahead = kPersistent ? (ring + dyn_copies - 1) / dyn_copies + 1 : 0;\n"
        + ("  long long dyn_memo_k = -1, dyn_memo_r = 0;  // this thread's last dynamic lookup\n" if memo else "") +
        "  auto row_of = [&](long long kk) -> long long {  // the cluster's kk-th row, M: none\n"
        "    if (kk < dyn_ahead) {\n"
        "      const long long r = row_first + kk * clusters;\n"
        "      return r < M ? r : M;\n"
        "    }\n"
        + ("    if (kk == dyn_memo_k) return dyn_memo_r;  // no second wait (acquire.cluster) for one row\n"
           if memo else "") +
        "    const long long d = kk - dyn_ahead;  // the d-th claimed row: slot d % kDynSlots, its use d / kDynSlots\n"
        "    const int s = static_cast<int>(d % kDynSlots);\n"
        "    credit_mbar_wait(credit_smem_addr(dyn_bars + s), static_cast<uint32_t>((d / kDynSlots) & 1));\n"
        "    const long long r = static_cast<long long>(dyn_ahead) * clusters +\n"
        "                        *reinterpret_cast<volatile unsigned*>(dyn_rows + s);\n"
        + ("    dyn_memo_k = kk;\n"
           "    dyn_memo_r = r < M ? r : M;\n"
           "    return dyn_memo_r;\n" if memo else
           "    return r < M ? r : M;\n") +
        "  };\n"
        "  (void)row_of;"), src)
    src = sub(r"^(      for \(int stage = 0; stage < \(kPersistent \? 2 : 1\) \* L; \+\+stage\) "
              r"credit_mbar_init\(credit_smem_addr\(bars \+ stage\), 1\);)$",
              r"\1" "\n"
              "      if constexpr (kPersistent) {  // EXPERIMENT: each slot armed for its first index (4 bytes)\n"
              "        for (int s = 0; s < kDynSlots; ++s) credit_mbar_init(credit_smem_addr(dyn_bars + s), 1);\n"
              "        for (int s = 0; s < kDynSlots; ++s) credit_mbar_arrive_expect_tx(credit_smem_addr(dyn_bars + s), 4);\n"
              "      }", src)
    src = sub(r"const long long r = row_first \+ credit::ringRow\(j, ring_copies\) \* clusters;",
              "const long long r = row_of(credit::ringRow(j, ring_copies));", src)
    src = sub(r"if \(credit::ringRow\(j, ring_copies\) >= rows\) break;",
              "if (row_of(credit::ringRow(j, ring_copies)) >= M) break;", src)
    src = sub(r"j < ring && credit::ringRow\(j, ring_copies\) < rows; \+\+j\)",
              "j < ring && row_of(credit::ringRow(j, ring_copies)) < M; ++j)", src)
    src = sub(r"credit::ringRow\(ring_copy \+ ring, ring_copies\) < rows\) \{",
              "row_of(credit::ringRow(ring_copy + ring, ring_copies)) < M) {", src)
    src = sub(r"^  for \(long long k = 0; k < rows; \+\+k\) \{\n    const long long row = row_first \+ k \* clusters;$",

              "  long long k = 0;\n"
              "  for (;; ++k) {\n"
              "    const long long row = kPersistent ? row_of(k) : (k < rows ? row_first + k * clusters : M);\n"
              "    if (row >= M) break;  // the same for every thread of the cluster\n"
              "    if (kPersistent && tid == 0 && k >= dyn_ahead)  // EXPERIMENT: the slot's next use, 4 bytes\n"
              "      credit_mbar_arrive_expect_tx(credit_smem_addr(dyn_bars + (k - dyn_ahead) % kDynSlots), 4);", src)
    src = sub(r"^(      credit_mbar_wait\(credit_smem_addr\(stage_bar\), [^;]*\);  "
              r"// the phase completes once all P \* q_1 \* 4 bytes have landed)$",
              "      // EXPERIMENT: rank 0 claims row k + dyn_ahead now, so that the atomic's latency overlaps\n"
              "      // the wait below (a later release by this thread, an mbarrier arrive or bar.sync, would wait for it).\n"
              "      unsigned dyn_claim = 0;\n"
              + ("      // --static-claims: the static schedule's row, sent through the same slots (the control)\n"
                 "      if (kPersistent && rank == 0 && tid == 0) dyn_claim = static_cast<unsigned>(row_first + k * clusters);\n"
                 if static_claims else
                 "      if (kPersistent && rank == 0 && tid == 0) dyn_claim = atomicAdd(&credit_dyn_counter, 1u);\n") +
              "      (void)dyn_claim;\n"
              r"\1" "\n"
              "      if constexpr (kPersistent) {  // EXPERIMENT: claim row k + dyn_ahead for the cluster\n"
              "        if (rank == 0 && tid == 0) {\n"
              "          const int s = static_cast<int>(k % kDynSlots);  // claimed row d = k\n"
              "          for (int t = 0; t < P; ++t)\n"
              "            credit_st_async_f32(credit_mapa_shared(credit_smem_addr(dyn_rows + s), t), "
              "__uint_as_float(dyn_claim), credit_mapa_shared(credit_smem_addr(dyn_bars + s), t));\n"
              "        }\n"
              "      }", src)
    src = sub(r"^(  // Persistent form: no exit barrier either\.)",
              "  if constexpr (kPersistent) {  // EXPERIMENT: the row indices still in flight to this CTA\n"
              "    for (long long kk = k + 1 > dyn_ahead ? k + 1 : dyn_ahead; kk < k + dyn_ahead; ++kk) (void)row_of(kk);\n"
              "  }\n"
              r"\1", src)
    src = sub(r"^(      return launch_impl\(kernel, geometry_wide_cta, true, false, true, P,)",
              "      {  // EXPERIMENT: the row counter starts at 0 (bench/experiments/dynamic_rows.py)\n"
              "        static void* counter = nullptr;\n"
              "        if (counter == nullptr && cudaGetSymbolAddress(&counter, credit_dyn_counter) != cudaSuccess)\n"
              "          return kStatusCudaErrorBase + static_cast<int>(cudaGetLastError());\n"
              "        const cudaError_t merr = cudaMemsetAsync(counter, 0, sizeof(unsigned), stream);\n"
              "        if (merr != cudaSuccess) return kStatusCudaErrorBase + static_cast<int>(merr);\n"
              "      }\n"
              r"\1", src)
    return src


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gen", required=True)
    ap.add_argument("--out-gen", required=True)
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    ap.add_argument("--static-claims", action="store_true",
                    help="the control: rank 0 sends the static schedule's rows through the same slots")
    ap.add_argument("--memo", action="store_true",
                    help="each thread waits for a row index once (a one-entry memo of its last lookup)")
    a = ap.parse_args()
    os.makedirs(a.out_gen, exist_ok=True)
    for name in a.workloads.split(","):
        with open(os.path.join(a.gen, f"{name}.cu")) as f:
            src = patch(f.read(), name, a.static_claims, a.memo)
        with open(os.path.join(a.out_gen, f"{name}.cu"), "w") as f:
            f.write(src)
        print(f"wrote {os.path.join(a.out_gen, name + '.cu')}")


if __name__ == "__main__":
    main()
