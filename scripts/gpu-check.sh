#!/usr/bin/env bash
# Everything a GPU machine must confirm, as one command that ends within the device tool's
# 10 minutes however the machine behaves, and leaves what it learned even if it is killed.
#   device run: bash scripts/gpu-check.sh   (carry: .gpu-carry, from scripts/gpu/bundle.sh)
#
# Phases, measurements before sanitizers (estimates from the H200 run of 2026-12-04, which did
# phases 1-3, 5 and the peer in 63-95 s; caps are each step's timeout):
#   phase            estimate  cap    what
#   1 probe              5 s    20 s  the GPU (H100 or H200: both run the sm_90 build), driver,
#                                     toolkit, OS, glibc against the pack's, libraries found
#   2 build             60 s   180 s  the device tests with nvcc there (no Debian libraries)
#   3 device             5 s    60 s  the shared math and the twins' kernels against the host
#   4 op tests          60 s   150 s  the carried op tests on the GPU (every cuda0 case), then
#                                     tiny BART/T5 training and generation (CudaTraining.*,
#                                     CudaGeneration.*) against the CPU
#   5 carried           15 s   120 s  the carried CLI's smoke job on the CPU and on the GPU, and
#                                     on 2 GPUs through NCCL where the machine has 2 or more
#                                     (and an mpirun); one GPU: skipped, saying so
#   6 peer              60 s   200 s  Hugging Face BART in PyTorch on the GPU
#   7 precis            90 s   300 s  precis's training step and beam search on the peer's
#                                     shapes, the table against the peer, and against the cost
#                                     model's prices for the same shapes (the pack's model.txt)
#   8 sanitizers     the rest         memcheck over every op test; racecheck, synccheck and
#                                     initcheck over a named subset
# Expected 300 s in all before the sanitizers. Whatever happens, no step outlives the deadline
# (GPU_CHECK_SECONDS, 540 s): each step's timeout is its cap or the time left, whichever is less,
# and a phase that cannot get its minimum is skipped and says so. The 60 s to the tool's 600 s
# cover the last step's kill grace, packing the logs and the transfer.
#
# What comes back ($OUT, at most 8 files; out/gpu-check elsewhere): summary.md (appended as each
# phase starts and ends, and on exit by a trap, so a run killed anywhere names the phases done),
# logs.tar.gz (every log, repacked after each phase), peer.jsonl and precis.jsonl (one
# measurement a line, written as measured), tables.md (precis against the peer).
# With no GPU it runs what needs none (the build) and stops at the first GPU call, saying so.
set -uo pipefail
cd "$(dirname "$0")/.." || exit
out=${OUT:-out/gpu-check}
mkdir -p "$out"
deadline=${GPU_CHECK_SECONDS:-540}
started=$SECONDS
work=$(mktemp -d)
logs="$work/logs"
mkdir -p "$logs"
summary="$out/summary.md"
current="" done_phases=""
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
# shellcheck source=gpu/libraries.sh
source scripts/gpu/libraries.sh

elapsed() { echo $((SECONDS - started)); }
left() { echo $((deadline - (SECONDS - started))); }
# A row of summary.md, appended at once: a kill keeps every row written before it.
row() { printf '| %s | %s | %s |\n' "$1" "$2" "$3" >> "$summary"; }
pack_logs() {
  tar -C "$work" -czf "$out/logs.tar.gz.part" logs 2> /dev/null && mv -f "$out/logs.tar.gz.part" "$out/logs.tar.gz"
}

# begin N NAME MINIMUM: starts phase N, or skips it (status 1) when less than MINIMUM seconds
# are left.
begin() {
  echo
  echo "=== phase $1 $2 ($(elapsed) s in, $(left) s left)"
  if [ "$(left)" -lt "$3" ]; then
    row "phase $1 $2" "skipped" "$(left) s left of the $deadline s deadline; it needs $3 s"
    return 1
  fi
  current="$1 $2" phase_started=$SECONDS
  row "phase $1 $2" "started" "$(elapsed) s in"
}
end_phase() {
  row "phase $current" "ended" "$((SECONDS - phase_started)) s"
  done_phases="$done_phases${done_phases:+, }$current"
  current=""
  pack_logs
}
on_exit() {
  local rc=$?
  trap - EXIT TERM INT
  if [ -n "$current" ]; then
    row "end" "INTERRUPTED in phase $current" "$(elapsed) s in; phases done: ${done_phases:-none}"
  else
    row "end" "finished" "$(elapsed) s; phases done: ${done_phases:-none}"
  fi
  pack_logs
  # At most 8 files come back: anything else goes into the logs.
  local extra
  extra=$(find "$out" -maxdepth 1 -type f ! -name summary.md ! -name logs.tar.gz ! -name peer.jsonl \
    ! -name precis.jsonl ! -name tables.md)
  if [ -n "$extra" ]; then
    mkdir -p "$logs/extra" && mv $extra "$logs/extra/" && pack_logs
  fi
  rm -rf "$work"
  exit "$rc"
}
trap on_exit EXIT
trap 'exit 143' TERM INT

