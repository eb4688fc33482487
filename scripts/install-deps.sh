#!/usr/bin/env bash
# Installs jx's build dependencies from Debian packages; skips what is already installed.
set -euo pipefail

# clang-19, libclang-rt-19-dev (libFuzzer) and libomp-19-dev (OpenMP for clang's configure): the
# fuzz targets (make test-fuzz, make fuzz).
packages=(cmake ninja-build make g++ ccache binutils llvm-19-dev libfmt-dev libgtest-dev libbenchmark-dev
  libopenblas-dev libhwy-dev clang-19 libclang-rt-19-dev libomp-19-dev libopenmpi-dev openmpi-bin
  nlohmann-json3-dev graphviz)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "installing: ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
