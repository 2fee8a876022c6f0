#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine for precis: system packages, the oracle's Python
# environment (.venv, for tests and benchmarks only) and a Release build in build/.
# Safe to run again: it only does what is missing.
#   scripts/setup.sh             everything: the tests, their oracle, the benchmarks
#   scripts/setup.sh --main-job  only what `precis` needs to build and run (scripts/demo.sh):
#                                the compiler and the libraries, no Python, torch, browser or
#                                clang, and only the precis target
set -euo pipefail
cd "$(dirname "$0")/.."
main_job=0
[ "${1:-}" = --main-job ] && main_job=1

# What libprecis and the CLI link (cmake/dependencies.cmake), and mpirun for data parallelism.
packages=(build-essential cmake pkg-config
          libopenblas-openmp-dev libopenmpi-dev openmpi-bin
          nlohmann-json3-dev libyaml-cpp-dev libcli11-dev libcpp-httplib-dev libsentencepiece-dev
          liblz4-dev)
if [ "$main_job" = 0 ]; then
  packages+=(git git-lfs libgtest-dev libgmock-dev libbenchmark-dev
             python3 python3-venv python3-numpy python3-torch lz4
             chromium chromium-driver clang libomp-14-dev
             openssh-server openssh-client)
  packages+=(python3-dev)  # the Python package's extension module (python/, tests/python)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
# apt's English package descriptions are the main job's data (and test_debian's); Debian's
# container images do not fetch them (Acquire::Languages "none"), and a plain update drops them.
update=(apt-get -o Acquire::Languages=en update -qq)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $sudo_cmd "${update[@]}"
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
elif ! ls /var/lib/apt/lists/*_i18n_Translation-en* > /dev/null 2>&1; then
  echo "setup: fetching apt's English package descriptions"
  $sudo_cmd "${update[@]}" || echo "setup: warning: could not fetch them; precis data debian needs them" >&2
fi

# The SageMaker two-host tests (tests/oracle/sagemaker_hosts.py) run hosts algo-1 and algo-2 on
# loopback addresses, each with its own sshd; SageMaker's DNS would name them.
if [ "$main_job" = 0 ] && ! getent hosts algo-1 > /dev/null; then
  echo "setup: adding algo-1 (127.0.0.2) and algo-2 (127.0.0.3) to /etc/hosts for the SageMaker tests"
  printf '127.0.0.2 algo-1\n127.0.0.3 algo-2\n' | $sudo_cmd tee -a /etc/hosts > /dev/null
fi

if [ "$main_job" = 1 ]; then
  # A build/ the tests configured keeps its tests and its CUDA setting; a new one is configured
  # without tests, and without the CUDA backend where no GPU can run it (the toolkit alone would
  # add minutes of nvcc to the main job's set-up).
  new_build=()
  if [ ! -f build/CMakeCache.txt ]; then
    new_build=(-DPRECIS_TESTS=OFF)
    nvidia-smi -L > /dev/null 2>&1 || new_build+=(-DPRECIS_CUDA=OFF)
  fi
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${new_build[@]}" > /dev/null
  cmake --build build -j "$(nproc)" --target precis
  exit 0
fi

if [ ! -x .venv/bin/python ]; then
  # Debian's python3-torch (CPU) is seen through --system-site-packages.
  /usr/bin/python3 -m venv --system-site-packages .venv
fi
if ! cmp -s requirements-test.txt .venv/.requirements-installed; then
  .venv/bin/pip install -q --disable-pip-version-check -r requirements-test.txt
  cp requirements-test.txt .venv/.requirements-installed
fi

# The second oracle (requirements-hf5.txt): transformers 5.x on PyPI's torch, in a venv of its
# own; the oracle tests run it as a subprocess beside the first. No pip cache: its wheels are
# about 3.5 GB. It installs (about two minutes, mostly download and unpacking) while the build
# below compiles, and the build waits for it at the end.
if [ ! -x .venv-hf5/bin/python ]; then
  /usr/bin/python3 -m venv .venv-hf5
fi
hf5_install=""
if ! cmp -s requirements-hf5.txt .venv-hf5/.requirements-installed; then
  echo "setup: installing the transformers 5.x oracle (.venv-hf5: PyPI's torch, about 5.6 GB) beside the build"
  (.venv-hf5/bin/pip install -q --disable-pip-version-check --no-cache-dir -r requirements-hf5.txt &&
     cp requirements-hf5.txt .venv-hf5/.requirements-installed) &
  hf5_install=$!
fi

# The Python package's extension module for tests/python, with the venv's nanobind.
python_package=(-DPRECIS_PYTHON_PACKAGE=ON -DPython_EXECUTABLE="$PWD/.venv/bin/python")
# PRECIS_CUDA=ON whatever configured build/ before (the main job's set-up turns it off where no
# GPU is): the nvcc checks and the CUDA build of the CLI are tests wherever a toolkit is.
if [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: no CUDA toolkit at /usr/local/cuda: the nvcc checks (ctest cuda.*), the CUDA build of" \
       "the CLI and precis_gpu_op_tests are left out; the CUDA twins still run in the kernel emulator"
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPRECIS_TESTS=ON -DPRECIS_CUDA=ON "${python_package[@]}" > /dev/null
cmake --build build -j "$(nproc)"
if [ -n "$hf5_install" ] && ! wait "$hf5_install"; then
  echo "setup: installing the transformers 5.x oracle failed (requirements-hf5.txt)" >&2
  exit 1
fi
