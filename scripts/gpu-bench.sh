#!/usr/bin/env bash
# The benchmark on the GPU machine (docs/performance.md). Needs python3 with torch (CUDA) and
# triton, the CUDA toolkit (nvcc) and the generated files of the workloads.
#
#   scripts/gpu-bench.sh --gen DIR [--dtype fp32|bf16] [--out DIR] [--cache-dir DIR] [--resume FILE]
#                        [-- run.py options]
#       the benchmark of record: bench/run.py into <out>/bench.json (records of --resume FILE, e.g.
#       docs/results/bench.json, are kept and not measured again), then bench/report.py: <out>/bench.md,
#       <out>/bench-speedup.png, <out>/bench-copy.png and the headline figures.
#       --dtype bf16: the bf16 workload set (rmsnorm_bf16, layernorm_bf16, softmax_bf16,
#       cross_entropy_fwd_bf16, cross_entropy_bwd_bf16) into <out>/bench-bf16.json, reported as
#       <out>/bench-bf16.md and its plots (file of record: docs/results/bench-bf16.json).
#   scripts/gpu-bench.sh --compare NEW_DIR OLD_DIR [--out DIR] [-- compare_gen.py options]
#       two sets of generated files of the same kernels, timed against each other.
#   scripts/gpu-bench.sh --selfcheck [-- selfcheck.py options]
#       every peer (eager, torch.compile, every Triton config) against the float64 reference.
#
# Defaults: --out bench-out, --cache-dir ${XDG_CACHE_HOME:-$HOME/.cache}/creditc-bench (torch.compile's and
# Triton's caches, the Triton autotuning choices, the built libraries: a second run compiles and
# tunes nothing). PYTHON selects the interpreter (default python3).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
py="${PYTHON:-python3}"
mode=bench gen="" new="" old="" out="bench-out" resume=() dtype=fp32
cache="${XDG_CACHE_HOME:-$HOME/.cache}/creditc-bench"

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2; exit 1; }
die() { echo "gpu-bench: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
  case "$1" in
    --gen) [ $# -ge 2 ] || usage; gen="$2"; shift 2 ;;
    --out) [ $# -ge 2 ] || usage; out="$2"; shift 2 ;;
    --cache-dir) [ $# -ge 2 ] || usage; cache="$2"; shift 2 ;;
    --resume) [ $# -ge 2 ] || usage; resume+=(--resume "$2"); shift 2 ;;
    --dtype) [ $# -ge 2 ] || usage; dtype="$2"; shift 2 ;;
    --compare) [ $# -ge 3 ] || usage; mode=compare; new="$2"; old="$3"; shift 3 ;;
    --selfcheck) mode=selfcheck; shift ;;
    --) shift; break ;;
    -h|--help) usage ;;
    *) echo "gpu-bench: unknown argument '$1'" >&2; usage ;;
  esac
done

case "$dtype" in
  fp32|bf16) ;;
  *) die "--dtype $dtype: fp32 or bf16" ;;
esac
[ "$dtype" = fp32 ] || [ "$mode" = bench ] || die "--dtype $dtype: only for the benchmark of record"
command -v "$py" > /dev/null || die "$py not found (set PYTHON)"
"$py" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2> /dev/null \
  || die "$py cannot import torch with a CUDA device"
"$py" -c "import triton" 2> /dev/null || die "$py cannot import triton"
if [ "$mode" != selfcheck ]; then
  command -v nvcc > /dev/null || die "nvcc not found (add the CUDA toolkit's bin directory to PATH)"
fi
mkdir -p "$out"
export PYTHONUNBUFFERED=1

case "$mode" in
  bench)
    [ -n "$gen" ] || die "--gen DIR is required (the generated <workload>.cu files)"
    [ -d "$gen" ] || die "--gen $gen: not a directory"
    # fp32 keeps the names of the file of record; another dtype gets its own file and report.
    name=bench; [ "$dtype" = fp32 ] || name="bench-$dtype"
    status=0
    "$py" "$root/bench/run.py" --gen "$gen" --dtype "$dtype" --results "$out/$name.json" --cache-dir "$cache" \
      ${resume[@]+"${resume[@]}"} "$@" || status=$?
    if [ -f "$out/$name.json" ]; then
      "$py" "$root/bench/report.py" "$out/$name.json" --out "$out" --dtype "$dtype" --name "$name" \
        || [ $status -ne 0 ] || status=$?
    fi
    exit $status
    ;;
  compare)
    [ -d "$new" ] || die "--compare: $new is not a directory"
    [ -d "$old" ] || die "--compare: $old is not a directory"
    exec "$py" "$root/bench/compare_gen.py" --new "$new" --old "$old" --out "$out/compare.json" \
      --lib-dir "$cache/compare-libs" "$@"
    ;;
  selfcheck)
    exec "$py" "$root/bench/peers/selfcheck.py" "$@"
    ;;
esac
