#!/usr/bin/env bash
# Sets up (scripts/setup.sh) and runs every test: GoogleTest unit tests and the oracle
# tests that run Hugging Face transformers live beside precis. Skipped tests are listed at
# the end by name with their reason; under CI=true a skip is a failure (setup installs
# everything the suite needs, so a skip there would hide a missing install step).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# test_debian reads apt's English package descriptions, which Debian's container images
# do not fetch (Acquire::Languages "none").
if ! ls /var/lib/apt/lists/*_i18n_Translation-en* > /dev/null 2>&1; then
  echo "test: fetching apt's English package descriptions for test_debian"
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get -o Acquire::Languages=en update -qq
fi
cd build
rc=0
ctest --output-on-failure -j "$(nproc)" --output-junit "$PWD/Testing/junit.xml" "$@" || rc=$?
python3 ../scripts/list_skips.py Testing/junit.xml || rc=1
exit $rc
