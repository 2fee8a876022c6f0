#!/usr/bin/env bash
# The tests under sanitizers, each in its own build directory:
#   asan  AddressSanitizer + UndefinedBehaviorSanitizer (any report fails): the unit tests,
#         then the end-to-end oracle tests driving the sanitized precis (train, resume,
#         failures, eval, generate, serve, tokenizers, datasets, checkpoints).
#   tsan  ThreadSanitizer: the unit tests of the threaded parts (server batching, tokenizer
#         batches and BPE training, data loading, gradient buckets).
# Usage: scripts/sanitize.sh [asan|tsan|all]   (after scripts/setup.sh; CI runs "all")
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:-all}
jobs=$(nproc)
root=$PWD

# (-Wno-maybe-uninitialized: GCC 12 warns falsely inside <regex> when instrumenting.)
configure() {  # dir, sanitizer flags
  cmake -S . -B "$1" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPRECIS_NATIVE=OFF -DPRECIS_CUDA=OFF \
    -DCMAKE_CXX_FLAGS="$2 -fno-omit-frame-pointer -Wno-maybe-uninitialized" -DCMAKE_EXE_LINKER_FLAGS="$2" > /dev/null
}

# Threads beyond one only where the test is about threads: libgomp is not instrumented.
export OMP_NUM_THREADS=1

if [ "$which" = asan ] || [ "$which" = all ]; then
  echo "== AddressSanitizer + UndefinedBehaviorSanitizer (build-asan)"
  configure build-asan "-fsanitize=address,undefined -fno-sanitize-recover=all"
  # The programs the tests run (not the benchmarks).
  cmake --build build-asan -j "$jobs" --target precis precis_unit_tests dataset_tool safetensors_tool \
    spiece_probe mpi_collectives_probe
  # MPI and OpenBLAS keep allocations for the life of the process: suppressed by library.
  export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1:detect_stack_use_after_return=0"
  export LSAN_OPTIONS="suppressions=$root/scripts/sanitizers/lsan.supp:print_suppressions=0"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
  (cd build-asan && ctest -j "$jobs" -E '^oracle\.' --output-on-failure)
  (cd tests/oracle && PRECIS_BUILD_DIR="$root/build-asan" "$root/.venv/bin/python" -m pytest -q -p no:cacheprovider \
     test_train.py test_t5_train.py test_failures.py test_eval_loss.py test_train_predict.py test_generate.py \
     test_t5_generate.py test_t5_cli.py test_serve.py test_tokenizer.py test_t5_tokenizer.py test_dataset.py \
     test_safetensors.py test_train_distributed.py)
fi

if [ "$which" = tsan ] || [ "$which" = all ]; then
  echo "== ThreadSanitizer (build-tsan)"
  configure build-tsan "-fsanitize=thread"
  cmake --build build-tsan -j "$jobs" --target precis_unit_tests
  export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1"
  build-tsan/tests/precis_unit_tests \
    --gtest_filter='ServeBatcher*:Tokenizer*:BpeTrainer*:DatasetFiles*:DataParallel*:Subprocess*'
fi
