#!/usr/bin/env bash
# The main job, on data every Debian machine has: Debian package descriptions -> their
# one-line synopses. Sets up and builds precis, builds the dataset from apt's English
# Translation lists, trains a byte-level BPE tokenizer and a small BART from scratch for a
# bounded time, predicts the test split with beam search, scores ROUGE next to the lead
# baseline (the description's first sentence), and prints five samples.
#
#   scripts/demo.sh [--minutes N] [--ranks N] [--output DIR] [--predict_samples N]
set -euo pipefail
cd "$(dirname "$0")/.."

minutes=15 out=out/demo predict_samples=500 ranks=1
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes=$2; shift 2 ;;
    --output) out=$2; shift 2 ;;
    --predict_samples) predict_samples=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "demo: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
start=$(date +%s)
stamp() { echo "[demo $(( $(date +%s) - start ))s] $*"; }

stamp "setting up (packages, build)"
PRECIS_SKIP_VENV=1 scripts/setup.sh
precis=build/precis

if ! ls /var/lib/apt/lists/*Translation-en* > /dev/null 2>&1; then
  stamp "fetching apt's English package descriptions"
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get -o Acquire::Languages=en update -qq
fi

stamp "building the dataset"
$precis data debian --output "$out/data"

stamp "training the tokenizer"
$precis tokenizer train --files "$out/data/train.jsonl" --text_field description --text_field synopsis \
  --vocab_size 8000 --min_frequency 2 --output "$out/tokenizer"

launch=()
if [ "$ranks" -gt 1 ]; then launch=(mpirun --allow-run-as-root -np "$ranks"); fi
stamp "training bart-tiny for $minutes minutes, then predicting $predict_samples test examples"
"${launch[@]}" $precis train --config_name bart-tiny --tokenizer_name "$out/tokenizer" \
  --train_file "$out/data/train.jsonl" --test_file "$out/data/test.jsonl" \
  --text_column description --summary_column synopsis \
  --max_source_length 64 --max_target_length 32 --val_max_target_length 32 \
  --per_device_train_batch_size 32 --max_tokens_per_batch 1024 --learning_rate 5e-4 --weight_decay 0.01 \
  --lr_scheduler_type constant_with_warmup --warmup_steps 1000 \
  --max_steps 1000000 --max_train_time_s $(( minutes * 60 )) --logging_steps 25 --save_strategy no \
  --do_train --do_predict --predict_with_generate --max_predict_samples "$predict_samples" \
  --per_device_eval_batch_size 32 --generation_num_beams 4 --generation_max_length 32 \
  --output_dir "$out/model" --overwrite_output_dir --seed 42

stamp "scoring"
$precis compare --data "$out/data/test.jsonl" --predictions "$out/model/generated_predictions.txt" \
  --text_column description --summary_column synopsis --max_samples "$predict_samples"
stamp "done: model, tokenizer and results in $out/model"
