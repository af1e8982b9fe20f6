#!/usr/bin/env bash
# On the development machine (which has creditc): generate everything the GPU
# machine (no MLIR, no Catch2 package) needs into .gpu/ (git-ignored), to be
# carried there with the working tree: the CUDA files and float64 references of
# the six examples, their registry, and Catch2's single header.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
creditc="${CREDITC:-$root/build/bin/creditc}"
out="$root/.gpu"
rm -rf "$out/gen" && mkdir -p "$out/gen" "$out/include"
: > "$out/gen/credit_gpu_registry.inc"
for k in layernorm wvar_bwd pearson_bwd softmax_logits_bwd lars quant_int8; do
  "$creditc" "$root/dsl_examples/$k.credit" -o "$out/gen/$k.cu"
  "$creditc" "$root/dsl_examples/$k.credit" --emit=reference -o "$out/gen/${k}_ref.cpp"
  "$creditc" "$root/dsl_examples/$k.credit" --report=json > "$out/gen/$k.report.json"
  echo "CREDIT_WORKLOAD($k)" >> "$out/gen/credit_gpu_registry.inc"
done
cp -r /usr/include/catch2 "$out/include/"
git -C "$root" rev-parse HEAD > "$out/gen/commit" 2>/dev/null || true
echo "prepared $out (carry it: run(carry=['.gpu']))"
