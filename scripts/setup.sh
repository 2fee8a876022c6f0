#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine for precis: system packages, the oracle's Python
# environment (.venv, for tests and benchmarks only) and a Release build in build/.
# Safe to run again: it only does what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake pkg-config git git-lfs
          libopenblas-openmp-dev libopenmpi-dev openmpi-bin
          nlohmann-json3-dev libyaml-cpp-dev libcli11-dev libcpp-httplib-dev libsentencepiece-dev
          libgtest-dev libgmock-dev libbenchmark-dev
          python3 python3-venv python3-numpy python3-torch liblz4-dev lz4
          chromium chromium-driver clang libomp-14-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ "${PRECIS_SKIP_VENV:-0}" != 1 ]; then
  if [ ! -x .venv/bin/python ]; then
    # Debian's python3-torch (CPU) is seen through --system-site-packages.
    /usr/bin/python3 -m venv --system-site-packages .venv
  fi
  if ! cmp -s requirements-test.txt .venv/.requirements-installed; then
    .venv/bin/pip install -q --disable-pip-version-check -r requirements-test.txt
    cp requirements-test.txt .venv/.requirements-installed
  fi
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build -j "$(nproc)"
