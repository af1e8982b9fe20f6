#!/usr/bin/env bash
# Where creditc is built: generates the CUDA files and launch-API headers the
# PyTorch example compiles, into .gpu/pytorch/ (git-ignored). scripts/gpu-prepare.sh
# runs it as part of the bundle for a GPU machine.
#   examples/pytorch/prepare.sh [out dir]      CREDITC=<creditc> to pick the compiler
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
creditc="${CREDITC:-$root/build/bin/creditc}"
out="${1:-$root/.gpu/pytorch}"
mkdir -p "$out"
for k in layernorm quant_int8; do
  "$creditc" "$root/dsl_examples/$k.credit" --arch=sm_90 -o "$out/$k.cu" --header="$out/$k.h"
  echo "$out/$k.cu, $out/$k.h"
done
"$creditc" --version | head -1 > "$out/creditc-version"
