#!/usr/bin/env bash
# On the GPU machine, in one call: build the runtime and the GPU tests with
# CMake alone, run the runtime's JIT tests, every generated variant against its
# float64 reference, compute-sanitizer (memcheck, racecheck, synccheck) on a
# small shape, and the Python peers' self-check. Logs go to $OUT.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${CREDIT_LOG_DIR:-/tmp/credit-out}"; mkdir -p "$out"
gpu="$root/.gpu"
status=0
step() { echo; echo "=== $*"; }
run() { "$@" || { echo "FAILED ($?): $*"; status=1; }; }

step "device"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/device.txt"
nvcc --version | tail -1 | tee -a "$out/device.txt"

step "build"
cmake -S "$root" -B /tmp/b-rt -G Ninja -DCMAKE_BUILD_TYPE=Release -DCREDIT_BUILD_COMPILER=OFF \
  -DCREDIT_CATCH2_INCLUDE_DIR="$gpu/include" > /tmp/cfg-rt.log 2>&1 || { cat /tmp/cfg-rt.log; exit 1; }
cmake -S "$root/tests/gpu" -B /tmp/b-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCREDIT_GEN_DIR="$gpu/gen" -DCREDIT_CATCH2_INCLUDE_DIR="$gpu/include" > /tmp/cfg-gpu.log 2>&1 || { cat /tmp/cfg-gpu.log; exit 1; }
( ninja -C /tmp/b-rt credit-runtime-tests && ninja -C /tmp/b-gpu ) > "$out/build.log" 2>&1 || { tail -50 "$out/build.log"; exit 1; }

if [ "${CREDIT_SANITIZERS_ONLY:-0}" != 1 ]; then
step "runtime (JIT, cache, driver API)"
run /tmp/b-rt/tests/unit/credit-runtime-tests 2>&1 | tail -25 | tee "$out/runtime-tests.txt"

step "generated kernels vs float64 reference"
run /tmp/b-gpu/credit-gpu-tests 2>&1 | tee "$out/gpu-tests.txt" | tail -60
fi

# CREDIT_SANITIZERS_ONLY=1: build, then only the sanitizers; CREDIT_SKIP_SANITIZERS=1: all but them
# (two device calls when the whole pass would not fit one call's 600 s).
# CREDIT_SANITIZER_TOOLS: the tools to run (default all three); CREDIT_SANITIZER_ARGS: more
# arguments for the test program (a workload: "-c lars"). On the H200 (18385b1) memcheck and
# synccheck take about a minute each for all six, racecheck more than 9 minutes for four of
# them (the M = 400 shapes): racecheck needs calls of its own, a few workloads each.
for tool in ${CREDIT_SANITIZER_TOOLS:-memcheck racecheck synccheck}; do
  [ "${CREDIT_SKIP_SANITIZERS:-0}" = 1 ] && break
  case $tool in memcheck|racecheck|synccheck) ;; *) echo "unknown sanitizer tool '$tool'"; exit 2 ;; esac
  step "compute-sanitizer $tool (every variant, M=3, N=4096, 4099, 8192, 12289, 16384, 32767, 32768; N=30004, M=400)"
  # synccheck misreports clusters of 16 (seen even on kernels with no DSMEM
  # exchange; docs/results/README.md §1), so it checks P <= 8.
  maxp=16; [ $tool = synccheck ] && maxp=8
  CREDIT_GPU_TEST_SCOPE=tiny CREDIT_GPU_TEST_MAX_P=$maxp run compute-sanitizer --tool $tool --error-exitcode 9 \
    /tmp/b-gpu/credit-gpu-tests "every variant*" ${CREDIT_SANITIZER_ARGS:-} > "$out/sanitizer-$tool.txt" 2>&1
  tail -4 "$out/sanitizer-$tool.txt"
done

if [ "${CREDIT_SKIP_PEERS:-0}" != 1 ] && [ "${CREDIT_SANITIZERS_ONLY:-0}" != 1 ]; then
  step "peers self-check (torch eager, torch.compile, Triton)"
  (cd "$root/bench/peers" && PYTHONUNBUFFERED=1 timeout 300 python3 selfcheck.py) > "$out/peers-selfcheck.txt" 2>&1 || { echo "peers self-check FAILED"; status=1; }
  tail -15 "$out/peers-selfcheck.txt"
fi
exit $status
