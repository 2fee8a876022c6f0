#!/usr/bin/env bash
# The main job, on data every Debian machine has: Debian package descriptions -> their
# one-line synopses. Sets up and builds precis, builds the dataset from apt's English
# Translation lists, trains a byte-level BPE tokenizer and a small BART from scratch for a
# fixed number of optimizer steps, predicts the test split with beam search, scores ROUGE next
# to the lead baseline (the description's first sentence), and prints the first five test
# examples side by side.
#
#   scripts/demo.sh [--max_steps N | --minutes N] [--ranks N] [--output DIR] [--predict_samples N]
#
# --max_steps: optimizer steps (default below). The model, and so every printed score, is then
# the same bit for bit on any machine, however fast or loaded: precis gives the same bits for
# any thread count, so only the work's speed changes (BENCHMARKS.md says what another CPU
# may change). --minutes: train for a time budget instead, the schedule stretched over the
# steps that fit (the result then depends on the machine's speed).
# --ranks: data-parallel MPI ranks (default 2, which the scores are for, on any core count;
# 1 runs a single process). --predict_samples: test examples predicted (default: all).
set -euo pipefail
cd "$(dirname "$0")/.."

max_steps=7700 minutes="" out=out/demo predict_samples=0 ranks=2
while [ $# -gt 0 ]; do
  case "$1" in
    --max_steps) max_steps=$2; minutes=""; shift 2 ;;
    --minutes) minutes=$2; shift 2 ;;
    --output) out=$2; shift 2 ;;
    --predict_samples) predict_samples=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "demo: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
start=$(date +%s)
stamp() { echo "[demo $(( $(date +%s) - start ))s] $*"; }

stamp "setting up (packages, build)"
scripts/setup.sh --main-job
precis=build/precis

stamp "building the dataset (its folder's name, debian-synopses, names it in the model card)"
$precis data debian --output "$out/debian-synopses"

stamp "training the tokenizer"
$precis tokenizer train --files "$out/debian-synopses/train.jsonl" --text_field package_and_description --text_field synopsis \
  --vocab_size 8000 --min_frequency 2 --output "$out/tokenizer"

# Beam search as bart-large-cnn's generation config does it (no repeated n-grams, EOS forced at
# the end), with the special-token ids of the tokenizer trained above; 8 beams and bigrams
# were best on the validation split (BENCHMARKS.md).
mkdir -p "$out/generation"
cat > "$out/generation/generation_config.json" <<'JSON'
{"bos_token_id": 0, "pad_token_id": 1, "eos_token_id": 2, "decoder_start_token_id": 2,
 "forced_eos_token_id": 2, "num_beams": 8, "no_repeat_ngram_size": 2, "max_length": 32}
JSON

cores=$(nproc)
if [ "$ranks" -gt 1 ] && ! command -v mpirun > /dev/null; then
  echo "demo: --ranks $ranks needs mpirun (openmpi-bin); scripts/setup.sh --main-job installs it" >&2
  exit 2
fi
threads=$(( cores / ranks )); [ "$threads" -ge 1 ] || threads=1
launch=(env OMP_NUM_THREADS="$threads")
if [ "$ranks" -gt 1 ]; then
  launch=(mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$ranks" -x OMP_NUM_THREADS="$threads")
fi
# One global batch of at most 1024 tokens (32 examples), split across the ranks.
tokens_per_rank=$(( 1024 / ranks )) batch_per_rank=$(( 32 / ranks ))
[ "$batch_per_rank" -ge 1 ] || batch_per_rank=1
predict=() compare=()
if [ "$predict_samples" -gt 0 ]; then
  predict=(--max_predict_samples "$predict_samples") compare=(--max_samples "$predict_samples")
fi
budget=(--max_steps "$max_steps") what="$max_steps optimizer steps"
if [ -n "$minutes" ]; then
  budget=(--num_train_epochs 1000 --max_train_time_s $(( minutes * 60 ))) what="$minutes minutes"
fi
stamp "training bart-tiny for $what on $ranks rank(s) x $threads thread(s) (the trainer prints its rate and ETA), then predicting the test split"
# The input is the package name and its description, cut to 40 tokens: the name tells a
# library, its -dev or -doc package or a Python module apart; the first sentence or two of
# the description hold the rest of the synopsis. The learning rate warms up over 1,000 steps,
# then decays linearly to 0 at the last step; label smoothing 0.1 (HF's LabelSmoother).
"${launch[@]}" $precis train --config_name bart-tiny --tokenizer_name "$out/tokenizer" \
  --train_file "$out/debian-synopses/train.jsonl" --test_file "$out/debian-synopses/test.jsonl" \
  --text_column package_and_description --summary_column synopsis \
  --max_source_length 40 --max_target_length 32 --val_max_target_length 32 \
  --per_device_train_batch_size "$batch_per_rank" --max_tokens_per_batch "$tokens_per_rank" \
  --learning_rate 1e-3 --weight_decay 0.01 --label_smoothing_factor 0.1 \
  --lr_scheduler_type linear --warmup_steps 1000 "${budget[@]}" --logging_steps 25 --save_strategy no \
  --do_train --do_predict --predict_with_generate "${predict[@]}" \
  --per_device_eval_batch_size 32 --num_beams 8 --generation_config "$out/generation" \
  --hub_model_id precis-bart-tiny-debian-synopses \
  --output_dir "$out/model" --overwrite_output_dir --seed 42

stamp "scoring"
$precis compare --data "$out/debian-synopses/test.jsonl" --predictions "$out/model/generated_predictions.txt" \
  --text_column description --summary_column synopsis "${compare[@]}"
stamp "done: model, tokenizer and results in $out/model"
