#!/usr/bin/env bash
# The launch-level GPU cost model: runs the GPU benches over the counting backend (every kernel
# launch, GEMM, copy and host synchronisation of one step or one generate() recorded with its
# declared bytes and FLOPs, nothing run; bench/gpu/counting/) and prices the records on an H100
# SXM and an H200 (bench/gpu/cost_model.py, which prints its assumptions with the tables). The
# lines read `modeled <case> on <GPU> <ms> ms <mfu>% MFU`; then the tutorial's whole job on 2 x 8
# GPUs and on one H200 (bench/gpu/tutorial_model.py).
#
# Cases: a bart-large bf16 training step at the tutorial's shape (batch 4 per GPU, padded to the
# longest of 4 SAMSum dialogues: see below) and at batch 32 x (512 + 128), the shape HF was
# measured at (BENCHMARKS.md, "GPU: first check on an H200"); beam search as bart-large-cnn's
# generation config does it (4 beams, 56 to 142 tokens) at batch 8 and 32, in fp32 and in bf16
# (mixed precision, as HF's generate() runs inside torch.autocast).
#   scripts/gpu-model.sh [BUILD_DIR]      (default build; builds the counted benches there)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
cmake --build "$build" -j "$(nproc)" --target precis_gpu_train_counted precis_gpu_generate_counted > /dev/null
out="$build/gpu-model"
mkdir -p "$out"
records="$out/launches.jsonl"
rm -f "$records"

# The tutorial's batches: SAMSum's dialogues come in four equal groups of 3-6, 7-12, 13-18 and
# 19-30 utterances (its dataset card); at 12 BPE tokens an utterance (a name, a colon, about 8
# words) and summaries of 30 +- 10 tokens, the longest of 4 random dialogues, which a batch is
# padded to, averages the lengths below (a fixed-seed simulation of 10,000 batches).
read -r source target < <(python3 - <<'PY'
import random
rng = random.Random(0)
groups = [(3, 6), (7, 12), (13, 18), (19, 30)]
def dialogue():
    low, high = rng.choice(groups)
    return min(1024, 12 * rng.randint(low, high) + 2)
def summary():
    return min(128, max(8, round(rng.gauss(30, 10))) + 2)
batches = [(max(dialogue() for _ in range(4)), max(summary() for _ in range(4))) for _ in range(10000)]
print(round(sum(s for s, _ in batches) / len(batches)), round(sum(t for _, t in batches) / len(batches)))
PY
)
echo "gpu-model: the tutorial's batch of 4 padded to source $source, target $target (SAMSum's lengths, assumed as above)"
export PRECIS_COUNT_OUT="$records"
"$build/bench/precis_gpu_train_counted" bf16 4 "$source" "$target" 1 > /dev/null
"$build/bench/precis_gpu_train_counted" bf16 32 512 128 1 > /dev/null
"$build/bench/precis_gpu_generate_counted" 8 512 1 > /dev/null
"$build/bench/precis_gpu_generate_counted" 32 512 1 > /dev/null
"$build/bench/precis_gpu_generate_counted" 8 512 1 --bf16 > /dev/null
"$build/bench/precis_gpu_generate_counted" 32 512 1 --bf16 > /dev/null
python3 bench/gpu/cost_model.py "$records"
# The tutorial's whole job on its hosts (2 x 8 GPUs: p3dn, p4d, p5) and on one H200: the step
# above and a ring all-reduce of the gradient's buckets against the backward.
python3 bench/gpu/tutorial_model.py "$records"
