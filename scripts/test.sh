#!/usr/bin/env bash
# Second command: build (if needed) and run the whole test suite: Catch2 units
# and the lit + FileCheck suite, through ctest. With --sanitize, the same suite
# is built with AddressSanitizer + UBSan into build-asan/ and run there.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ "${1:-}" = "--sanitize" ]; then
  export BUILD_DIR="${BUILD_DIR:-$root/build-asan}"
  export BUILD_TYPE=RelWithDebInfo
  export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
  "$root/scripts/build.sh" -DCREDIT_SANITIZE=ON
else
  export BUILD_DIR="${BUILD_DIR:-$root/build}"
  "$root/scripts/build.sh"
fi
cd "$BUILD_DIR"
ctest --output-on-failure -j "${JOBS:-$(nproc)}"
