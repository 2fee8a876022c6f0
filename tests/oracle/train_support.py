"""Training jobs for the oracle tests: a tiny BART and six dialogue/summary records on disk,
the same examples as Seq2SeqTrainer's features, a Seq2SeqTrainer run and a `precis train`
run with the same arguments, and the bounds and comparisons of their steps and weights;
`precis train` on N ranks."""
import copy
import json
import re
import subprocess

import torch
from accelerate.state import AcceleratorState
from safetensors.torch import load_file
from transformers import AutoTokenizer, DataCollatorForSeq2Seq, Seq2SeqTrainer, Seq2SeqTrainingArguments

from bart_models import make_bart, spread_weights
from conftest import run_precis, train_tiny_bpe
from process_support import ENV, launch

SOURCES = [
    "Amanda: I baked cookies. Do you want some?\nJerry: Sure!\nAmanda: I'll bring you tomorrow :-)",
    "Olivia: Who are you voting for in this election?\nOliver: Liberals as always.",
    "Tim: Hi, what's up?\nKim: Bad mood tbh, I was going to do lots of stuff but ended up procrastinating",
    "Café déjà vu: the emoji 😀 and 中文 text go in too.",
    "Summaries are short; dialogues are long and have many turns between speakers.",
    "The quick brown fox jumps over the lazy dog.",
]
SUMMARIES = [
    "Amanda will bring Jerry cookies.", "They vote liberal.", "Kim is in a bad mood.",
    "Unicode text.", "Summaries are short.", "A fox jumps.",
]
# What precis_train and the distributed train() pass as max_source_length / max_target_length.
MAX_SOURCE_LENGTH, MAX_TARGET_LENGTH = 64, 32


def write_records(path, records):
    with open(path, "w") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def make_job(tmp_path, dropout=0.0, **overrides):
    """tmp_path/base (make_bart's narrow-gelu at the usual init scale, with a tiny BPE) and
    tmp_path/train.jsonl (SOURCES and SUMMARIES); returns the model, its tokenizer and the
    records."""
    tokenizer = train_tiny_bpe(tmp_path / "base")
    model = make_bart("narrow-gelu", len(tokenizer), dropout=dropout, **overrides)
    with torch.no_grad():  # the usual init scale: training from large random weights diverges
        for p in model.parameters():
            p.mul_(0.1)
    model.save_pretrained(tmp_path / "base")
    records = [{"dialogue": s, "summary": t} for s, t in zip(SOURCES, SUMMARIES)]
    write_records(tmp_path / "train.jsonl", records)
    return model, AutoTokenizer.from_pretrained(tmp_path / "base"), records


def make_predict_job(directory):
    """A tokenizer, a model and a data file (directory/base, directory/data.jsonl) for predict
    and evaluation tests; returns the tokenizer and the records.

    The model is make_bart's narrow-gelu re-drawn by spread_weights, untied (a tied head keeps
    repeating the last token), with a final_logits_bias that allows only whole-word tokens and
    EOS: its greedy and beam predictions are words, differ between inputs, and some rows end by
    EOS before max length. Each reference is the model's greedy prediction altered: halves
    swapped onto two lines (rougeLsum's summary-level LCS then differs from rougeL's) and a
    word of its own added, so ROUGE is neither 0 nor 100 and differs from row to row.
    Nothing has ".", "!" or "?", the only places where nltk.sent_tokenize (run_summarization's
    postprocess_text) splits, so it leaves every text as it is (test_train_predict's
    summarization_metrics asserts this of the predictions and references)."""
    tokenizer = train_tiny_bpe(directory / "base")
    model = make_bart("narrow-gelu", len(tokenizer), tie_word_embeddings=False)
    spread_weights(model, 0, eos_bias=5.0)
    words = [i for t, i in tokenizer.get_vocab().items() if re.fullmatch(r"Ġ[A-Za-z]{2,}", t)]
    with torch.no_grad():
        allowed = torch.full_like(model.final_logits_bias, -30.0)
        allowed[0, words] = 0.0
        allowed[0, model.config.eos_token_id] = 0.0
        model.final_logits_bias += allowed
    model.save_pretrained(directory / "base")
    enc = tokenizer(SOURCES, max_length=MAX_SOURCE_LENGTH, truncation=True, padding=True, return_tensors="pt")
    with torch.no_grad():
        greedy = model.generate(**enc, max_length=12, num_beams=1)
    own_words = ["cookies", "liberal", "mood", "unicode", "short", "fox"]
    records = []
    for source, prediction, word in zip(SOURCES, tokenizer.batch_decode(greedy, skip_special_tokens=True), own_words):
        w = prediction.split()
        half = (len(w) + 1) // 2
        summary = " ".join(w[half:]) + "\n" + " ".join(w[:half] + [word]) if len(w) > 1 else f"{word} {prediction}"
        records.append({"dialogue": source, "summary": summary.strip()})
    write_records(directory / "data.jsonl", records)
    return AutoTokenizer.from_pretrained(directory / "base"), records


