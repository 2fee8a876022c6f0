#!/usr/bin/env bash
# The tests under sanitizers, each build in its own directory, with clang (-O1, line tables):
#   asan  AddressSanitizer + UndefinedBehaviorSanitizer (build-asan; any report fails): every
#         unit test, then the end-to-end oracle tests driving the sanitized precis (train,
#         resume, failures, eval, generate, serve, tokenizers, datasets, checkpoints).
#   tsan  ThreadSanitizer (build-tsan) with LLVM's OpenMP runtime and its Archer tool, so that
#         OpenMP regions are checked too (libgomp cannot be): every unit test with 4 OpenMP
#         threads (tokenizer batches, BPE training, dataset reading, kernels, gradient buckets,
#         the server's batcher), then `precis serve` end to end under concurrent and hostile
#         requests, and a short `precis train` (data loading, training, checkpointing).
# Usage: scripts/sanitize.sh [asan|tsan|all]   (after scripts/setup.sh; CI runs "all")
# Environment: PRECIS_SANITIZE_JOBS (default nproc).
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:-all}
jobs=${PRECIS_SANITIZE_JOBS:-$(nproc)}
root=$PWD
python=$root/.venv/bin/python

if ! command -v clang++ > /dev/null; then
  echo "sanitize: clang++ not found (scripts/setup.sh installs clang and libomp-14-dev)" >&2
  exit 77
fi

configure() {  # dir, sanitizer flags
  CC=clang CXX=clang++ cmake -S . -B "$1" -DCMAKE_BUILD_TYPE=None -DPRECIS_NATIVE=OFF \
    -DPRECIS_CUDA=OFF -DPRECIS_UNITY_BUILD=ON \
    -DCMAKE_CXX_FLAGS="-O1 -gline-tables-only -fno-omit-frame-pointer $2" \
    -DCMAKE_EXE_LINKER_FLAGS="$2" > /dev/null
}

build() {  # dir, targets...
  local dir=$1 start=$SECONDS
  shift
  cmake --build "$dir" -j "$jobs" --target "$@" > "$dir/build.log" 2>&1 || { tail -40 "$dir/build.log"; exit 1; }
  echo "built $dir in $((SECONDS - start)) s"
}

# The unit tests in `jobs` processes at once (GoogleTest's shards: test i runs in shard i mod
# jobs), as the emulated models' tests each keep about one core busy; all must pass. Each
# shard writes its own log (dir/unit-shard-N.log); a failing shard's report and the test it
# was running are printed last, where a log cut in the middle still shows them.
unit_tests() {  # build dir
  local pids=() shard rc=0 log
  for ((shard = 0; shard < jobs; shard++)); do
    GTEST_TOTAL_SHARDS=$jobs GTEST_SHARD_INDEX=$shard "$1/tests/precis_unit_tests" \
      > "$1/unit-shard-$shard.log" 2>&1 &
    pids+=($!)
  done
  for ((shard = 0; shard < jobs; shard++)); do
    log=$1/unit-shard-$shard.log
    if wait "${pids[$shard]}"; then
      echo "unit tests, shard $shard of $jobs: $(grep -E '^\[  PASSED  \]' "$log" || echo passed)"
      continue
    fi
    rc=1
    echo "== unit tests, shard $shard of $jobs failed in $1 (its whole log: $log); its last lines:"
    tail -n 60 "$log"
    echo "== the reports and failures in it:"
    grep -E -A 12 'WARNING: ThreadSanitizer|ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer' \
      "$log" | head -n 120 || true
    grep -E '^\[  FAILED  \]|: Failure$' "$log" | head -n 40 || true
    echo "== the last test it started: $(grep -E '^\[ RUN      \]' "$log" | tail -n 1)"
  done
  [ $rc = 0 ] || { echo "sanitize: unit tests failed in $1" >&2; exit 1; }
}

oracle() {  # build dir, test files...
  local dir=$1 rc=0
  shift
  (cd tests/oracle && PRECIS_BUILD_DIR="$root/$dir" "$python" -m pytest -q -p no:cacheprovider "$@") || rc=$?
  # 77: every test passed or skipped for a reason CI excuses (conftest.py; the skips are listed
  # above), as ctest reads it. A CPU without AVX-512 skips test_train_cuda's bf16 references.
  [ "$rc" = 77 ] && rc=0
  return "$rc"
}

# OpenBLAS's own threads run in libgomp, which no sanitizer sees: one thread.
export OPENBLAS_NUM_THREADS=1

