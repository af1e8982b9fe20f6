#!/usr/bin/env bash
# On the build machine (the one with creditc): what a GPU machine needs to run the
# Python package's tests and examples without creditc or a C++ compiler, into one
# folder (default .gpu/python, git-ignored):
#   gen/   the CUDA files of every dsl_examples/*.credit, with the model-driven dispatch
#          of a device profile (credit.load reads them as they are);
#   lib/   libcredit_capi.so, the C API the package loads (built here with the runtime).
# Then, on the GPU machine (Python with torch, the CUDA toolkit's libnvrtc):
#   python3 python/tests/run_all.py --bundle .gpu/python
#
#   python/tools/prepare_bundle.sh [--out DIR] [--creditc FILE] [--profile FILE] [--build DIR]
#     --creditc  the compiler (default $CREDITC, else build/bin/creditc, else creditc on PATH)
#     --profile  the device profile (default docs/results/h200-profile.json)
#     --build    the CMake build folder that builds credit_capi (default build)
#   JOBS sets the build's parallelism (default 2).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="$root/.gpu/python"
creditc="${CREDITC:-}"
profile="$root/docs/results/h200-profile.json"
build="$root/build"
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --creditc) creditc="$2"; shift 2 ;;
    --profile) profile="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "prepare_bundle: unknown option '$1' (--help lists them)" >&2; exit 1 ;;
  esac
done
if [ -z "$creditc" ]; then
  if [ -x "$root/build/bin/creditc" ]; then creditc="$root/build/bin/creditc"; else creditc="$(command -v creditc || true)"; fi
fi
[ -n "$creditc" ] && [ -x "$creditc" ] || { echo "prepare_bundle: no creditc (--creditc FILE or \$CREDITC)" >&2; exit 1; }
[ -f "$profile" ] || { echo "prepare_bundle: no device profile at $profile" >&2; exit 1; }

mkdir -p "$out"
out="$(cd "$out" && pwd)"
rm -rf "$out/gen" "$out/lib"
mkdir -p "$out/gen" "$out/lib"
for src in "$root"/dsl_examples/*.credit; do
  k="$(basename "$src" .credit)"
  "$creditc" "$src" --profile="$profile" -o "$out/gen/$k.cu" --header="$out/gen/$k.h" 2> "$out/gen/$k.log" ||
    { cat "$out/gen/$k.log" >&2; exit 1; }
done

[ -f "$build/CMakeCache.txt" ] || cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
nice -n 10 cmake --build "$build" --target credit_capi -j "${JOBS:-2}" > /dev/null
cp "$build/runtime/capi/libcredit_capi.so" "$out/lib/"
git -C "$root" describe --always --dirty --abbrev=40 > "$out/commit" 2> /dev/null || echo unknown > "$out/commit"
echo "bundle: $out ($(ls "$out/gen"/*.cu | wc -l) generated files, lib/libcredit_capi.so)"
echo "on the GPU machine: python3 python/tests/run_all.py --bundle ${out#"$root"/}"