# step [--stdout FILE] LOG CAP COMMAND...: COMMAND's output appended to logs/LOG (its standard
# output to FILE instead, if given); its timeout is CAP or the time left before the deadline,
# whichever is less. Status 124 when it ran out of time, 125 when no time was left to start it.
step() {
  local stdout=""
  if [ "$1" = --stdout ]; then stdout=$2; shift 2; fi
  local log=$1 cap=$2
  shift 2
  local t
  t=$(left)
  [ "$t" -gt "$cap" ] && t=$cap
  if [ "$t" -lt 3 ]; then
    echo "not run: the deadline has passed ($*)" >> "$logs/$log"
    return 125
  fi
  timeout -k 5 "$t" "$@" >> "${stdout:-$logs/$log}" 2>> "$logs/$log"
}
verdict() { case $1 in 0) echo ok ;; 124|137) echo "TIMED OUT" ;; 125) echo "not run (deadline)" ;; *) echo "FAIL rc=$1" ;; esac; }

{
  echo "# gpu-check $(date -u +%FT%TZ) at $(git rev-parse --short HEAD 2> /dev/null || echo '?')"
  echo
  echo "| phase | result | detail |"
  echo "| --- | --- | --- |"
} > "$summary"

# The carried pack (scripts/gpu/bundle.sh): the CPU engine with the CUDA backend, the op tests
# and the GPU benches, and the libraries they need that this machine lacks.
bundle=""
if [ -f .gpu-carry/precis-cpu.tar.xz ]; then
  bundle="$work/bundle"
  mkdir -p "$bundle" && tar -C "$bundle" -xJf .gpu-carry/precis-cpu.tar.xz
fi
op_tests=""
[ -n "$bundle" ] && [ -x "$bundle/bin/precis_gpu_op_tests" ] && op_tests="$bundle/bin/precis_gpu_op_tests"

begin 1 probe 0
{
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,compute_cap --format=csv 2>&1
  "$nvcc" --version 2>&1 | tail -2
  grep PRETTY_NAME /etc/os-release
  ldd --version 2>&1 | head -1
  grep -m1 'model name' /proc/cpuinfo
  echo "CPU flags: $(grep -m1 '^flags' /proc/cpuinfo | grep -ow 'avx2\|fma\|avx512f\|avx512bw\|avx512_bf16\|amx_bf16' | paste -sd' ')"
  nproc
  free -g | head -2
  command -v compute-sanitizer && compute-sanitizer --version 2>&1 | tail -1
  python3 -c 'import torch, transformers; print("torch", torch.__version__, "cuda", torch.version.cuda, "transformers", transformers.__version__)' 2>&1
  echo "GPU library folders:"
  gpu_library_dirs
  [ -n "$bundle" ] && cat "$bundle/BUILD_INFO"
} > "$logs/probe.log" 2>&1
cat "$logs/probe.log"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -1)
kind=$(echo "$gpu" | grep -o 'H100\|H200' || echo "${gpu:+other}")
glibc=$(ldd --version 2>&1 | head -1 | grep -o '[0-9]*\.[0-9]*$')
row probe "${gpu:-no GPU}${kind:+ (kind $kind; the sm_90 build)}" \
  "$(grep -m1 PRETTY_NAME /etc/os-release | cut -d'"' -f2), glibc $glibc$([ -n "$bundle" ] && echo " (the pack $(grep -o 'needs glibc >= [0-9.]*' "$bundle/BUILD_INFO"))"); nvcc $("$nvcc" --version 2> /dev/null | grep -o 'release [0-9.]*'); CUDA libraries in $(gpu_library_dirs | paste -sd' ')"
if [ -n "$bundle" ]; then
  carried_path=$(carried_library_path "$bundle")
  echo "carried LD_LIBRARY_PATH: $carried_path" >> "$logs/probe.log"
fi
# How the pack's binaries run: its libraries, then this machine's (libraries.sh).
carried=(env "LD_LIBRARY_PATH=${carried_path:-}" OMP_NUM_THREADS=4)
end_phase

