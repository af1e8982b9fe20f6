#!/usr/bin/env bash
# One device call comparing CTA sizes (scripts/gpu-prepare.sh with
# GEN_NAME=gen512 CTA_THREADS=512 and gen1024/1024 first): the GPU test suite on
# each (correctness), memcheck + racecheck on a small shape, then the benchmark
# at N = 16384, 65536, 262144 with the peers and every CTA size in one run.
# Results: $OUT/credit-gpu-results.tar.gz.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
log=/tmp/credit-out; rm -rf "$log"; mkdir -p "$log"
trap 'tar -C /tmp -czf "${OUT:-/tmp}/credit-gpu-results.tar.gz" credit-out' EXIT
start=$(date +%s)
gpu="$root/.gpu"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$log/device.txt"
for g in gen512 gen1024; do
  cmake -S "$root/tests/gpu" -B /tmp/b-$g -G Ninja -DCMAKE_BUILD_TYPE=Release -DCREDIT_GEN_DIR="$gpu/$g" \
    -DCREDIT_CATCH2_INCLUDE_DIR="$gpu/include" > /tmp/cfg-$g.log 2>&1 || { cat /tmp/cfg-$g.log; exit 1; }
done
( ninja -C /tmp/b-gen512 & ninja -C /tmp/b-gen1024 & wait ) > "$log/build.log" 2>&1
echo "built after $(( $(date +%s) - start )) s"
for g in gen512 gen1024; do
  echo "=== $g: tests"
  /tmp/b-$g/credit-gpu-tests > "$log/gpu-tests-$g.txt" 2>&1; echo "exit $?"; tail -9 "$log/gpu-tests-$g.txt" | head -7
  for tool in memcheck racecheck; do
    CREDIT_GPU_TEST_SCOPE=tiny compute-sanitizer --tool $tool --error-exitcode 9 /tmp/b-$g/credit-gpu-tests "every variant*" \
      > "$log/sanitizer-$tool-$g.txt" 2>&1; echo "$g $tool exit $?"; tail -1 "$log/sanitizer-$tool-$g.txt"
  done
done
left=$(( ${CREDIT_SESSION_SECONDS:-560} - ($(date +%s) - start) - 40 ))
echo "=== benchmark (budget $left s)"
PYTHONUNBUFFERED=1 timeout $(( left + 30 )) python3 "$root/bench/run_bench.py" --gen "$gpu/gen" --out "$log" \
  --budget-s $left --N 65536,262144,16384 --extra-gen "t512=$gpu/gen512,t1024=$gpu/gen1024" > "$log/bench.log" 2>&1
tail -3 "$log/bench.log"
python3 "$root/bench/report_bench.py" "$log/results.jsonl" --out "$log" --name cta-experiment > "$log/report.log" 2>&1
tail -40 "$log/report.log"