def features(tokenizer, records, max_source_length=MAX_SOURCE_LENGTH, max_target_length=MAX_TARGET_LENGTH):
    """run_summarization's preprocess_function on `records`: one unpadded example each
    (input_ids, attention_mask, labels), as Seq2SeqTrainer's datasets hold them."""
    enc = tokenizer([r["dialogue"] for r in records], max_length=max_source_length, truncation=True)
    labels = tokenizer(text_target=[r["summary"] for r in records], max_length=max_target_length, truncation=True)
    return [{"input_ids": i, "attention_mask": m, "labels": l}
            for i, m, l in zip(enc["input_ids"], enc["attention_mask"], labels["input_ids"])]


def padded_batch(tokenizer, records, max_source_length=MAX_SOURCE_LENGTH, max_target_length=MAX_TARGET_LENGTH):
    """`records` as one batch, padded as DataCollatorForSeq2Seq pads (labels with -100):
    input_ids, attention_mask and labels tensors, for model(**batch).loss and generate()."""
    collate = DataCollatorForSeq2Seq(tokenizer, label_pad_token_id=-100, return_tensors="pt")
    return collate(features(tokenizer, records, max_source_length, max_target_length))


def hf_trainer(model, tokenizer, records, tmp_path, eval_records=None, micro_batches=None, **overrides):
    """A Seq2SeqTrainer run with precis_train's arguments (plus overrides), trained; returns it
    and its training_step losses (each divided by gradient_accumulation_steps, as HF returns
    them). micro_batches, if a list, receives (loss, label tokens) of every micro-batch."""
    kwargs = dict(output_dir=str(tmp_path / "hf"), per_device_train_batch_size=len(records), learning_rate=1e-3,
                  weight_decay=0.01, warmup_steps=1, max_grad_norm=1.0, max_steps=3, logging_steps=1,
                  save_strategy="no", report_to=[], use_cpu=True, seed=7, optim="adamw_torch")
    kwargs.update(overrides)
    losses = []

    class Recording(Seq2SeqTrainer):
        def training_step(self, model, inputs, *args, **kw):
            loss = super().training_step(model, inputs, *args, **kw)
            losses.append(loss.item())
            if micro_batches is not None:
                micro_batches.append((loss.item() * self.args.gradient_accumulation_steps,
                                      int((inputs["labels"] != -100).sum())))
            return loss

    trainer = Recording(model=model, args=Seq2SeqTrainingArguments(**kwargs),
                        train_dataset=features(tokenizer, records),
                        eval_dataset=None if eval_records is None else features(tokenizer, eval_records),
                        data_collator=DataCollatorForSeq2Seq(tokenizer, model=model, label_pad_token_id=-100))
    trainer.train()
    return trainer, losses


def hf_train(model, tokenizer, records, tmp_path, micro_batches=None, **overrides):
    """Seq2SeqTrainer's final weights, per-step losses and grad norms."""
    trainer, losses = hf_trainer(model, tokenizer, records, tmp_path, micro_batches=micro_batches, **overrides)
    ga = trainer.args.gradient_accumulation_steps
    step_losses = [sum(losses[i:i + ga]) for i in range(0, len(losses), ga)]
    grad_norms = [e["grad_norm"] for e in trainer.state.log_history if "grad_norm" in e]
    return {k: v.detach().clone() for k, v in model.state_dict().items()}, step_losses, grad_norms


def hf_train_fp32_then_bf16(model, tokenizer, records, tmp_path, monkeypatch):
    """Seq2SeqTrainer's fp32 gradient norms (on a copy of `model`), then its bf16 run: (fp32
    norms, bf16 weights, bf16 losses, bf16 norms). A bf16 TrainingArguments writes
    ACCELERATE_MIXED_PRECISION=bf16 into os.environ, and accelerate's state is a process-wide
    singleton: both would carry one Trainer's mixed precision into the next (this test's, or the
    next test's), so the variable is set through monkeypatch (restored afterwards) and the state
    reset around each run."""
    fp32_model = copy.deepcopy(model)
    monkeypatch.setenv("ACCELERATE_MIXED_PRECISION", "no")
    AcceleratorState._reset_state(reset_partial_state=True)
    _, _, fp32_norms = hf_train(fp32_model, tokenizer, records, tmp_path / "fp32")
    AcceleratorState._reset_state(reset_partial_state=True)
    ref, ref_losses, ref_norms = hf_train(model, tokenizer, records, tmp_path, bf16=True)
    AcceleratorState._reset_state(reset_partial_state=True)
    return fp32_norms, ref, ref_losses, ref_norms


