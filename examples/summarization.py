# %% [markdown]
# # Fine-tuning a model on a summarization task, with precis
#
# Hugging Face's summarization notebook (fine-tune BART on SAMSum dialogues, evaluate with
# ROUGE, write the model card, try the model in a pipeline), on precis's Python API: the same
# objects and names, with precis's C++ engine underneath. It opens as a notebook in VS Code or
# Jupyter (Jupytext's percent format) and runs as a script:
#
#     python examples/summarization.py --model bart-base --train_file samsum/train.jsonl \
#         --validation_file samsum/validation.jsonl --output_dir bart-base-samsum
#
# Every path can also come from the environment (PRECIS_EXAMPLE_MODEL, ..._TRAIN_FILE,
# ..._VALIDATION_FILE, ..._OUTPUT_DIR, ..._MAX_STEPS). precis reads no hub: the model is a
# local checkpoint directory (`huggingface-cli download facebook/bart-base --local-dir
# bart-base`) and the data are JSON lines with "dialogue" and "summary" fields, as SAMSum's.

# %%
import argparse
import json
import os

import precis

parser = argparse.ArgumentParser(description="Fine-tune a summarization model with precis")
for name, default in [("model", "bart-base"), ("train_file", "samsum/train.jsonl"),
                      ("validation_file", "samsum/validation.jsonl"), ("output_dir", "bart-base-samsum"),
                      ("max_steps", "-1")]:
    parser.add_argument(f"--{name}", default=os.environ.get(f"PRECIS_EXAMPLE_{name.upper()}", default))
# parse_known_args: a notebook's kernel passes arguments of its own.
args, _ = parser.parse_known_args()

# %% [markdown]
# ## Loading the data
#
# SAMSum's records: a dialogue and its human-written summary.

# %%
with open(args.train_file) as f:
    train_records = [json.loads(line) for line in f if line.strip()]
print(len(train_records), "training dialogues; the first:")
print(train_records[0]["dialogue"], "\n->", train_records[0]["summary"])

# %% [markdown]
# ## Preprocessing the data
#
# The checkpoint's tokenizer gives Hugging Face's ids. precis.train tokenizes the data itself
# (max_source_length, max_target_length), as the notebook's `preprocess_function` does; here
# we only look at what it makes of one dialogue.

# %%
tokenizer = precis.AutoTokenizer.from_pretrained(args.model)
encoded = tokenizer(train_records[0]["dialogue"], max_length=1024, truncation=True)
print(encoded["input_ids"][:20], "...", len(encoded["input_ids"]), "tokens")
print(tokenizer.decode(encoded["input_ids"], skip_special_tokens=True)[:80])

# %% [markdown]
# ## Fine-tuning the model
#
# Seq2SeqTrainingArguments takes transformers' names (and every other option of
# `precis train`); precis.train takes the model and the data as Seq2SeqTrainer does, shows a
# progress bar in the notebook, and returns trainer.train()'s TrainOutput. Under
# `mpirun -np N python summarization.py` the same call trains data-parallel.

# %%
training_args = precis.Seq2SeqTrainingArguments(
    output_dir=args.output_dir,
    eval_strategy="epoch",
    learning_rate=2e-5,
    per_device_train_batch_size=4,
    per_device_eval_batch_size=4,
    weight_decay=0.01,
    save_total_limit=3,
    num_train_epochs=1,
    max_steps=int(args.max_steps),
    predict_with_generate=True,
    max_source_length=1024,
    max_target_length=128,
    logging_steps=10,
)
history = []
result = precis.train(training_args, model_name_or_path=args.model, train_file=args.train_file,
                      validation_file=args.validation_file, callback=history.append)
print(result.global_step, "steps; training loss", result.training_loss)

# %% [markdown]
# ## Evaluating
#
# Trainer.evaluate() with predict_with_generate: the loss and run_summarization's ROUGE
# scores (rouge_score with the stemmer, ×100).

# %%
metrics = precis.evaluate(args.output_dir, args.validation_file, predict_with_generate=True, num_beams=4,
                          max_target_length=128, per_device_eval_batch_size=4,
                          output_dir=args.output_dir)
print({k: v for k, v in metrics.items() if "rouge" in k or k == "eval_loss"})

# %% [markdown]
# ## Trying the model
#
# The pipeline takes the checkpoint's generation settings, as transformers' does.

# %%
with open(args.validation_file) as f:
    validation_records = [json.loads(line) for line in f if line.strip()]
summarizer = precis.pipeline("summarization", model=args.output_dir)
dialogue = validation_records[0]["dialogue"]
summary = summarizer(dialogue, max_length=60)[0]["summary_text"]
print(dialogue, "\n->", summary)

# %% [markdown]
# ROUGE of the pipeline's summaries against the references, as
# `evaluate.load("rouge").compute` gives it.

# %%
sample = validation_records[:8]
predictions = [row["summary_text"] for row in summarizer([r["dialogue"] for r in sample], batch_size=4,
                                                         max_length=60)]
print(precis.rouge(predictions, [r["summary"] for r in sample], use_stemmer=True))

# %% [markdown]
# ## The model card
#
# README.md with the Hub's metadata (the ROUGE scores in model-index) and a loss curve, then,
# with a write token in HF_TOKEN, `precis.publish(args.output_dir, "USER/NAME")` pushes the
# model to the Hub.

# %%
readme = precis.card(args.output_dir, datasets=["samsum"])
print(open(readme).read()[:400])