if begin 2 build 30; then
  arch="-gencode arch=compute_90,code=sm_90"
  [ -n "$gpu" ] || arch="$arch -gencode arch=compute_80,code=sm_80"
  # The three programs build side by side (16 cores there).
  # shellcheck disable=SC2086
  step build_fmad_false.log 180 "$nvcc" -std=c++20 -O2 -Isrc $arch --fmad=false -Werror all-warnings -lineinfo \
    tests/gpu/shared_math_on_device.cu -o "$work/shared_math_fmad_false" & a=$!
  # shellcheck disable=SC2086
  step build_fmad_true.log 180 "$nvcc" -std=c++20 -O2 -Isrc $arch --fmad=true -DPRECIS_FMAD_CONTRACTED -Werror all-warnings \
    tests/gpu/shared_math_on_device.cu -o "$work/shared_math_fmad_true" & b=$!
  # shellcheck disable=SC2086
  step build_kernels.log 180 "$nvcc" -std=c++20 -O2 -Isrc $arch --fmad=false -Xcompiler -ffp-contract=off -lineinfo \
    -Werror all-warnings -Xptxas -warn-spills,-warn-lmem-usage \
    tests/gpu/kernels_on_device.cu -o "$work/kernels_on_device" & c=$!
  wait $a; ra=$?; wait $b; rb=$?; wait $c; rc=$?
  cat "$logs"/build_*.log 2> /dev/null | tail -20
  row build "$([ $ra = 0 ] && [ $rb = 0 ] && [ $rc = 0 ] && echo ok || echo FAIL)" "shared_math_on_device.cu --fmad=false: $(verdict $ra), --fmad=true: $(verdict $rb); kernels_on_device.cu: $(verdict $rc)"
  end_phase
fi

if [ -z "$gpu" ]; then
  echo "gpu-check: no GPU is present on this machine (nvidia-smi found none): stopping before the first GPU call"
  row device "not run" "no GPU present"
  exit 0
fi

if begin 3 device 20; then
  # --fmad=false is how the CUDA twins build: it must pass. --fmad=true shows what contraction costs.
  for fmad in false true; do
    step device_tests.log 60 "$work/shared_math_fmad_$fmad"
    rc=$?
    detail="philox, dropout$([ $fmad = false ] && echo ", LayerNorm, RMSNorm, AdamW") bit-identical; GELUs, softmax, CE within 1e-5 rel + 1e-6"
    row "device (--fmad=$fmad)" "$(verdict $rc)$([ $fmad = true ] && echo ", for information")" "$detail"
  done
  step device_kernels.log 60 "$work/kernels_on_device"
  row "device kernels" "$(verdict $?)" "adamw_kernel bit-identical to the CPU step; sum_of_squares_partials within n·2^-53; mma m16n8k16 (bf16, fp16) by the layout the emulator implements"
  tail -30 "$logs/device_tests.log" "$logs/device_kernels.log"
  end_phase
fi

# The op tests' cases on the GPU: the cuda0 backend's (the CPU ones ran here), and the tiny
# models against the CPU.
op_cases='*cuda0*'
model_cases='CudaTraining.*:CudaGeneration.*'
if begin 4 "op tests" 30; then
  if [ -n "$op_tests" ]; then
    step op_tests.log 150 "${carried[@]}" "$op_tests" --gtest_filter="$op_cases" --gtest_brief=1
    rc=$?
    tail -30 "$logs/op_tests.log"
    ran=$(grep -o '[0-9]* tests\? from [0-9]* test suites\? ran' "$logs/op_tests.log" | tail -1)
    row "op tests on the GPU" "$(verdict $rc)" "${ran:-none ran}; every twin against the CPU kernel"
    step tiny_models.log 150 "${carried[@]}" "$op_tests" --gtest_filter="$model_cases"
    rc=$?
    tail -15 "$logs/tiny_models.log"
    ran=$(grep -o '[0-9]* tests\? from [0-9]* test suites\? ran' "$logs/tiny_models.log" | tail -1)
    row "tiny BART/T5 on CUDA" "$(verdict $rc)" "${ran:-none ran}: 3 training steps against the CPU (1e-5), a second run bit-identical; generation's ids against the CPU's"
  else
    row "op tests on the GPU" skipped "no precis_gpu_op_tests in .gpu-carry: run scripts/gpu/bundle.sh and carry .gpu-carry"
  fi
  end_phase
fi

