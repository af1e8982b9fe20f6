#!/usr/bin/env bash
# On the GPU machine: builds the runtime and the GPU tests with CMake from the
# bundle scripts/gpu-prepare.sh made, then runs
#   tests       the runtime's unit tests (NVRTC, kernel cache, driver API), every
#               generated variant and form against its float64 reference, the
#               model-driven dispatch, and the device library's own fixtures and math;
#   examples    the Python package's tests (python/tests, when Python has torch) and
#               examples/cmake-consumer's program (when the bundle has it);
#   sanitizers  compute-sanitizer memcheck, racecheck and synccheck on every
#               variant at small shapes.
# Needs the CUDA toolkit and CMake. Prints a summary; exit status 0 when no step failed.
#
#   scripts/gpu-check.sh [options]
#     --bundle DIR        the bundle (default .gpu)
#     --build-dir DIR     where to build (default build-gpu)
#     --logs DIR          the full logs (default <build-dir>/logs)
#     --only STEPS        a comma-separated subset of tests,examples,sanitizers
#     --sanitizers TOOLS  a comma-separated subset of memcheck,racecheck,synccheck
#     --workloads LIST    run each sanitizer once per workload of LIST (e.g. lars,quant_int8)
#                         instead of once for all
#
# On an H200 the tests take about 70 s, memcheck and synccheck about a minute
# each, racecheck under a minute per workload with --workloads (eight took 5 minutes
# in all). To split the work:
#   scripts/gpu-check.sh --only tests,examples
#   scripts/gpu-check.sh --only sanitizers --sanitizers memcheck,synccheck
#   scripts/gpu-check.sh --only sanitizers --sanitizers racecheck --workloads layernorm,lars
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bundle="$root/.gpu"
build="$root/build-gpu"
logs=""
only="tests,examples,sanitizers"
tools="memcheck,racecheck,synccheck"
workloads=""
usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --bundle) bundle="$2"; shift 2 ;;
    --build-dir) build="$2"; shift 2 ;;
    --logs) logs="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --sanitizers) tools="$2"; shift 2 ;;
    --workloads) workloads="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "gpu-check: unknown option '$1' (--help lists them)" >&2; exit 1 ;;
  esac
done
for s in ${only//,/ }; do
  case $s in tests|examples|sanitizers) ;; *) echo "gpu-check: unknown step '$s'" >&2; exit 1 ;; esac
done
for t in ${tools//,/ }; do
  case $t in memcheck|racecheck|synccheck) ;; *) echo "gpu-check: unknown sanitizer '$t'" >&2; exit 1 ;; esac
