#!/usr/bin/env bash
# Fuzzes every parser with libFuzzer under AddressSanitizer + UndefinedBehaviorSanitizer:
# one target per parser in fuzz/ (safetensors, checkpoint index, config.json,
# generation_config.json, tokenizer files, tokenizer encode/decode, datasets, server requests,
# trainer_state.json). Builds build-fuzz with clang, writes the seed corpora, runs each target
# for the given time, and prints per target: executions, coverage (cov: edges, ft: features)
# and findings. A crash, sanitizer report, leak, hang (-timeout) or huge allocation
# (-malloc_limit_mb) leaves its input in build-fuzz/artifacts/ and makes the script exit 1.
#
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#   SECONDS_PER_TARGET  default 60; 0 only replays the seeds and fuzz/regressions/
#   TARGET              e.g. safetensors or safetensors_fuzzer; default: every fuzz/*_fuzzer.cpp
# Environment: PRECIS_FUZZ_BUILD (default build-fuzz), PRECIS_FUZZ_BUILD_JOBS (default nproc).
# The corpus each target grows is kept in build-fuzz/corpus/<target>/ between runs; inputs that
# once crashed live in fuzz/regressions/<target>/ and are replayed on every run.
# Exit: 0 clean, 1 a finding, 77 no clang (scripts/setup.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
seconds=${1:-60}
shift || true
build=${PRECIS_FUZZ_BUILD:-build-fuzz}
jobs=${PRECIS_FUZZ_BUILD_JOBS:-$(nproc)}

if ! command -v clang++ > /dev/null; then
  echo "fuzz: clang++ not found (scripts/setup.sh installs clang and libomp-14-dev)" >&2
  exit 77
fi

echo "== build ($build, clang, ASan+UBSan+libFuzzer)"
start=$SECONDS
CC=clang CXX=clang++ cmake -S . -B "$build" -DPRECIS_FUZZ=ON -DCMAKE_BUILD_TYPE=None > /dev/null
cmake --build "$build" -j "$jobs" > "$build/build.log" 2>&1 || { tail -40 "$build/build.log"; exit 1; }
echo "built in $((SECONDS - start)) s"

all_targets=()
for f in fuzz/*_fuzzer.cpp; do all_targets+=("$(basename "$f" .cpp)"); done
targets=()
for t in "${@:-${all_targets[@]}}"; do targets+=("${t%_fuzzer}_fuzzer"); done

# Seeds: what precis writes (make_fuzz_seeds), and, when the oracle's Python is set up, what
# Hugging Face writes for tiny checkpoints like the tests' (fuzz/make_hf_seeds.py).
seeds=$build/seeds
rm -rf "$seeds"
"$build/fuzz/make_fuzz_seeds" "$seeds"
tokenizer_dirs=""
if [ -x .venv/bin/python ] && .venv/bin/python -c 'import transformers, sentencepiece' 2> /dev/null; then
  if .venv/bin/python fuzz/make_hf_seeds.py "$seeds" > "$build/hf_seeds.log" 2>&1; then
    tokenizer_dirs=$(cat "$seeds/tokenizer_dirs")
  else
    echo "fuzz: Hugging Face seeds failed (see $build/hf_seeds.log); using precis's own" >&2
  fi
else
  echo "fuzz: no .venv with transformers: Hugging Face seeds skipped"
fi
export PRECIS_FUZZ_TOKENIZERS=$tokenizer_dirs

# Longest input per target: room for the seeds, small enough to keep executions fast.
max_len() {
  case $1 in
    tokenizer_json_fuzzer | bpe_files_fuzzer | spiece_model_fuzzer) echo 65536 ;;
    safetensors_fuzzer | generation_config_fuzzer | dataset_fuzzer | trainer_state_fuzzer) echo 8192 ;;
    *) echo 4096 ;;
  esac
}

artifacts=$build/artifacts
mkdir -p "$artifacts"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:allocator_may_return_null=0:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
export OMP_NUM_THREADS=1
failed=()
printf '%-28s %10s %8s %8s %8s  %s\n' target executions cov ft corpus result
for t in "${targets[@]}"; do
  exe=$build/fuzz/$t
  [ -x "$exe" ] || { echo "fuzz: no target $t (have: ${all_targets[*]})" >&2; exit 2; }
  corpus=$build/corpus/$t
  mkdir -p "$corpus" "$seeds/$t"
  dirs=("$corpus" "$seeds/$t")
  [ -d "fuzz/regressions/$t" ] && dirs+=("fuzz/regressions/$t")
  log=$build/logs/$t.log
  mkdir -p "$build/logs"
  rc=0
  # -runs=0 with max_total_time 0 would fuzz forever: replaying only is -runs=0.
  limit=(-max_total_time="$seconds")
  [ "$seconds" = 0 ] && limit=(-runs=0)
  "$exe" "${limit[@]}" -max_len="$(max_len "$t")" -timeout=10 -rss_limit_mb=2048 \
    -malloc_limit_mb=1024 -print_final_stats=1 \
    -artifact_prefix="$artifacts/$t-" "${dirs[@]}" > "$log" 2>&1 || rc=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)
  last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1 || true)
  cov=$(sed -nE 's/.*cov: ([0-9]+).*/\1/p' <<< "$last")
  ft=$(sed -nE 's/.*ft: ([0-9]+).*/\1/p' <<< "$last")
  units=$(sed -nE 's/.*corp: ([0-9]+)\/.*/\1/p' <<< "$last")
  result=ok
  if [ "$rc" != 0 ]; then
    result="FAILED (exit $rc): $(grep -E '^==[0-9]+==ERROR|SUMMARY|precis fuzz:|^MS:|Test unit written' "$log" | head -3 | tr '\n' ' ')"
    failed+=("$t")
  fi
  printf '%-28s %10s %8s %8s %8s  %s\n' "$t" "${execs:-?}" "${cov:-?}" "${ft:-?}" "${units:-?}" "$result"
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: findings in ${failed[*]}; inputs in $artifacts/, logs in $build/logs/" >&2
  echo "fuzz: reproduce with $build/fuzz/<target> <input>" >&2
  exit 1
fi
