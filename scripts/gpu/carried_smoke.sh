#!/usr/bin/env bash
# The carried engine's smoke job: 3 training steps of bart-tiny on the bundle's own data and
# tokenizer, one thread, seed 42, on DEVICE (cpu unless given). Prints the train_loss from
# train_results.json; bundle.sh runs it here on the CPU (the expected value), gpu-check.sh there
# (the same binary on another machine, on the CPU and on the GPU), scripts/gpu/dry_run.sh in a
# chroot of a newer Debian. The libraries: the pack's, then the caller's LD_LIBRARY_PATH, then
# the machine's CUDA folders (libraries.sh, beside this file in the pack). With RANKS > 1 the job
# runs data-parallel under the machine's mpirun, one rank a GPU, the same global batch of 4
# (gpu-check.sh's multi-GPU phase): NCCL between the GPUs, MPI for the host's values.
#   scripts/gpu/carried_smoke.sh BUNDLE_DIR WORK_DIR [DEVICE [RANKS]]
set -euo pipefail
bundle=$(cd "$1" && pwd) work=$2 device=${3:-cpu} ranks=${4:-1}
mkdir -p "$work"
# shellcheck source=libraries.sh
source "$bundle/libraries.sh"
LD_LIBRARY_PATH=$(carried_library_path "$bundle")
export LD_LIBRARY_PATH OMP_NUM_THREADS=1
launcher=()
semantics=()
if [ "$ranks" -gt 1 ]; then
  launcher=(mpirun --allow-run-as-root -np "$ranks" -x LD_LIBRARY_PATH -x OMP_NUM_THREADS -x NCCL_DEBUG)
  # transformers 5's loss over every rank's label tokens: N ranks x b then equal 1 x N b.
  semantics=(--hf_semantics 5)
fi
"${launcher[@]}" "$bundle/bin/precis" train --config_name bart-tiny --tokenizer_name "$bundle/smoke/tokenizer" \
  --train_file "$bundle/smoke/train.jsonl" --text_column text --summary_column summary \
  --max_steps 3 --per_device_train_batch_size $((4 / ranks)) --max_source_length 32 --max_target_length 16 \
  --device "$device" "${semantics[@]}" --do_train --save_strategy no --logging_steps 1 --seed 42 \
  --output_dir "$work/model" --overwrite_output_dir > "$work/train.log" 2>&1 ||
  { cat "$work/train.log" >&2; exit 1; }
sed -n 's/.*"train_loss": *\([-0-9.e]*\).*/\1/p' "$work/model/train_results.json"
