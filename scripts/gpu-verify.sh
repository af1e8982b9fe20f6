#!/usr/bin/env bash
# One device call: the GPU test suite (tests/gpu, every variant against the
# float64 reference, and the [dispatch] test of the model-driven dispatch) for
# each generated set in .gpu/ given as arguments (default: gen), then issue 6's
# examples (scripts/gpu-examples.sh). Logs in $OUT/credit-verify.tar.gz.
#   run(command="scripts/gpu-verify.sh gen genfast", carry=[".gpu"], timeout_s=600)
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
log=/tmp/credit-verify
rm -rf "$log"; mkdir -p "$log"
pack() { tar -C /tmp -czf "${OUT:-/tmp}/credit-verify.tar.gz" credit-verify; }
trap pack EXIT
status=0
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$log/device.txt"
cp "$root/.gpu/commit" "$log/" 2>/dev/null
for set in "${@:-gen}"; do
  echo "=== tests/gpu on .gpu/$set"
  b=/tmp/b-verify-$set
  cmake -S "$root/tests/gpu" -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCREDIT_GEN_DIR="$root/.gpu/$set" \
    -DCREDIT_CATCH2_INCLUDE_DIR="$root/.gpu/include" > "$log/$set-configure.log" 2>&1 &&
    ninja -C "$b" > "$log/$set-build.log" 2>&1 || { tail -30 "$log/$set-build.log"; status=1; continue; }
  "$b/credit-gpu-tests" > "$log/$set-tests.txt" 2>&1 || status=1
  grep -E "launches checked|^dispatch|passed|failed|FAILED" "$log/$set-tests.txt" | tail -40
done
"$root/scripts/gpu-examples.sh" || status=1
cp /tmp/credit-examples/* "$log/" 2>/dev/null
exit $status