def precis_train(tmp_path, out, binary="precis", **overrides):
    """`precis train` (or `binary train`) on make_job's files with hf_trainer's arguments (plus
    overrides): its weights, train_log.jsonl lines, trainer_state.json and the CompletedProcess."""
    job = dict(model_name_or_path=str(tmp_path / "base"), train_file=str(tmp_path / "train.jsonl"),
               output_dir=str(out), do_train=True, per_device_train_batch_size=len(SOURCES), learning_rate=1e-3,
               weight_decay=0.01, warmup_steps=1, max_grad_norm=1.0, max_steps=3, logging_steps=1,
               save_strategy="no", seed=7, max_source_length=MAX_SOURCE_LENGTH, max_target_length=MAX_TARGET_LENGTH)
    job.update(overrides)
    (tmp_path / "job.json").write_text(json.dumps(job))
    result = run_precis("train", "--config", tmp_path / "job.json", binary=binary)
    state = json.loads((out / "trainer_state.json").read_text())
    steps = [json.loads(line) for line in (out / "train_log.jsonl").read_text().splitlines()]
    return load_file(str(out / "model.safetensors")), steps, state, result


# Tolerances, float32 on both sides. The issue-level bounds are 1e-5 for weights after three
# steps and 1e-5 relative for losses and gradient norms: what any fp32 summation order must
# meet. The tests assert bounds near what fp32 gives here (measured on BART and T5, plain,
# label smoothing and accumulation, about 8x above the worst), so that a regression of 10x,
# let alone 100x, fails:
# - a step's loss, the mean cross-entropy of ~50 label tokens over 601 logits, reduced in
#   another order: a few ulp (measured <= 1.1e-7 relative);
LOSS_RTOL = 1e-6
# - the gradient norm, the root of a sum of ~100k squares in another order, each gradient
#   off by its own rounding (measured <= 3.9e-7 relative);
GRAD_NORM_RTOL = 3e-6
# - BART's weights after two Adam updates (the first step's learning rate is 0: warmup 1).
#   Adam divides each gradient by its own running magnitude, so a weight moves by up to lr
#   times the relative rounding of its gradient, which reaches 1e-4 on near-zero gradients
#   (measured <= 2.8e-7 at lr 1e-3). The k_proj biases are held to it too: their exact
#   gradient is 0 and both sides compute ~1e-14, far below Adam's eps of 1e-8, so Adam moves
#   them by ~lr x 1e-6 (test_train's test_key_biases_have_no_gradient checks that premise).
BART_WEIGHT_LIMIT = 2e-6
# HF's state_dict names the shared embedding four times; save_pretrained, and precis, write
# model.shared.weight alone.
BART_NOT_SAVED = {"model.encoder.embed_tokens.weight", "model.decoder.embed_tokens.weight", "lm_head.weight"}


def compare_weights(ours, ref, not_saved, limit):
    """Every tensor of HF's state_dict but the tied aliases `not_saved` is in precis's file and
    within `limit` (max abs); returns the largest difference."""
    assert set(ours) == set(ref) - not_saved, (sorted(set(ref) - not_saved - set(ours)), sorted(set(ours) - set(ref)))
    worst = 0.0
    for name, value in ours.items():
        diff = (value - ref[name]).abs().max().item()
        assert diff <= limit, f"{name}: max abs diff {diff}"
        worst = max(worst, diff)
    return worst


def assert_steps_match(steps, ref_losses, ref_norms, count=3):
    """train_log.jsonl's `count` steps against Seq2SeqTrainer's losses and grad norms, within
    LOSS_RTOL and GRAD_NORM_RTOL."""
    assert len(steps) == len(ref_losses) == len(ref_norms) == count, (len(steps), len(ref_losses), len(ref_norms))
    for step, loss, norm in zip(steps, ref_losses, ref_norms):
        assert abs(step["loss"] - loss) <= LOSS_RTOL * abs(loss), (step, loss)
        assert abs(step["grad_norm"] - norm) <= GRAD_NORM_RTOL * abs(norm), (step, norm)


def train(tmp_path, out, ranks, check=True, binary="precis", **overrides):
    """`precis train` on make_job's files on `ranks` ranks (one OpenMP thread each), five steps
    unless overridden; the job is written to tmp_path/job-<out's name>.json. It follows
    transformers 5 unless overridden: its loss is over the label tokens of all ranks, so that
    N ranks x b equal 1 rank x Nb, which the tests of world sizes compare (4.44 averages the
    ranks' own means)."""
    job = dict(model_name_or_path=str(tmp_path / "base"), train_file=str(tmp_path / "train.jsonl"),
               output_dir=str(out), do_train=True, learning_rate=1e-3, weight_decay=0.01, warmup_steps=1,
               max_grad_norm=1.0, max_steps=5, logging_steps=1, save_strategy="no", seed=7,
               max_source_length=MAX_SOURCE_LENGTH, max_target_length=MAX_TARGET_LENGTH, hf_semantics="5")
    job.update(overrides)
    config = tmp_path / f"job-{out.name}.json"
    config.write_text(json.dumps(job))
    result = subprocess.run(launch(ranks, "train", "--config", config, binary=binary), capture_output=True, text=True,
                            env=ENV, timeout=600)
    if check:
        assert result.returncode == 0, result.stderr
    return result


def weights(out):
    return load_file(str(out / "model.safetensors"))


def max_diff(a, b):
    assert a.keys() == b.keys()
    return max((a[k] - b[k]).abs().max().item() for k in a)
