#!/usr/bin/env bash
# Everything a GPU machine must confirm, as one command of at most 8 minutes, each phase under
# its own timeout, logs in $OUT (the device tool's output folder; out/gpu-check elsewhere):
#   1 probe      the GPU, driver, toolkit, OS and Python packages
#   2 build      the device tests, with nvcc, from what that machine has (no Debian libraries)
#   3 device     the shared math on the GPU against the same functions on the host, and the
#                CUDA twins' kernels (kernels/cuda/*.cuh) against the CPU kernels' arithmetic;
#                then the op tests (tests/unit/kernels/, carried as precis_gpu_op_tests): every
#                CUDA twin through its launcher and cuBLASLt against the CPU kernel, on the GPU
#   4 sanitizer  compute-sanitizer memcheck, racecheck, synccheck on the device tests and the
#                op tests
#   5 carried    the engine built here (scripts/gpu/bundle.sh) runs there and reproduces the
#                smoke job's loss on the CPU, and on the GPU (precis train --device cuda);
#                tiny BART and T5 train 3 steps on the GPU against the
#                CPU, twice (bit-identical); beam search on the GPU comes with the decoding twins
#   6 peer       Hugging Face BART in PyTorch on the GPU (bench/gpu/hf_peer.py all)
#   7 precis     precis's training step and beam search on the peer's shapes
#                (bench/gpu/precis_*_bench.cpp) and the tables against the peer (compare.py)
# A summary table comes last. With no GPU it runs what needs none (the build) and stops at the
# first GPU call, saying so. Prepare the carried engine first: scripts/gpu/bundle.sh.
#   device run: bash scripts/gpu-check.sh   (carry: .gpu-carry)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-out/gpu-check}
mkdir -p "$out"
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
work=$(mktemp -d)
summary=()
row() { summary+=("| $1 | $2 | $3 |"); }
phase() { echo; echo "=== phase $1 ($(date -u +%T))"; }

finish() {
  { echo; echo "| phase | result | detail |"; echo "| --- | --- | --- |"; printf '%s\n' "${summary[@]}"; } |
    tee "$out/summary.md"
  exit "${1:-0}"
}

phase "1 probe"
{
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv 2>&1
  "$nvcc" --version 2>&1 | tail -2
  grep PRETTY_NAME /etc/os-release; ldd --version 2>&1 | head -1; nproc; free -g | head -2
  command -v compute-sanitizer && compute-sanitizer --version 2>&1 | tail -1
  python3 -c 'import torch, transformers; print("torch", torch.__version__, "cuda", torch.version.cuda, "transformers", transformers.__version__)' 2>&1
} > "$out/probe.txt" 2>&1
cat "$out/probe.txt"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
row probe "${gpu:-no GPU}" "$(grep -m1 PRETTY_NAME /etc/os-release | cut -d'"' -f2); $("$nvcc" --version 2>/dev/null | grep -o 'release [0-9.]*')"

phase "2 build"
arch="-gencode arch=compute_90,code=sm_90"
[ -n "$gpu" ] || arch="$arch -gencode arch=compute_80,code=sm_80"
built=ok
timeout 180 "$nvcc" -std=c++20 -O2 -Isrc $arch --fmad=false -Werror all-warnings -lineinfo \
  tests/cuda/shared_math_on_device.cu -o "$work/shared_math_fmad_false" >> "$out/build.log" 2>&1 || built=failed
timeout 180 "$nvcc" -std=c++20 -O2 -Isrc $arch --fmad=true -DPRECIS_FMAD_CONTRACTED -Werror all-warnings \
  tests/cuda/shared_math_on_device.cu -o "$work/shared_math_fmad_true" >> "$out/build.log" 2>&1 || built=failed
timeout 180 "$nvcc" -std=c++20 -O2 -Isrc $arch --fmad=false -Xcompiler -ffp-contract=off -lineinfo \
  -Werror all-warnings -Xptxas -warn-spills,-warn-lmem-usage \
  tests/cuda/kernels_on_device.cu -o "$work/kernels_on_device" >> "$out/build.log" 2>&1 || built=failed
cat "$out/build.log"
row build "$built" "tests/cuda/shared_math_on_device.cu (--fmad=true and false), kernels_on_device.cu"

if [ -z "$gpu" ]; then
  echo "gpu-check: no GPU is present on this machine (nvidia-smi found none): stopping before the first GPU call"
  row device "not run" "no GPU present"
  finish 0
fi

# The carried pack (scripts/gpu/bundle.sh): the CPU engine and the op tests with the CUDA backend.
bundle=""
if [ -f .gpu-carry/precis-cpu.tar.xz ]; then
  bundle="$work/bundle"
  mkdir -p "$bundle" && tar -C "$bundle" -xJf .gpu-carry/precis-cpu.tar.xz
