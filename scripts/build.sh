#!/usr/bin/env bash
# Configures and builds creditc, the runtime and the tests into ${BUILD_DIR:-build}.
# Extra arguments go to cmake's configure step (e.g. -DCREDIT_SANITIZE=ON).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" "$@" >/dev/null
cmake --build "$build" -j "${JOBS:-$(nproc)}"
