#!/usr/bin/env bash
# The installed package, as a user sees it: `cmake --install` of a creditc build
# into a fresh prefix, then examples/cmake-consumer (find_package(Credit),
# credit_add_kernel) configured, built and run against it. Without a GPU the
# program runs its host-side checks and prints "no GPU: skipped run".
#   scripts/test-consumer.sh [build dir (default: build)] [work dir (default: <build>/consumer-test)]
# Also checks that the package is relocatable (installed to one directory, used
# from another, no build path in its CMake files) and that the kernels are
# regenerated when creditc changes. ctest runs it as the test `consumer-package`.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-${BUILD_DIR:-$root/build}}" && pwd)"
work="${2:-$build/consumer-test}"
if [ -z "${CUDACXX:-}" ] && ! command -v nvcc > /dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export CUDACXX=/usr/local/cuda/bin/nvcc
fi
case "$work" in ""|/|"$root"|"$build") echo "error: refusing to use '$work' as the work dir" >&2; exit 1;; esac
rm -rf "$work" && mkdir -p "$work"
start=$(date +%s)

echo "== cmake --install $build --prefix $work/staging (then moved to $work/prefix)"
cmake --install "$build" --prefix "$work/staging" > "$work/install.log"
mv "$work/staging" "$work/prefix"
prefix="$work/prefix"
if grep -rl -e "$build" -e "$work/staging" "$prefix/lib/cmake/Credit"; then
  echo "error: the installed CMake package names the build or staging directory" >&2
  exit 1
fi
"$prefix/bin/creditc" --version | head -1
# credit-calibrate (built where CMake found a CUDA compiler) is installed beside creditc.
if [ -x "$build/bin/credit-calibrate" ]; then
  "$prefix/bin/credit-calibrate" --help | head -1
fi

echo "== configure and build examples/cmake-consumer against it"
cmake -S "$root/examples/cmake-consumer" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
grep -q "Credit_DIR:PATH=$prefix/lib/cmake/Credit" "$work/build/CMakeCache.txt" ||
  { echo "error: Credit was not found in $prefix" >&2; exit 1; }
cmake --build "$work/build" > "$work/build.log" 2>&1 || { tail -40 "$work/build.log"; exit 1; }
grep -E "creditc|rejected|warning|Linking" "$work/build.log" || true

echo "== rebuild rules"
# ninja -n lists the steps it would run: "[1/3] creditc layernorm.credit -> ...".
[ "$(ninja -C "$work/build" -n | grep -c '] creditc ' || true)" -eq 0 ] ||
  { echo "error: a second build re-runs creditc" >&2; exit 1; }
touch "$prefix/bin/creditc"
[ "$(ninja -C "$work/build" -n | grep -c '] creditc ' || true)" -eq 3 ] ||
  { echo "error: a newer creditc does not regenerate the 3 kernels" >&2; ninja -C "$work/build" -n; exit 1; }
cmake --build "$work/build" > "$work/rebuild.log" 2>&1 || { tail -40 "$work/rebuild.log"; exit 1; }
touch "$prefix/share/credit/profiles/nvidia-h200.json"
[ "$(ninja -C "$work/build" -n | grep -c '] creditc ' || true)" -eq 1 ] ||
  { echo "error: a newer PROFILE does not regenerate (only) the layernorm kernel" >&2; ninja -C "$work/build" -n; exit 1; }
cmake --build "$work/build" > "$work/rebuild2.log" 2>&1 || { tail -40 "$work/rebuild2.log"; exit 1; }
echo "up to date after the build; a newer creditc regenerates all three, a newer profile the one using it"

echo "== run"
"$work/build/credit-consumer"
echo "consumer test passed in $(( $(date +%s) - start )) s"
