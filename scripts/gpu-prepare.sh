#!/usr/bin/env bash
# On the build machine (the one with creditc): generates what a GPU machine needs
# and cannot make itself, since creditc needs MLIR/LLVM. Into a bundle folder
# (default .gpu/, git-ignored):
#   gen/       the examples of dsl_examples/: CUDA files with their dispatch built
#              from a device profile, launch-API headers, float64 references,
#              static reports, and the commit they were generated from; where
#              --fuse-moments changes an example's stages, also that build
#              (<example>_moments);
#   include/   Catch2's single header (the GPU tests' one dependency besides CUDA);
#   python/    what the Python package's tests load (python/tools/prepare_bundle.sh);
#   consumer/  examples/cmake-consumer's program, if scripts/test-consumer.sh built it.
# The GPU machine then needs the CUDA toolkit and CMake (and Python with torch for
# the benchmark and the PyTorch example): copy the repository with its bundle there,
# or pack both into one archive with --archive. On a machine that has both creditc
# and a GPU, run the GPU scripts in place.
#
#   scripts/gpu-prepare.sh [options] [-- creditc options]
#     --creditc FILE     the compiler (default build/bin/creditc, or $CREDITC)
#     --profile FILE     device profile for the dispatch (default: the H200's,
#                        docs/results/h200-profile.json)
#     --out DIR          the bundle folder (default .gpu)
#     --archive FILE     also write FILE (.tar.gz): the repository's files and the
#                        bundle, under creditc/
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
creditc="${CREDITC:-$root/build/bin/creditc}"
profile="$root/docs/results/h200-profile.json"
out="$root/.gpu"
archive=""
extra=()
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --creditc) creditc="$2"; shift 2 ;;
    --profile) profile="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --archive) archive="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "gpu-prepare: unknown option '$1' (--help lists them)" >&2; exit 1 ;;
  esac
done
[ -x "$creditc" ] || { echo "gpu-prepare: no creditc at $creditc (build it: scripts/build.sh)" >&2; exit 1; }
[ -f "$profile" ] || { echo "gpu-prepare: no device profile at $profile" >&2; exit 1; }
catch2=/usr/include/catch2
[ -f "$catch2/catch.hpp" ] || { echo "gpu-prepare: no Catch2 v2 header at $catch2 (scripts/install-deps.sh)" >&2; exit 1; }
mkdir -p "$out"
out="$(cd "$out" && pwd)"

gen="$out/gen"
rm -rf "$gen" && mkdir -p "$gen" "$out/include"
: > "$gen/credit_gpu_registry.inc"
for src in "$root"/dsl_examples/*.credit; do
  k="$(basename "$src" .credit)"
  "$creditc" "$src" "${extra[@]}" --profile "$profile" -o "$gen/$k.cu" --header="$gen/$k.h"
  "$creditc" "$src" --emit=reference -o "$gen/${k}_ref.cpp"
  "$creditc" "$src" "${extra[@]}" --report=json > "$gen/$k.report.json"
  echo "CREDIT_WORKLOAD($k)" >> "$gen/credit_gpu_registry.inc"
  echo "$gen/$k.cu"
  # Where --fuse-moments changes the stages, that build too (<k>_moments), so the
  # GPU tests check both.
  # (The report is written to a file first: grep -q would close the pipe early.)
  m="${k}_moments"
  "$creditc" "$src" "${extra[@]}" --fuse-moments --report=json > "$gen/$m.report.json"
  if grep -q '"kind": "moments"' "$gen/$m.report.json"; then
    "$creditc" "$src" "${extra[@]}" --fuse-moments --prefix="credit_$m" --profile "$profile" \
      -o "$gen/$m.cu" --header="$gen/$m.h"
    "$creditc" "$src" --emit=reference --prefix="credit_$m" -o "$gen/${m}_ref.cpp"
    echo "CREDIT_WORKLOAD($m)" >> "$gen/credit_gpu_registry.inc"
    echo "$gen/$m.cu"
  else
    rm -f "$gen/$m.report.json"
  fi
done
rm -rf "$out/include/catch2" && cp -r "$catch2" "$out/include/"
git -C "$root" describe --always --dirty --abbrev=40 > "$gen/commit" 2>/dev/null || echo unknown > "$gen/commit"
cp "$gen/commit" "$out/commit"

CREDITC="$creditc" "$root/python/tools/prepare_bundle.sh" --out "$out/python" --profile "$profile" > /dev/null
consumer="${BUILD_DIR:-$(dirname "$(dirname "$creditc")")}/consumer-test/build/credit-consumer"
rm -rf "$out/consumer"
if [ -x "$consumer" ]; then
  mkdir -p "$out/consumer" && cp "$consumer" "$out/consumer/"
else
  echo "note: no $consumer (scripts/test-consumer.sh builds it); the GPU check will skip it"
fi
echo "bundle: $out"

if [ -n "$archive" ]; then
  case "$out/" in "$root"/*) ;; *) echo "gpu-prepare: --archive needs --out inside the repository" >&2; exit 1 ;; esac
  rel="${out#"$root"/}"
  archive="$(cd "$(dirname "$archive")" && pwd)/$(basename "$archive")"
  # The repository's files (tracked and new, not ignored) as they are now, and the bundle.
  ( cd "$root"
    { git ls-files -z --cached --others --exclude-standard |
        while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done
      find "$rel" -type f -print0; } |
      tar -czf "$archive" --null -T - --transform 's,^,creditc/,' )
  echo "archive: $archive (on the GPU machine: tar -xzf $(basename "$archive"); cd creditc)"
fi
