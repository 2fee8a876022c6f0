"""`precis train` against Seq2SeqTrainer (torch.optim.AdamW, linear schedule with warmup,
clipping), step for step, on a tiny random BART with dropout off; resume; the best checkpoint; bad input."""
import json
import os
import shutil

import pytest
import torch
from safetensors.torch import load_file
from transformers import AutoTokenizer, DataCollatorForSeq2Seq, Seq2SeqTrainer, Seq2SeqTrainingArguments

from bart_models import make_bart
from conftest import run_precis, train_tiny_bpe
from probe_support import reference_grads, run_backward

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


def make_job(tmp_path, dropout=0.0, **overrides):
    tokenizer = train_tiny_bpe(tmp_path / "base")
    model = make_bart("narrow-gelu", len(tokenizer), dropout=dropout, **overrides)
    with torch.no_grad():  # the usual init scale: training from large random weights diverges
        for p in model.parameters():
            p.mul_(0.1)
    model.save_pretrained(tmp_path / "base")
    records = [{"dialogue": s, "summary": t} for s, t in zip(SOURCES, SUMMARIES)]
    with open(tmp_path / "train.jsonl", "w") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    return model, AutoTokenizer.from_pretrained(tmp_path / "base"), records


def hf_trainer(model, tokenizer, records, tmp_path, eval_records=None, micro_batches=None, **overrides):
    """A Seq2SeqTrainer run with precis_train's arguments (plus overrides), trained; returns it
    and its training_step losses (each divided by gradient_accumulation_steps, as HF returns
    them). micro_batches, if a list, receives (loss, label tokens) of every micro-batch."""
    def features(rows):
        enc = tokenizer([r["dialogue"] for r in rows], max_length=64, truncation=True)
        labels = tokenizer(text_target=[r["summary"] for r in rows], max_length=32, truncation=True)
        return [{"input_ids": i, "attention_mask": m, "labels": l}
                for i, m, l in zip(enc["input_ids"], enc["attention_mask"], labels["input_ids"])]

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

    trainer = Recording(model=model, args=Seq2SeqTrainingArguments(**kwargs), train_dataset=features(records),
                        eval_dataset=None if eval_records is None else features(eval_records),
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


def precis_train(tmp_path, out, **overrides):
    job = dict(model_name_or_path=str(tmp_path / "base"), train_file=str(tmp_path / "train.jsonl"),
               output_dir=str(out), do_train=True, per_device_train_batch_size=len(SOURCES), learning_rate=1e-3,
               weight_decay=0.01, warmup_steps=1, max_grad_norm=1.0, max_steps=3, logging_steps=1,
               save_strategy="no", seed=7, max_source_length=64, max_target_length=32)
    job.update(overrides)
    (tmp_path / "job.json").write_text(json.dumps(job))
    result = run_precis("train", "--config", tmp_path / "job.json")
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
#   them by ~lr x 1e-6 (test_key_biases_have_no_gradient checks that premise).
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


def assert_steps_match(steps, ref_losses, ref_norms):
    """train_log.jsonl's three steps against Seq2SeqTrainer's losses and grad norms."""
    assert len(steps) == 3
    for step, loss, norm in zip(steps, ref_losses, ref_norms):
        assert abs(step["loss"] - loss) <= LOSS_RTOL * abs(loss), (step, loss)
        assert abs(step["grad_norm"] - norm) <= GRAD_NORM_RTOL * abs(norm), (step, norm)


CASES = {
    "plain": {},
    "label_smoothing": dict(label_smoothing_factor=0.1),
    # One example per micro-batch and six per step: each step is a whole epoch, so the order
    # (precis's sampler is not torch's) does not matter, while the summaries' different
    # lengths make HF's mean of micro-batch means differ from a mean over label tokens. With
    # label smoothing, whose loss is normalised per micro-batch the same way.
    "gradient_accumulation": dict(gradient_accumulation_steps=6, per_device_train_batch_size=1,
                                  label_smoothing_factor=0.1),
}


@pytest.mark.parametrize("case", list(CASES))
def test_three_steps_match_seq2seq_trainer(tmp_path, case):
    overrides = CASES[case]
    model, tokenizer, records = make_job(tmp_path)
    micro_batches = []
    ref, ref_losses, ref_norms = hf_train(model, tokenizer, records, tmp_path, micro_batches=micro_batches, **overrides)
    ours, steps, state, _ = precis_train(tmp_path, tmp_path / "out", **overrides)
    worst = compare_weights(ours, ref, BART_NOT_SAVED, BART_WEIGHT_LIMIT)
    print(f"{case}: worst weight diff {worst:.2e}, loss and grad norm relative diffs",
          [(f"{abs(s['loss'] - l) / l:.1e}", f"{abs(s['grad_norm'] - n) / n:.1e}")
           for s, l, n in zip(steps, ref_losses, ref_norms)])
    assert_steps_match(steps, ref_losses, ref_norms)
    assert state["global_step"] == 3 and [e["step"] for e in state["log_history"] if "loss" in e] == [1, 2, 3]
    if "gradient_accumulation_steps" in overrides:
        # The case can tell the two normalisations apart: over the first step's micro-batches,
        # the mean over label tokens is far outside the loss tolerance of HF's mean of means.
        first = micro_batches[:6]
        assert len({tokens for _, tokens in first}) > 1
        mean_of_means = sum(loss for loss, _ in first) / len(first)
        per_token = sum(loss * tokens for loss, tokens in first) / sum(tokens for _, tokens in first)
        print(f"first step: mean of micro-batch means {mean_of_means:.7f}, mean over tokens {per_token:.7f}")
        assert mean_of_means == pytest.approx(ref_losses[0], rel=1e-6)
        assert abs(per_token - mean_of_means) > 100 * LOSS_RTOL * mean_of_means


def test_key_biases_have_no_gradient(tmp_path):
    """The premise of BART_WEIGHT_LIMIT for the k_proj biases: a key bias adds the same amount
    to every score of a query, which softmax ignores, so its exact gradient is 0; HF's autograd
    and precis's backward (bart_probe grad) both give rounding noise far below Adam's eps, on
    the first training step's batch."""
    model, tokenizer, records = make_job(tmp_path)
    enc = tokenizer([r["dialogue"] for r in records], max_length=64, truncation=True)
    labels = tokenizer(text_target=[r["summary"] for r in records], max_length=32, truncation=True)
    batch = DataCollatorForSeq2Seq(tokenizer, model=model, label_pad_token_id=-100)(
        [{"input_ids": i, "attention_mask": m, "labels": l}
         for i, m, l in zip(enc["input_ids"], enc["attention_mask"], labels["input_ids"])])
    batch = {k: v for k, v in batch.items()}
    _, ref = reference_grads(model, batch, 0.0)
    ours = run_backward("bart_probe", tmp_path / "base", batch, 0.0, tmp_path)
    key_biases = [n for n in ref if n.endswith("k_proj.bias")]
    assert len(key_biases) == 6  # self-attention of 4 layers, cross-attention of 2
    for name in key_biases:
        value_bias = ref[name.replace("k_proj", "v_proj")].abs().max().item()
        ours_max, ref_max = ours[name].abs().max().item(), ref[name].abs().max().item()
        print(f"{name}: gradient at most {ours_max:.1e} (precis), {ref_max:.1e} (HF); v_proj.bias {value_bias:.1e}")
        # Below 1e-12, Adam (eps 1e-8) moves them by less than lr x 1e-4 per step; and ~0 next
        # to the value bias of the same attention, whose gradient is not 0.
        assert max(ours_max, ref_max) <= min(1e-12, 1e-6 * value_bias), name


def test_resume_is_bit_identical(tmp_path):
    make_job(tmp_path, dropout=0.1)
    # Two micro-batches of one example per step: checkpoint-2 falls inside the first epoch,
    # after 4 of its 6 examples.
    common = dict(max_steps=4, save_strategy="steps", save_steps=2, per_device_train_batch_size=1,
                  gradient_accumulation_steps=2)
    straight, _, _, _ = precis_train(tmp_path, tmp_path / "straight", **common)
    # An interrupted run: keep only checkpoint-2, as if the job died after saving it.
    precis_train(tmp_path, tmp_path / "resumed", **common)
    for entry in os.listdir(tmp_path / "resumed"):
        if entry != "checkpoint-2":
            path = tmp_path / "resumed" / entry
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    resumed, steps, state, result = precis_train(tmp_path, tmp_path / "resumed", **common)
    assert "resuming from" in result.stderr
    assert [s["step"] for s in steps] == [3, 4]
    assert straight.keys() == resumed.keys()
    for name in straight:
        assert torch.equal(straight[name], resumed[name]), name


def test_bad_options_and_data_are_clear_errors(tmp_path):
    make_job(tmp_path)
    base = ["train", "--model_name_or_path", tmp_path / "base", "--train_file", tmp_path / "train.jsonl",
            "--output_dir", tmp_path / "out", "--do_train"]
    r = run_precis(*base, "--learnig_rate", "1e-4", check=False)
    assert r.returncode == 1 and "--learnig_rate" in r.stderr and "did you mean --learning_rate" in r.stderr
    r = run_precis(*base, "--learning_rate", "fast", check=False)
    assert r.returncode == 1 and "learning_rate" in r.stderr and "fast" in r.stderr
    (tmp_path / "bad.jsonl").write_text('{"dialogue": "a", "summary": "b"}\n{"dialogue": "c", "summary": 5}\n')
    r = run_precis("train", "--model_name_or_path", tmp_path / "base", "--train_file", tmp_path / "bad.jsonl",
                   "--output_dir", tmp_path / "out2", "--do_train", check=False)
    assert r.returncode == 1 and "bad.jsonl:2" in r.stderr and "summary" in r.stderr
    r = run_precis(*base, "--dataset_name", "samsum", check=False)
    assert r.returncode == 1 and "--train_file" in r.stderr


# save_steps 4: HF 4.44 chooses the best model in _save_checkpoint, among the steps that both
# evaluate and save, so step 2's evaluation (the lowest loss) does not count.
@pytest.mark.parametrize("save_steps", [2, 4])
def test_load_best_model_at_end_keeps_the_best_checkpoint(tmp_path, save_steps):
    model, tokenizer, records = make_job(tmp_path)
    # Validation summaries in characters the training summaries never use: as training moves
    # probability to the training summaries' tokens, the validation loss goes up, so the best
    # checkpoint is not the last. The batch is the whole data set, so precis and HF see the
    # same batches.
    valid = [dict(r, summary=s) for r, s in zip(records, ["12345 ½ ⅓ ² ³", "中文字符", "日本語のテキスト", "한국어 텍스트",
                                                            "∑ x² ≤ ∞ → λ", "©®™ §¶ 😀👍🏽"])]
    with open(tmp_path / "valid.jsonl", "w") as f:
        for r in valid:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    args = dict(max_steps=6, learning_rate=0.05, warmup_steps=0, save_strategy="steps", save_steps=save_steps,
                eval_strategy="steps", eval_steps=2, load_best_model_at_end=True, metric_for_best_model="loss",
                save_total_limit=1)
    hf, _ = hf_trainer(model, tokenizer, records, tmp_path, eval_records=valid, **args)
    ours, _, state, _ = precis_train(tmp_path, tmp_path / "out", validation_file=str(tmp_path / "valid.jsonl"),
                                     do_eval=True, **args)
    evals = {e["step"]: e["eval_loss"] for e in state["log_history"] if "eval_loss" in e and "step" in e}
    hf_evals = {e["step"]: e["eval_loss"] for e in hf.state.log_history if "eval_loss" in e}
    print(f"eval_loss by step: precis {evals}, HF {hf_evals}")
    assert sorted(evals) == sorted(hf_evals) == [2, 4, 6]
    for step, loss in hf_evals.items():
        assert evals[step] == pytest.approx(loss, rel=LOSS_RTOL), step
    best_step = min((step for step in hf_evals if step % save_steps == 0), key=hf_evals.get)
    assert best_step != 6  # so that loading the best model is not a no-op
    if save_steps == 4:
        assert min(hf_evals, key=hf_evals.get) == 2  # a better evaluation without a checkpoint
    assert os.path.basename(hf.state.best_model_checkpoint) == f"checkpoint-{best_step}"
    assert os.path.basename(state["best_model_checkpoint"]) == f"checkpoint-{best_step}"
    assert state["best_metric"] == evals[best_step]
    assert state["best_metric"] == pytest.approx(hf.state.best_metric, rel=LOSS_RTOL)
    # The final weights are the best checkpoint's, bit for bit, and HF's (which loaded its best):
    # two Adam updates at lr 0.05, BART_WEIGHT_LIMIT's reasoning at 50 times its learning rate
    # (measured 4.9e-6).
    best = load_file(str(tmp_path / "out" / f"checkpoint-{best_step}" / "model.safetensors"))
    assert best.keys() == ours.keys()
    for name in best:
        assert torch.equal(best[name], ours[name]), name
    ref = {k: v.detach() for k, v in hf.model.state_dict().items()}
    worst = compare_weights(ours, ref, BART_NOT_SAVED, 4e-5)
    print(f"final weights against HF's best model: max abs diff {worst:.2e}")
    # save_total_limit 1 keeps the newest beside the best while training, then only the best
    # (HF 4.44 trainer.py: "Delete the last checkpoint when save_total_limit=1").
    hf_kept = sorted(p.name for p in (tmp_path / "hf").iterdir() if p.name.startswith("checkpoint-"))
    kept = sorted(p.name for p in (tmp_path / "out").iterdir() if p.name.startswith("checkpoint-"))
    assert kept == hf_kept == [f"checkpoint-{best_step}"]
