#!/usr/bin/env bash
# One device call: Nsight Compute on a few clustered kernels (the shapes whose
# bandwidth the results discuss), then a short re-run of the benchmark at one N.
# CREDIT_PROFILE_CASES: "workload:N:variant:P:protocol[:gendir[:tag]] ..." (default below; gendir
# defaults to .gpu/gen, e.g. a directory of patched files to compare against it).
#   run(command="scripts/gpu-profile.sh", carry=[".gpu"], timeout_s=600)
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${OUT:-/tmp/credit-profile-out}"
mkdir -p "$out"
cases="${CREDIT_PROFILE_CASES:-pearson_bwd:262144:cluster:16:1 softmax_logits_bwd:262144:cluster:16:1 pearson_bwd:131072:cluster:8:1 softmax_logits_bwd:65536:cluster:8:1}"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$out/device.txt"
# The commit the carried kernels were generated at (the device copy's git HEAD may be older).
cp "$root/.gpu/gen/commit" "$out/commit.txt" 2>/dev/null || git -C "$root" rev-parse HEAD > "$out/commit.txt"
for c in $cases; do
  IFS=: read -r w n v p proto gen tag <<< "$c"
  gen="${gen:-.gpu/gen}"
  f="$out/ncu-$w-$n-$v-P$p-$proto${tag:+-$tag}.txt"
  echo "=== $c"
  timeout 150 ncu --kernel-name regex:credit_ --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --section MemoryWorkloadAnalysis \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,sm__cycles_active.avg,sm__cycles_active.min,sm__cycles_elapsed.avg \
    python3 "$root/bench/profile_one.py" --gen "$root/$gen" --lib-dir "/tmp/credit-profile/${tag:-gen}" \
      --workload "$w" --N "$n" --variant "$v" --P "$p" --protocol "$proto" --reps 2 > "$f" 2>&1
  grep -E "Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Cluster|Grid Size|Block Size|Registers|Waves|dram__bytes|lts__t_sector_hit|sm__cycles" "$f" | head -30
done
if [ -n "${CREDIT_PROFILE_BENCH_N:-}" ]; then
  echo "=== benchmark N=${CREDIT_PROFILE_BENCH_N} (no peers)"
  PYTHONUNBUFFERED=1 timeout 200 python3 "$root/bench/run_bench.py" --gen "$root/.gpu/gen" --out "$out/bench" \
    --N "$CREDIT_PROFILE_BENCH_N" --no-peers ${CREDIT_PROFILE_BENCH_ARGS:-} > "$out/bench.log" 2>&1
  grep -E "cluster_mbarrier|staged|reread" "$out/bench.log" | head -80
fi
