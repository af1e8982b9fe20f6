#!/usr/bin/env bash
# First command on a fresh machine: install dependencies, build, and run creditc
# on a bundled example (its static report).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
build="${BUILD_DIR:-$root/build}"
echo
echo "\$ creditc dsl_examples/layernorm.credit --report --N=65536"
"$build/bin/creditc" "$root/dsl_examples/layernorm.credit" --report --N=65536
