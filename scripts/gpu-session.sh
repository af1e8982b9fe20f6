#!/usr/bin/env bash
# One device call: scripts/gpu-check.sh (tests, sanitizers), then the benchmark
# with whatever time is left under the call's limit, then its summary and plots.
# Everything lands in one archive, $OUT/credit-gpu-results.tar.gz.
# CREDIT_BENCH_ARGS: more run_bench.py options (e.g. "--no-peers --extra-gen t1024=.gpu/gen1024").
# On the H200 the tests take about 70 s, the benchmark about 120 s, memcheck and synccheck
# about a minute each, racecheck more than 10 minutes: more than one 600-s call. Run
# CREDIT_SKIP_SANITIZERS=1 (tests, then the benchmark), then CREDIT_SANITIZERS_ONLY=1
# CREDIT_SKIP_BENCH=1 with CREDIT_SANITIZER_TOOLS / CREDIT_SANITIZER_ARGS choosing a share
# of the sanitizers per call (scripts/gpu-check.sh; each call's archive is complete for
# what it ran).
#   run(command="scripts/gpu-session.sh", carry=[".gpu"], timeout_s=600)
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
start=$(date +%s)
limit="${CREDIT_SESSION_SECONDS:-570}"
export CREDIT_LOG_DIR=/tmp/credit-out
rm -rf "$CREDIT_LOG_DIR"; mkdir -p "$CREDIT_LOG_DIR"
pack() { tar -C /tmp -czf "${OUT:-/tmp}/credit-gpu-results.tar.gz" credit-out; }
trap pack EXIT

check=0
if [ "${CREDIT_SKIP_CHECK:-0}" != 1 ]; then
  CREDIT_SKIP_PEERS="${CREDIT_SKIP_PEERS:-1}" "$root/scripts/gpu-check.sh"
  check=$?
  echo "gpu-check exit $check after $(( $(date +%s) - start )) s"
fi

left=$(( limit - ($(date +%s) - start) - 45 ))
if [ "${CREDIT_SKIP_BENCH:-0}" != 1 ] && [ $left -gt 60 ]; then
  echo; echo "=== benchmark (budget ${left} s)"
  PYTHONUNBUFFERED=1 timeout $(( left + 30 )) python3 "$root/bench/run_bench.py" --gen "$root/.gpu/gen" \
    --out "$CREDIT_LOG_DIR" --budget-s $left --N "${CREDIT_BENCH_N:-65536,16384,4096,262144,32768,8192,131072}" \
    ${CREDIT_BENCH_ARGS:-} \
    > "$CREDIT_LOG_DIR/bench.log" 2>&1
  bench=$?
  tail -5 "$CREDIT_LOG_DIR/bench.log"
  # 2: a kernel failed the benchmark's own check (CHECK FAILED lines in bench.log).
  if [ $bench -ne 0 ]; then
    echo "benchmark exit $bench"; grep "CHECK FAILED" "$CREDIT_LOG_DIR/bench.log" | head -20
    [ $check -eq 0 ] && check=$bench
  fi
  python3 "$root/bench/report_bench.py" "$CREDIT_LOG_DIR/results.jsonl" --out "$CREDIT_LOG_DIR" > "$CREDIT_LOG_DIR/report.log" 2>&1
  tail -30 "$CREDIT_LOG_DIR/report.log"
fi
exit $check
