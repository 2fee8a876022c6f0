#!/usr/bin/env bash
# Sets up (scripts/setup.sh) and runs every test: GoogleTest unit tests and the oracle
# tests that run Hugging Face transformers live beside precis.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cd build
ctest --output-on-failure -j "$(nproc)" "$@"
