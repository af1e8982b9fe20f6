#!/usr/bin/env bash
# One device call: T_B of the six examples' non-clustered kernels
# (credit-calibrate --time-baseline, i.e. credit::timeBaselineKernel, the code
# behind `creditc predict --measure-tB`), built there with CMake alone from
# the files scripts/gpu-prepare.sh generated. Table in $OUT/time-baseline.txt.
#   run(command="scripts/gpu-time-baseline.sh", carry=[".gpu"], timeout_s=600)
# CREDIT_BASELINE_N (default 4096,16384,65536,262144).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${OUT:-/tmp}"
cmake -S "$root" -B /tmp/b-tb -G Ninja -DCMAKE_BUILD_TYPE=Release -DCREDIT_BUILD_COMPILER=OFF \
  -DCREDIT_BUILD_TESTS=OFF > /tmp/b-tb.log 2>&1 && ninja -C /tmp/b-tb credit-calibrate >> /tmp/b-tb.log 2>&1 ||
  { tail -30 /tmp/b-tb.log; exit 1; }
files=()
for k in layernorm wvar_bwd pearson_bwd softmax_logits_bwd lars quant_int8; do
  m=4096; [ $k = layernorm ] && m=2048      # the benchmark's M
  files+=(--time-baseline "$root/.gpu/gen/$k.cu@$m")
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/time-baseline.txt"
cat "$root/.gpu/commit" >> "$out/time-baseline.txt" 2>/dev/null
/tmp/b-tb/bin/credit-calibrate "${files[@]}" --ctrl-N "${CREDIT_BASELINE_N:-4096,16384,65536,262144}" 2>&1 |
  tee -a "$out/time-baseline.txt"
exit "${PIPESTATUS[0]}"
