#!/usr/bin/env bash
# Installs everything creditc needs from Debian 12 packages. CUDA 13.0 is
# expected at /usr/local/cuda (nvcc, NVRTC); it is not an apt package here.
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
pkgs=(cmake ninja-build g++ python3
      libmlir-19-dev mlir-19-tools llvm-19-dev llvm-19-tools
      libfmt-dev catch2)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if [ ! -x /usr/local/cuda/bin/nvcc ] || [ ! -e /usr/local/cuda/lib64/libnvrtc.so ]; then
  echo "error: the CUDA 13.0 toolkit (nvcc, NVRTC) is expected at /usr/local/cuda" >&2
  exit 1
fi
