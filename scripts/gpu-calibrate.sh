#!/usr/bin/env bash
# On the GPU machine: measures a device profile for the cost model
# (docs/cost-model.md) with credit-calibrate, built here with CMake from the
# runtime alone: the latencies, shared-memory and DSMEM rates and cluster-barrier
# costs the model reads, and T_ctrl(M, N, P) of the control kernels of the
# bundle's generated files (scripts/gpu-prepare.sh). It prints the measurements
# as the CREDIT paper's Table II; the profile is what creditc --profile and
# credit_add_kernel(... PROFILE) take.
#
#   scripts/gpu-calibrate.sh [options] [-- credit-calibrate options]
#     --bundle DIR          the bundle (default .gpu)
#     --build-dir DIR       where to build (default build-gpu)
#     --out FILE            the profile (default <build-dir>/device-profile.json)
#     --rows M              rows of the control kernels (default 4096)
#     --rows-for NAME=M     another row count for one kernel (repeatable); the
#                           H200 profile used --rows-for layernorm=2048, the
#                           benchmark's rows
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bundle="$root/.gpu"
build="$root/build-gpu"
out=""
rows=4096
declare -A rows_for=()
extra=()
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --bundle) bundle="$2"; shift 2 ;;
    --build-dir) build="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --rows) rows="$2"; shift 2 ;;
    --rows-for) rows_for["${2%%=*}"]="${2#*=}"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "gpu-calibrate: unknown option '$1' (--help lists them)" >&2; exit 1 ;;
  esac
done
ls "$bundle"/gen/*.cu > /dev/null 2>&1 ||
  { echo "gpu-calibrate: no generated files in $bundle/gen (scripts/gpu-prepare.sh on the machine with creditc)" >&2; exit 1; }
mkdir -p "$build"
out="${out:-$build/device-profile.json}"

gen=()
[ ! -f "$build/calibrate/CMakeCache.txt" ] && command -v ninja > /dev/null && gen=(-G Ninja)
echo "=== build credit-calibrate"
{ cmake -S "$root" -B "$build/calibrate" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DCREDIT_BUILD_COMPILER=OFF -DCREDIT_BUILD_TESTS=OFF &&
  cmake --build "$build/calibrate" --target credit-calibrate -j "$(nproc)"; } > "$build/calibrate.log" 2>&1 ||
  { tail -40 "$build/calibrate.log"; echo "gpu-calibrate: the build failed" >&2; exit 1; }

controls=()
for cu in "$bundle"/gen/*.cu; do
  k="$(basename "$cu" .cu)"
  controls+=(--control "$cu@${rows_for[$k]:-$rows}")
done
driver=""
command -v nvidia-smi > /dev/null && driver="$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"
echo "=== calibrate"
"$build/calibrate/bin/credit-calibrate" --out "$out" ${driver:+--driver-string "$driver"} \
  "${controls[@]}" "${extra[@]}"
if [ -f "$out" ]; then echo "profile: $out"; fi
