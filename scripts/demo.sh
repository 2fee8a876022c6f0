#!/usr/bin/env bash
# The main job, on data every Debian machine has: Debian package descriptions -> their
# one-line synopses. Sets up and builds precis, builds the dataset from apt's English
# Translation lists, trains a byte-level BPE tokenizer and a small BART from scratch for a
# bounded time, predicts the test split with beam search, scores ROUGE next to the lead
# baseline (the description's first sentence), and prints five samples.
#
#   scripts/demo.sh [--minutes N] [--ranks N] [--output DIR] [--predict_samples N]
#
# --ranks: data-parallel MPI ranks (default: 2 with mpirun and 2+ cores, one OpenMP thread each
# per core share; 1 runs a single process). --predict_samples: test examples predicted (default:
# the whole test split).
set -euo pipefail
cd "$(dirname "$0")/.."

minutes=15 out=out/demo predict_samples=0 ranks=auto
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes=$2; shift 2 ;;
    --output) out=$2; shift 2 ;;
    --predict_samples) predict_samples=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "demo: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
start=$(date +%s)
stamp() { echo "[demo $(( $(date +%s) - start ))s] $*"; }

stamp "setting up (packages, build)"
scripts/setup.sh --main-job
precis=build/precis

stamp "building the dataset"
$precis data debian --output "$out/data"

stamp "training the tokenizer"
$precis tokenizer train --files "$out/data/train.jsonl" --text_field description --text_field synopsis \
  --vocab_size 8000 --min_frequency 2 --output "$out/tokenizer"

# Beam search as bart-large-cnn's generation config does it (4 beams, no repeated n-grams),
# with the special-token ids of the tokenizer trained above.
mkdir -p "$out/generation"
cat > "$out/generation/generation_config.json" <<'JSON'
{"bos_token_id": 0, "pad_token_id": 1, "eos_token_id": 2, "decoder_start_token_id": 2,
 "forced_eos_token_id": 2, "num_beams": 4, "no_repeat_ngram_size": 2, "max_length": 32}
JSON

cores=$(nproc)
if [ "$ranks" = auto ]; then
  ranks=1
  if command -v mpirun > /dev/null && [ "$cores" -ge 2 ]; then ranks=2; fi
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
stamp "training bart-tiny for $minutes minutes on $ranks rank(s) x $threads thread(s), then predicting the test split"
# The first sentence or two of a description hold the synopsis: 32 source tokens train
# faster per second than 64 and learn to copy sooner. The learning rate decays linearly to 0
# where the time budget ends (the horizon is estimated from the measured step rate).
"${launch[@]}" $precis train --config_name bart-tiny --tokenizer_name "$out/tokenizer" \
  --train_file "$out/data/train.jsonl" --test_file "$out/data/test.jsonl" \
  --text_column description --summary_column synopsis \
  --max_source_length 32 --max_target_length 32 --val_max_target_length 32 \
  --per_device_train_batch_size "$batch_per_rank" --max_tokens_per_batch "$tokens_per_rank" --learning_rate 1e-3 --weight_decay 0.01 \
  --lr_scheduler_type linear --warmup_steps 1000 \
  --num_train_epochs 1000 --max_train_time_s $(( minutes * 60 )) --logging_steps 25 --save_strategy no \
  --do_train --do_predict --predict_with_generate "${predict[@]}" \
  --per_device_eval_batch_size 32 --num_beams 4 --generation_config "$out/generation" \
  --output_dir "$out/model" --overwrite_output_dir --seed 42

stamp "scoring"
$precis compare --data "$out/data/test.jsonl" --predictions "$out/model/generated_predictions.txt" \
  --text_column description --summary_column synopsis "${compare[@]}"
stamp "done: model, tokenizer and results in $out/model"
