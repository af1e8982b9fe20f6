#!/usr/bin/env bash
# One device call for the cost model (docs/cost-model.md, "To be measured on the H200"):
#   1. build credit-calibrate with CMake alone (runtime only, no MLIR, no tests);
#   2. run it: the Sec. III-A microbenchmarks and T_ctrl(M, N, P) of the six
#      workloads' control kernels (JIT-compiled from .gpu/gen/*.cu), written to
#      $OUT/h200-profile.json, Table II printed to calibrate.log;
#   3. bench-style timings (bench/run_bench.py --no-peers: CUDA events, L2 flush,
#      median of 15) of every creditc variant -- reread, staged, cluster x protocol
#      x legal P -- for the 6 workloads x N in 4K..64K (the 30 pairs) plus 128K
#      and 256K: T_B (the matched non-clustered kernel) and the measured side.
# Everything lands in $OUT/credit-model-results.tar.gz (and the profile also as a
# plain file). The machine has no creditc, so predicted-vs-measured runs back on
# the development machine:
#   python3 bench/eval_model.py --profile <files>/credit-out/h200-profile.json \
#       --results <files>/credit-out/results.jsonl --out docs/results
# (it also runs here, at the end, when $CREDITC names a working creditc).
#
# Before the call, on the development machine: scripts/gpu-prepare.sh (the
# generated files + Catch2 header into .gpu/), then
#   run(command="scripts/gpu-calibrate.sh", carry=[".gpu"], timeout_s=600)
# Knobs: CREDIT_SKIP_CALIBRATE=1, CREDIT_SKIP_BENCH=1, CREDIT_CAL_RUNS (15),
# CREDIT_CTRL_N, CREDIT_BENCH_N, CREDIT_SESSION_SECONDS (570).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
start=$(date +%s)
limit="${CREDIT_SESSION_SECONDS:-570}"
log=/tmp/credit-out
rm -rf "$log"; mkdir -p "$log"
gen="$root/.gpu/gen"
out="${OUT:-/tmp}"
pack() {
  [ -f "$log/h200-profile.json" ] && cp "$log/h200-profile.json" "$out/" 2>/dev/null
  tar -C /tmp -czf "$out/credit-model-results.tar.gz" credit-out
}
trap pack EXIT
elapsed() { echo $(( $(date +%s) - start )); }
status=0

if [ ! -d "$gen" ]; then
  echo "no $gen: run scripts/gpu-prepare.sh on the development machine and carry .gpu" >&2
  exit 1
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv | tee "$log/device.txt"
driver="$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"
cp "$gen"/*.report.json "$log/" 2>/dev/null
cp "$gen/commit" "$log/" 2>/dev/null

if [ "${CREDIT_SKIP_CALIBRATE:-0}" != 1 ]; then
  echo "=== build credit-calibrate"
  cmake -S "$root" -B /tmp/b-cal -G Ninja -DCMAKE_BUILD_TYPE=Release -DCREDIT_BUILD_COMPILER=OFF \
    -DCREDIT_BUILD_TESTS=OFF > "$log/cal-configure.log" 2>&1 || { tail -30 "$log/cal-configure.log"; exit 1; }
  ninja -C /tmp/b-cal credit-calibrate > "$log/cal-build.log" 2>&1 || { tail -40 "$log/cal-build.log"; exit 1; }
  echo "built after $(elapsed) s"

  echo "=== calibrate (microbenchmarks + T_ctrl)"
  controls=()
  for k in layernorm wvar_bwd pearson_bwd softmax_logits_bwd lars quant_int8; do
    m=4096; [ $k = layernorm ] && m=2048      # the benchmark's M (bench/peers/workloads.py)
    controls+=(--control "$gen/$k.cu@$m")
  done
  timeout 300 /tmp/b-cal/bin/credit-calibrate --out "$log/h200-profile.json" --runs "${CREDIT_CAL_RUNS:-15}" \
    --driver-string "$driver" --ctrl-N "${CREDIT_CTRL_N:-4K,8K,16K,32K,64K,128K,256K}" "${controls[@]}" \
    > "$log/calibrate.log" 2>&1
  rc=$?
  cat "$log/calibrate.log"
  [ $rc -ne 0 ] && { echo "credit-calibrate exit $rc"; status=1; }
  echo "calibrated after $(elapsed) s"
fi

left=$(( limit - $(elapsed) - 40 ))
if [ "${CREDIT_SKIP_BENCH:-0}" != 1 ] && [ $left -gt 60 ]; then
  echo "=== T_B and clustered timings (budget ${left} s)"
  # N outermost in run_bench.py: the 30 pairs first, then 128K and 256K.
  PYTHONUNBUFFERED=1 timeout $(( left + 20 )) python3 "$root/bench/run_bench.py" --gen "$gen" --out "$log" \
    --no-peers --budget-s "$left" --N "${CREDIT_BENCH_N:-4096,8192,16384,32768,65536,131072,262144}" \
    > "$log/bench.log" 2>&1 || status=1
  tail -3 "$log/bench.log"
fi

if [ -n "${CREDITC:-}" ] && [ -f "$log/h200-profile.json" ] && [ -f "$log/results.jsonl" ]; then
  echo "=== predicted vs measured"
  python3 "$root/bench/eval_model.py" --creditc "$CREDITC" --profile "$log/h200-profile.json" \
    --results "$log/results.jsonl" --out "$log" 2>&1 | tail -40
fi
echo "done after $(elapsed) s, status $status"
exit $status
