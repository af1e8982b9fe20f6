#!/usr/bin/env bash
# Here (where creditc is built): generate the CUDA files and launch-API headers the
# PyTorch example compiles, into .gpu/pytorch/ (git-ignored; carry it to the GPU
# machine with the working tree: run(..., carry=[".gpu"])).
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
