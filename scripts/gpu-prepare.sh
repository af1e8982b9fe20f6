#!/usr/bin/env bash
# On the development machine (which has creditc): generate everything the GPU
# machine (no MLIR, no Catch2 package) needs into .gpu/ (git-ignored), to be
# carried there with the working tree: the CUDA files and float64 references of
# the six examples, their registry, and Catch2's single header.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
creditc="${CREDITC:-$root/build/bin/creditc}"
out="$root/.gpu"
gen="$out/${GEN_NAME:-gen}"          # several CTA sizes: GEN_NAME=gen512 CTA_THREADS=512
threads="${CTA_THREADS:-256}"
flags=(--cta-threads="$threads" ${CREDITC_FLAGS:-})   # e.g. GEN_NAME=genfast CREDITC_FLAGS=--fast-math
rm -rf "$gen" && mkdir -p "$gen" "$out/include"
: > "$gen/credit_gpu_registry.inc"
for k in layernorm wvar_bwd pearson_bwd softmax_logits_bwd lars quant_int8; do
  "$creditc" "$root/dsl_examples/$k.credit" "${flags[@]}" --profile "$root/docs/results/h200-profile.json" \
    -o "$gen/$k.cu" --header="$gen/$k.h"
  "$creditc" "$root/dsl_examples/$k.credit" --emit=reference -o "$gen/${k}_ref.cpp"
  "$creditc" "$root/dsl_examples/$k.credit" --cta-threads="$threads" --report=json > "$gen/$k.report.json"
  echo "CREDIT_WORKLOAD($k)" >> "$gen/credit_gpu_registry.inc"
done
cp -r /usr/include/catch2 "$out/include/"
git -C "$root" describe --always --dirty --abbrev=40 > "$gen/commit" 2>/dev/null || true
echo "$threads" > "$gen/cta_threads"
# Issue 6's examples (scripts/gpu-examples.sh): the PyTorch extension's generated
# files, and the consumer program built from the installed package by
# scripts/test-consumer.sh (ctest's consumer-package) when that has run.
CREDITC="$creditc" "$root/examples/pytorch/prepare.sh" "$out/pytorch" > /dev/null
cp "$gen/commit" "$out/commit"
consumer="${BUILD_DIR:-$(dirname "$(dirname "$creditc")")}/consumer-test/build/credit-consumer"
rm -rf "$out/consumer"
if [ -x "$consumer" ]; then
  mkdir -p "$out/consumer" && cp "$consumer" "$out/consumer/"
else
  echo "note: no $consumer (run scripts/test-consumer.sh first); the consumer's GPU run is skipped"
fi
echo "prepared $out (carry it: run(carry=['.gpu']))"
