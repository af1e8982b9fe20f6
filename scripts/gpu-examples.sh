#!/usr/bin/env bash
# One device call for issue 6's GPU parts (docs/usage.md):
#   1. examples/pytorch: the torch extension built there from the files that
#      examples/pytorch/prepare.sh generated here (.gpu/pytorch), and its test
#      against eager PyTorch (--require-gpu: no GPU is a failure);
#   2. examples/cmake-consumer: the program that scripts/test-consumer.sh built here
#      from the INSTALLED package (credit_add_kernel ran creditc at build time),
#      copied to .gpu/consumer/ by scripts/gpu-prepare.sh -- the GPU machine has no
#      MLIR, so creditc cannot run there; the program needs only the CUDA runtime.
# Logs land in $OUT/credit-examples.tar.gz.
#   run(command="scripts/gpu-examples.sh", carry=[".gpu"], timeout_s=600)
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
log=/tmp/credit-examples
rm -rf "$log"; mkdir -p "$log"
pack() { tar -C /tmp -czf "${OUT:-/tmp}/credit-examples.tar.gz" credit-examples; }
trap pack EXIT
status=0
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$log/device.txt"
cp "$root/.gpu/commit" "$log/" 2>/dev/null

echo "=== examples/pytorch"
if [ -d "$root/.gpu/pytorch" ]; then
  start=$(date +%s)
  TORCH_EXTENSIONS_DIR=/tmp/torch-ext CREDIT_TORCH_GEN="$root/.gpu/pytorch" \
    timeout 400 python3 -X faulthandler -u "$root/examples/pytorch/test_credit_torch.py" --require-gpu > "$log/pytorch.log" 2>&1
  rc=$?
  cat "$log/pytorch.log" | tail -60
  echo "pytorch test exit $rc after $(( $(date +%s) - start )) s" | tee -a "$log/pytorch.log"
  [ $rc -ne 0 ] && status=1
else
  echo "no .gpu/pytorch: run examples/pytorch/prepare.sh here first"; status=1
fi

echo "=== examples/cmake-consumer"
if [ -x "$root/.gpu/consumer/credit-consumer" ]; then
  timeout 120 "$root/.gpu/consumer/credit-consumer" > "$log/consumer.log" 2>&1
  rc=$?
  cat "$log/consumer.log"
  echo "consumer exit $rc" | tee -a "$log/consumer.log"
  [ $rc -ne 0 ] && status=1
else
  echo "no .gpu/consumer/credit-consumer: run scripts/gpu-prepare.sh here first"; status=1
fi
exit $status
