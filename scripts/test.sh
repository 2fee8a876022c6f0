#!/usr/bin/env bash
# Sets up (scripts/setup.sh) and runs every test: GoogleTest unit tests and the oracle
# tests that run Hugging Face transformers live beside precis. Skipped tests are listed at
# the end by name with their reason; under CI=true a skip is a failure (setup installs
# everything the suite needs, so a skip there would hide a missing install step).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cd build
rc=0
ctest --output-on-failure -j "$(nproc)" --output-junit "$PWD/Testing/junit.xml" "$@" || rc=$?
python3 ../scripts/list_skips.py Testing/junit.xml || rc=1
exit $rc