fi
op_tests=""
[ -n "$bundle" ] && [ -x "$bundle/bin/precis_gpu_op_tests" ] && op_tests="$bundle/bin/precis_gpu_op_tests"
# The op tests' command (then the gtest flags): the pack's libraries and the toolkit's. Through
# env, which execs the binary, so compute-sanitizer sees the test process itself.
op_run=(env "LD_LIBRARY_PATH=$bundle/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" OMP_NUM_THREADS=4 "$op_tests")

phase "3 device"
# --fmad=false is how the CUDA twins build: it must pass. --fmad=true shows what contraction costs.
for fmad in false true; do
  echo "--- --fmad=$fmad" >> "$out/device_tests.txt"
  timeout 60 "$work/shared_math_fmad_$fmad" >> "$out/device_tests.txt" 2>&1
  rc=$?
  detail="philox, dropout$([ $fmad = false ] && echo ", LayerNorm, RMSNorm, AdamW") bit-identical; GELUs, softmax, CE within 1e-5 rel + 1e-6"
  row "device (--fmad=$fmad)" "$([ $rc = 0 ] && echo ok || echo "FAIL rc=$rc")$([ $fmad = true ] && echo ", for information")" "$detail"
done
echo "--- kernels" >> "$out/device_tests.txt"
timeout 120 "$work/kernels_on_device" >> "$out/device_tests.txt" 2>&1
rc=$?
row "device kernels" "$([ $rc = 0 ] && echo ok || echo "FAIL rc=$rc")" "adamw_kernel bit-identical to the CPU step; sum_of_squares_partials within n·2^-53"
cat "$out/device_tests.txt"
if [ -n "$op_tests" ]; then
  # Only the cuda:0 cases: the CPU ones ran here. Shapes are the op tests' (small, odd sizes).
  timeout 120 "${op_run[@]}" --gtest_filter='*cuda0*' --gtest_brief=1 > "$out/op_tests.txt" 2>&1
  rc=$?
  tail -30 "$out/op_tests.txt"
  passed=$(grep -o '[0-9]* tests\? from [0-9]* test suites\? ran' "$out/op_tests.txt" | head -1)
  row "op tests on the GPU" "$([ $rc = 0 ] && echo ok || echo "FAIL rc=$rc")" "${passed:-none ran}; every twin against the CPU kernel (fp32, 1e-5)"
else
  row "op tests on the GPU" skipped "no precis_gpu_op_tests in .gpu-carry: build it here and run scripts/gpu/bundle.sh"
fi

phase "4 sanitizer"
if command -v compute-sanitizer > /dev/null; then
  for binary in shared_math_fmad_false kernels_on_device; do
    for tool in memcheck racecheck synccheck; do
      # --error-exitcode 9: tell a sanitizer finding from the test's own verdict (phase 3).
      timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 "$work/$binary" > "$work/san.log" 2>&1
      rc=$?
      sed -n '/========/p' "$work/san.log" | tail -3 | sed "s/^/$binary $tool: /" >> "$out/sanitizer.txt"
      if grep -q "Device not supported\|error 999" "$work/san.log"; then
        row "sanitizer $tool" skipped "the runtime refuses compute-sanitizer"
      else
        row "sanitizer $tool ($binary)" "$([ $rc != 9 ] && [ $rc -lt 124 ] && echo clean || echo "FAIL rc=$rc")" "$(grep -m1 'SUMMARY' "$work/san.log" | sed 's/=* *//')"
      fi
    done
  done
  if [ -n "$op_tests" ]; then
    for tool in memcheck racecheck synccheck; do
      timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 "${op_run[@]}" --gtest_filter='*cuda0*' --gtest_brief=1 > "$work/san.log" 2>&1
      rc=$?
      sed -n '/========/p' "$work/san.log" | tail -3 | sed "s/^/op tests $tool: /" >> "$out/sanitizer.txt"
      row "sanitizer $tool (op tests)" "$([ $rc != 9 ] && [ $rc -lt 124 ] && echo clean || echo "FAIL rc=$rc")" "$(grep -m1 'SUMMARY' "$work/san.log" | sed 's/=* *//')"
    done
  fi
  cat "$out/sanitizer.txt"
else
  row sanitizer skipped "compute-sanitizer not installed"
fi