# How far two train_loss values may be apart: identical, or within a relative bound.
compare_loss() {
  python3 -c "import sys; a, b, tol = float(sys.argv[1] or 'nan'), float(sys.argv[2] or 'nan'), float(sys.argv[3])
print('identical' if a == b else f'within {tol:g} rel' if abs(a - b) <= tol * abs(b) else 'FAIL')" "$@" 2> /dev/null || echo FAIL
}
if begin 5 carried 20; then
  if [ -n "$bundle" ]; then
    expected=$(cat "$bundle/smoke/expected_train_loss")
    # Not bit-identical across machines: OpenBLAS picks its kernels by CPU and libm is theirs.
    loss=$(timeout -k 5 "$(( $(left) < 60 ? $(left) : 60 ))" bash "$bundle/carried_smoke.sh" "$bundle" "$work/smoke" 2>> "$logs/carried.log")
    echo "carried CPU engine: train_loss ${loss:-none} (here: $expected)" | tee -a "$logs/carried.log"
    row carried "$(compare_loss "$loss" "$expected" 1e-6)" "CPU engine built here, 3 steps of bart-tiny: train_loss ${loss:-none} there, $expected here"
    # The same job through the CLI on the GPU (--device cuda): the trainer, its batches and its
    # checkpoints on the device, against the CPU's loss here (1e-5: another summation order).
    loss=$(timeout -k 5 "$(( $(left) < 60 ? $(left) : 60 ))" bash "$bundle/carried_smoke.sh" "$bundle" "$work/smoke-cuda" cuda 2>> "$logs/carried.log")
    echo "precis train --device cuda: train_loss ${loss:-none} (CPU here: $expected)" | tee -a "$logs/carried.log"
    row "precis train --device cuda" "$(compare_loss "$loss" "$expected" 1e-5)" "the smoke job on the GPU: train_loss ${loss:-none}, $expected on the CPU here"
    # Data parallelism on the machine's GPUs: two ranks of batch 2 against one of batch 4 on
    # the GPU (1e-5: the gradient summed in another order), NCCL between the GPUs. It needs
    # two GPUs and an mpirun on the machine (the pack carries no MPI runtime).
    gpus=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU ')
    if [ "$gpus" -lt 2 ]; then
      row "multi-GPU (NCCL)" skipped "this machine has $gpus GPU: data parallelism on GPUs needs 2 or more"
    elif ! command -v mpirun > /dev/null; then
      row "multi-GPU (NCCL)" skipped "$gpus GPUs, but no mpirun on this machine to start the ranks"
    else
      two=$(timeout -k 5 "$(( $(left) < 90 ? $(left) : 90 ))" env NCCL_DEBUG=WARN bash "$bundle/carried_smoke.sh" "$bundle" "$work/smoke-2gpu" cuda 2 2>> "$logs/carried.log")
      echo "precis train --device cuda on 2 GPUs: train_loss ${two:-none} (1 GPU: ${loss:-none})" | tee -a "$logs/carried.log"
      row "multi-GPU (NCCL)" "$(compare_loss "$two" "$loss" 1e-5)" "2 ranks x batch 2 on 2 of $gpus GPUs: train_loss ${two:-none}; 1 GPU x batch 4: ${loss:-none}"
    fi
  else
    row carried skipped "no .gpu-carry/precis-cpu.tar.xz: run scripts/gpu/bundle.sh and carry .gpu-carry"
  fi
  end_phase
fi

if begin 6 peer 60; then
  # One JSON line a measurement, into $OUT as it is measured.
  step --stdout "$out/peer.jsonl" peer.log 200 env PYTHONUNBUFFERED=1 python3 bench/gpu/hf_peer.py all
  rc=$?
  tail -5 "$logs/peer.log"
  cat "$out/peer.jsonl"
  row peer "$(verdict $rc), $(grep -c '"error"' "$out/peer.jsonl") errors" "$(wc -l < "$out/peer.jsonl") measurements in peer.jsonl"
  end_phase
fi