done
wants() { case ",$only," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
[ -f "$bundle/gen/commit" ] ||
  { echo "gpu-check: no bundle at $bundle (scripts/gpu-prepare.sh on the machine with creditc)" >&2; exit 1; }
bundle="$(cd "$bundle" && pwd)"
mkdir -p "$build"
build="$(cd "$build" && pwd)"
logs="${logs:-$build/logs}"
mkdir -p "$logs"

summary=()
failed=0
record() {  # record PASS|FAIL|SKIP what
  summary+=("$(printf '%-4s  %s' "$1" "$2")")
  [ "$1" = FAIL ] && failed=1
  return 0
}
step() { echo; echo "=== $*"; }
# verdict <what> <exit status> <log>: a test program that skipped for want of a GPU fails here.
verdict() {
  if [ "$2" -ne 0 ]; then record FAIL "$1 (exit $2)"
  elif grep -qE "SKIPPED: no (usable GPU|CUDA device)" "$3"; then record FAIL "$1 (no usable GPU: skipped)"
  else record PASS "$1"; fi
}

step "device"
if command -v nvidia-smi > /dev/null; then
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$logs/device.txt"
fi
nvcc --version | tail -1 | tee -a "$logs/device.txt"
echo "kernels generated at $(cat "$bundle/gen/commit")" | tee -a "$logs/device.txt"

# configure <source dir> <build dir> <cmake options...>: Ninja when there is one.
configure() {
  local src="$1" dir="$2"; shift 2
  local gen=()
  [ ! -f "$dir/CMakeCache.txt" ] && command -v ninja > /dev/null && gen=(-G Ninja)
  cmake -S "$src" -B "$dir" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release "$@"
}
step "build"
if ! { configure "$root" "$build/runtime" -DCREDIT_BUILD_COMPILER=OFF \
         -DCREDIT_CATCH2_INCLUDE_DIR="$bundle/include" &&
       cmake --build "$build/runtime" --target credit-runtime-tests -j "$(nproc)" &&
       configure "$root/tests/gpu" "$build/gpu-tests" -DCREDIT_GEN_DIR="$bundle/gen" \
         -DCREDIT_CATCH2_INCLUDE_DIR="$bundle/include" &&
       cmake --build "$build/gpu-tests" -j "$(nproc)"; } > "$logs/build.log" 2>&1; then
  tail -40 "$logs/build.log"
  echo "gpu-check: the build failed (log: $logs/build.log)" >&2
  exit 1
fi
echo "built in $build"
gpu_tests="$build/gpu-tests/credit-gpu-tests"

if wants tests; then
  step "runtime unit tests"
  "$build/runtime/tests/unit/credit-runtime-tests" > "$logs/runtime-tests.txt" 2>&1
  rc=$?; tail -3 "$logs/runtime-tests.txt"
  verdict "runtime unit tests" $rc "$logs/runtime-tests.txt"

  step "generated kernels against their float64 references, dispatch"
  "$gpu_tests" > "$logs/gpu-tests.txt" 2>&1
  rc=$?; grep -E "launches checked|FAILED|failed|passed" "$logs/gpu-tests.txt" | tail -20
  verdict "GPU tests" $rc "$logs/gpu-tests.txt"

  step "device library fixtures against their float64 references"
  "$build/gpu-tests/credit-library-gpu-tests" > "$logs/library-tests.txt" 2>&1
  rc=$?; grep -E "FAILED|failed|passed" "$logs/library-tests.txt" | tail -20
  verdict "library tests" $rc "$logs/library-tests.txt"
fi

if wants examples; then
  step "python/credit (examples/pytorch)"
  if [ ! -d "$bundle/python" ]; then
    record SKIP "python/credit (not in the bundle)"
  elif ! python3 -c "import torch" 2> /dev/null; then
    record SKIP "python/credit (no torch in python3)"
  else
    python3 -u "$root/python/tests/run_all.py" --bundle "$bundle/python" > "$logs/python.txt" 2>&1
    rc=$?; tail -12 "$logs/python.txt"
    [ $rc -eq 0 ] && record PASS "python/credit" || record FAIL "python/credit (exit $rc)"
  fi

  step "examples/cmake-consumer"
  if [ -x "$bundle/consumer/credit-consumer" ]; then
    "$bundle/consumer/credit-consumer" > "$logs/consumer.txt" 2>&1
    rc=$?; tail -5 "$logs/consumer.txt"
    [ $rc -eq 0 ] && record PASS "examples/cmake-consumer" || record FAIL "examples/cmake-consumer (exit $rc)"
  else
    record SKIP "examples/cmake-consumer (not in the bundle)"
  fi
fi

sanitizer="$(command -v compute-sanitizer || true)"
for d in "${CUDA_HOME:-}" /usr/local/cuda; do
  [ -z "$sanitizer" ] && [ -n "$d" ] && [ -x "$d/bin/compute-sanitizer" ] && sanitizer="$d/bin/compute-sanitizer"
done
if wants sanitizers && [ -z "$sanitizer" ]; then
  record FAIL "compute-sanitizer (not found in PATH, \$CUDA_HOME/bin or /usr/local/cuda/bin)"
elif wants sanitizers; then
  for tool in ${tools//,/ }; do
    # synccheck misreports clusters of 16, even for kernels without a DSMEM exchange:
    # it checks clusters of up to 8.
    maxp=16; [ $tool = synccheck ] && maxp=8
    wl="${workloads//,/ }"
    for w in ${wl:-all}; do
      [ "$w" = all ] && sel=() || sel=(-c "$w")
      name="compute-sanitizer $tool${sel:+ on $w}"
      step "$name (every variant, small shapes, clusters up to $maxp)"
      log="$logs/sanitizer-$tool${sel:+-$w}.txt"
      CREDIT_GPU_TEST_SCOPE=tiny CREDIT_GPU_TEST_MAX_P=$maxp \
        "$sanitizer" --tool "$tool" --error-exitcode 9 "$gpu_tests" "every variant*" "${sel[@]}" > "$log" 2>&1
      rc=$?; tail -3 "$log"
      [ $rc -eq 0 ] && record PASS "$name" || record FAIL "$name (exit $rc)"
    done
  done
fi

step "summary (logs: $logs)"
printf '%s\n' "${summary[@]}" | tee "$logs/summary.txt"
exit $failed