phase "5 carried"
if [ -n "$bundle" ]; then
  loss=$(timeout 120 bash "$work/bundle/carried_smoke.sh" "$work/bundle" "$work/smoke" 2> "$out/carried.txt")
  expected=$(cat "$work/bundle/smoke/expected_train_loss")
  echo "carried CPU engine: train_loss ${loss:-none} (here: $expected)" | tee -a "$out/carried.txt"
  # Not bit-identical across machines: OpenBLAS picks its kernels by CPU and libm is theirs.
  verdict=$(python3 -c "import sys; a, b = float(sys.argv[1] or 'nan'), float(sys.argv[2]);
print('identical' if a == b else 'within 1e-6 rel' if abs(a - b) <= 1e-6 * abs(b) else 'FAIL')" "$loss" "$expected" 2>/dev/null || echo FAIL)
  row carried "$verdict" "CPU engine built here, 3 steps of bart-tiny: train_loss ${loss:-none} there, $expected here"
  # The same job through the CLI on the GPU (--device cuda): the trainer, its batches and its
  # checkpoints on the device, against the CPU's loss here (1e-5: another summation order).
  loss=$(timeout 120 bash "$work/bundle/carried_smoke.sh" "$work/bundle" "$work/smoke-cuda" cuda 2>> "$out/carried.txt")
  echo "precis train --device cuda: train_loss ${loss:-none} (CPU here: $expected)" | tee -a "$out/carried.txt"
  verdict=$(python3 -c "import sys; a, b = float(sys.argv[1] or 'nan'), float(sys.argv[2]);
print('within 1e-5 rel' if abs(a - b) <= 1e-5 * abs(b) else 'FAIL')" "$loss" "$expected" 2>/dev/null || echo FAIL)
  row "precis train --device cuda" "$verdict" "the smoke job on the GPU: train_loss ${loss:-none}, $expected on the CPU here"
else
  row carried skipped "no .gpu-carry/precis-cpu.tar.xz: run scripts/gpu/bundle.sh and carry .gpu-carry"
fi
if [ -n "$op_tests" ]; then
  # tests/unit/kernels/test_model_training.cpp: 3 steps on the GPU against the CPU, twice.
  timeout 180 "${op_run[@]}" --gtest_filter='CudaTraining.*' > "$out/tiny_models.txt" 2>&1
  rc=$?
  tail -15 "$out/tiny_models.txt"
  row "tiny BART/T5 on CUDA" "$([ $rc = 0 ] && echo ok || echo "FAIL rc=$rc")" "3 training steps against the CPU (1e-5), a second run bit-identical"
else
  row "tiny BART/T5 on CUDA" skipped "no precis_gpu_op_tests in .gpu-carry"
fi

phase "6 peer"
PYTHONUNBUFFERED=1 timeout 300 python3 bench/gpu/hf_peer.py all 2> "$work/peer.err" | tee "$out/peer.jsonl"
tail -5 "$work/peer.err"
row peer "$(grep -c '"error"' "$out/peer.jsonl") errors" "$(wc -l < "$out/peer.jsonl") measurements in peer.jsonl"

phase "7 precis"
# precis's training step on the peer's shapes (bench/gpu/precis_train_bench.cpp, carried), then
# the table against the peer's rows (bench/gpu/compare.py): tokens/s, ratio, MFU, memory.
if [ -n "$bundle" ] && [ -x "$bundle/bin/precis_gpu_train_bench" ]; then
  for shape in "bf16 32 512 128" "fp16 32 512 128" "fp16 64 256 48"; do
    # shellcheck disable=SC2086
    timeout 120 env "LD_LIBRARY_PATH=$bundle/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" \
      "$bundle/bin/precis_gpu_train_bench" $shape 10 >> "$out/ours.jsonl" 2>> "$out/ours.err" ||
      echo "{\"what\": \"error\", \"shape\": \"$shape\"}" >> "$out/ours.jsonl"
  done
  for shape in "32 512" "1 512"; do
    # shellcheck disable=SC2086
    timeout 150 env "LD_LIBRARY_PATH=$bundle/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" \
      "$bundle/bin/precis_gpu_generate_bench" $shape 2 >> "$out/ours.jsonl" 2>> "$out/ours.err" ||
      echo "{\"what\": \"error\", \"generate\": \"$shape\"}" >> "$out/ours.jsonl"
  done
  cat "$out/ours.jsonl"
  python3 bench/gpu/compare.py "$out/peer.jsonl" "$out/ours.jsonl" | tee "$out/train_table.md"
  row "precis benchmarks" "$(grep -c '"error"' "$out/ours.jsonl") errors" "train_table.md: training tokens/s against HF, MFU, memory, projected fine-tune; beam search against generate()"
else
  row "precis benchmarks" skipped "no precis_gpu_train_bench in .gpu-carry"
fi
finish 0