if begin 7 precis 40; then
  # precis's training step on the peer's shapes (bench/gpu/precis_train_bench.cpp, carried),
  # then the table against the peer's rows (bench/gpu/compare.py): tokens/s, ratio, MFU, memory.
  if [ -n "$bundle" ] && [ -x "$bundle/bin/precis_gpu_train_bench" ]; then
    for shape in "bf16 32 512 128" "fp16 32 512 128" "fp16 64 256 48"; do
      # shellcheck disable=SC2086
      step --stdout "$out/precis.jsonl" precis_bench.log 60 "${carried[@]}" "$bundle/bin/precis_gpu_train_bench" $shape 10 ||
        echo "{\"what\": \"error\", \"shape\": \"$shape\"}" >> "$out/precis.jsonl"
    done
    for shape in "32 512" "32 512 --bf16" "1 512"; do
      # shellcheck disable=SC2086
      step --stdout "$out/precis.jsonl" precis_bench.log 60 "${carried[@]}" "$bundle/bin/precis_gpu_generate_bench" ${shape% --bf16} 2 ${shape##*512} ||
        echo "{\"what\": \"error\", \"generate\": \"$shape\"}" >> "$out/precis.jsonl"
    done
    cat "$out/precis.jsonl"
    python3 bench/gpu/compare.py "$out/peer.jsonl" "$out/precis.jsonl" > "$out/tables.md" 2>> "$logs/precis_bench.log"
    # The cost model's prices for the carried build (bundle.sh ran scripts/gpu-model.sh) beside
    # what was measured here: its calibration.
    if [ -f "$bundle/model.txt" ]; then
      python3 - "$bundle/model.txt" "$out/precis.jsonl" "${kind:-H100}" >> "$out/tables.md" 2>> "$logs/precis_bench.log" <<'PY'
import json, re, sys
model, measured, kind = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
gpu = "H200" if kind == "H200" else "H100 SXM"
modelled = {case: float(ms) for case, g, ms in re.findall(r"^modeled (.+) on (H100 SXM|H200) ([0-9.]+) ms", model, re.M) if g == gpu}
rows = [json.loads(l) for l in open(measured) if l.startswith("{")]
print(f"\n| case ({gpu}) | modelled ms | measured ms | measured / modelled |\n|---|---|---|---|")
for r in rows:
    if r.get("what") == "train":
        case, ms = f"train {r['dtype']} {r['batch']}x({r['source']}+{r['target']})", r["step_ms"]
    elif r.get("what") == "generate":
        case, ms = f"generate {r['dtype']} {r['batch']}x{r['source']}", 1e3 * r["seconds"]
    else:
        continue
    if case in modelled:
        print(f"| {case} | {modelled[case]:.2f} | {ms:.2f} | {ms / modelled[case]:.2f} |")
PY
    fi
    cat "$out/tables.md"
    row "precis benchmarks" "$(grep -c '"error"' "$out/precis.jsonl") errors" "tables.md: training tokens/s against HF, MFU, memory, projected fine-tune; beam search against generate()"
  else
    row "precis benchmarks" skipped "no precis_gpu_train_bench in .gpu-carry"
  fi
  end_phase
fi

# The sanitizers last: they only find faults, and memcheck and racecheck slow kernels by 10-100x.
# memcheck covers every op test; racecheck, synccheck and initcheck the kernels with shared
# memory and barriers at the op tests' small shapes (block reductions, the attention tiles, the
# decoding step's top-k), a subset that fits their timeout.
checked_subset='*LayerNorm*cuda0*:*RmsNorm*cuda0*:*CrossEntropy*cuda0*:*GradNorm*cuda0*:*TokenIds*cuda0*:*DecodingKernel*cuda0*:*AttentionKernel.*cuda0*'
sanitize() {  # sanitize TOOL LABEL CAP COMMAND...
  local tool=$1 label=$2 cap=$3
  shift 3
  # --error-exitcode 9: tell a sanitizer finding from the test's own verdict (phase 3, 4).
  step "sanitizer_${tool}.log" "$cap" compute-sanitizer --tool "$tool" --error-exitcode 9 "$@"
  local rc=$? result
  case $rc in 0) result=clean ;; 9) result="FOUND ERRORS" ;; *) result=$(verdict $rc) ;; esac
  if grep -q "Device not supported\|error 999" "$logs/sanitizer_${tool}.log"; then result="refused by the runtime"; fi
  row "sanitizer $tool ($label)" "$result" "$(grep 'ERROR SUMMARY' "$logs/sanitizer_${tool}.log" | tail -1 | sed 's/=* *//')"
}
if begin 8 sanitizers 30; then
  if ! command -v compute-sanitizer > /dev/null; then
    row sanitizers skipped "compute-sanitizer not installed"
  else
    for binary in shared_math_fmad_false kernels_on_device; do
      for tool in memcheck racecheck synccheck; do
        [ -x "$work/$binary" ] && sanitize $tool "$binary" 40 "$work/$binary"
      done
    done
    if [ -n "$op_tests" ]; then
      # env execs the test binary, so compute-sanitizer follows the test process itself.
      sanitize memcheck "every op test" 180 "${carried[@]}" "$op_tests" --gtest_filter="$op_cases:$model_cases" --gtest_brief=1
      for tool in racecheck synccheck initcheck; do
        sanitize $tool "norms, cross-entropy, grad norm, token ids, decoding, attention" 90 \
          "${carried[@]}" "$op_tests" --gtest_filter="$checked_subset" --gtest_brief=1
      done
    fi
  fi
  end_phase
fi
cat "$summary"