if [ "$which" = asan ] || [ "$which" = all ]; then
  echo "== AddressSanitizer + UndefinedBehaviorSanitizer (build-asan)"
  start=$SECONDS
  configure build-asan "-fsanitize=address,undefined -fno-sanitize-recover=all"
  # The programs the tests run (not the benchmarks).
  build build-asan precis precis_unit_tests bart_probe t5_probe spiece_probe unigram_probe \
    dataset_tool safetensors_tool mpi_collectives_probe kernel_probe tensorboard_tool \
    training_args_tool precis_emulated
  # MPI, OpenBLAS and the OpenMP runtimes keep allocations for the life of the process:
  # suppressed by library (scripts/sanitizers/lsan.supp).
  export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1:detect_stack_use_after_return=0"
  export LSAN_OPTIONS="suppressions=$root/scripts/sanitizers/lsan.supp:print_suppressions=0"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
  export PRECIS_SANITIZER=address OMP_NUM_THREADS=2
  unit_tests build-asan
  # Every oracle test file (ctest gives each one OpenMP thread), but the browser's. Those that
  # start MPI ranks unwind each allocation in full: Open MPI's plugins have no frame pointers,
  # and their allocations must be traced back to the library to be suppressed.
  mpi='oracle\.(test_train_distributed|test_t5_train|test_failures|test_deploy_manifests)$'
  tokenizers='oracle\.(test_tokenizer|test_added_tokens|test_t5_tokenizer_json|test_tokenizer_train)$'
  # test_sagemaker_hosts starts its ranks through sshd, which hands them none of the sanitizer
  # options set here (LeakSanitizer would report Open MPI's allocations in them): it runs in
  # the plain build only.
  # test_hf_semantics runs in the plain build only: its time is the two transformers releases'
  # (torchrun of each, a second Python), and its precis runs take the paths the files here
  # sanitize (generate, tokenize, train on one and two ranks).
  # The tokenizer files (test_tokenizer, test_added_tokens, test_t5_tokenizer_json,
  # test_tokenizer_train: 320 s of the 440 s the oracle files took here) run in the plain build
  # only: their precis side is the tokenizers, which fuzz.parsers runs under ASan+UBSan on
  # arbitrary files and texts (tokenizer.json, vocab and merges, spiece.model, encode and
  # decode), and whose unit tests (test_tokenizer, test_bpe_trainer) run under ASan above.
  # test_train_cuda, the CLI over the kernel emulator, runs below (fp32, bf16 and fp16
  # training, BART's and T5's mixed-precision streams, dropout and resume, evaluation and
  # generation, --device's errors), T5's bf16 stream once (v1.1: gated and untied, the more
  # code of the two; v1.0 runs in the plain build).
  # test_train_distributed_cuda, the emulated GPUs under mpirun, runs below in part: its
  # GPU communicator, the emulator's NCCL over MPI and the watchdog's abort.
  (cd build-asan && ctest -j "$jobs" -R '^oracle\.' \
     -E "test_serve_browser|test_train_cuda|test_train_distributed_cuda|test_sagemaker_hosts|test_hf_semantics|$tokenizers|$mpi" \
     --output-on-failure)
  # The emulated CLI (one core) beside the MPI tests.
  oracle build-asan test_train_cuda.py -k "not (t5_bf16 and v1_0)" &
  emulated=$!
  (cd build-asan && ASAN_OPTIONS="$ASAN_OPTIONS:fast_unwind_on_malloc=0" \
     ctest -j "$jobs" -R "$mpi" --output-on-failure)
  ASAN_OPTIONS="$ASAN_OPTIONS:fast_unwind_on_malloc=0" oracle build-asan test_train_distributed_cuda.py \
    -k "bit_for_bit and 2 or hangs and SIGSTOP"
  wait $emulated || { echo "sanitize: test_train_cuda failed under asan" >&2; exit 1; }
  unset ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS
  echo "asan: clean in $((SECONDS - start)) s"
fi

if [ "$which" = tsan ] || [ "$which" = all ]; then
  echo "== ThreadSanitizer (build-tsan, OpenMP checked by Archer)"
  start=$SECONDS
  configure build-tsan "-fsanitize=thread"
  build build-tsan precis precis_unit_tests precis_emulated
  archer=$(clang++ -print-resource-dir)/../../libarcher.so
  [ -f "$archer" ] || archer=$(dirname "$(clang++ -print-file-name=libomp.so)")/libarcher.so
  [ -f "$archer" ] || { echo "sanitize: no libarcher.so beside clang's libomp" >&2; exit 1; }
  export OMP_TOOL_LIBRARIES=$archer
  export ARCHER_OPTIONS="verbose=0"
  export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:ignore_noninstrumented_modules=1"
  export PRECIS_SANITIZER=thread OMP_NUM_THREADS=4
  unit_tests build-tsan
  oracle build-tsan test_serve_load.py test_serve.py "test_train.py::test_resume_is_bit_identical"
  unset TSAN_OPTIONS OMP_TOOL_LIBRARIES
  echo "tsan: clean in $((SECONDS - start)) s"
fi
