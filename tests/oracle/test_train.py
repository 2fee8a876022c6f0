"""`precis train` against Seq2SeqTrainer (torch.optim.AdamW, linear schedule with warmup,
clipping), step for step, on a tiny random BART with dropout off; resume; bad input."""
import json
import os
import shutil

import pytest
import torch
from safetensors.torch import load_file
from transformers import AutoTokenizer, DataCollatorForSeq2Seq, Seq2SeqTrainer, Seq2SeqTrainingArguments

from bart_models import make_bart
from conftest import run_precis, train_tiny_bpe

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


def make_job(tmp_path, same_summaries=False, dropout=0.0, **overrides):
    tokenizer = train_tiny_bpe(tmp_path / "base")
    model = make_bart("narrow-gelu", len(tokenizer), dropout=dropout, **overrides)
    with torch.no_grad():  # the usual init scale: training from large random weights diverges
        for p in model.parameters():
            p.mul_(0.1)
    model.save_pretrained(tmp_path / "base")
    summaries = [SUMMARIES[0]] * len(SOURCES) if same_summaries else SUMMARIES
    records = [{"dialogue": s, "summary": t} for s, t in zip(SOURCES, summaries)]
    with open(tmp_path / "train.jsonl", "w") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    return model, AutoTokenizer.from_pretrained(tmp_path / "base"), records


def hf_train(model, tokenizer, records, tmp_path, **overrides):
    enc = tokenizer([r["dialogue"] for r in records], max_length=64, truncation=True)
    labels = tokenizer(text_target=[r["summary"] for r in records], max_length=32, truncation=True)
    features = [{"input_ids": i, "attention_mask": m, "labels": l}
                for i, m, l in zip(enc["input_ids"], enc["attention_mask"], labels["input_ids"])]
    kwargs = dict(output_dir=str(tmp_path / "hf"), per_device_train_batch_size=len(records), learning_rate=1e-3,
                  weight_decay=0.01, warmup_steps=1, max_grad_norm=1.0, max_steps=3, logging_steps=1,
                  save_strategy="no", report_to=[], use_cpu=True, seed=7, optim="adamw_torch")
    kwargs.update(overrides)
    losses = []

    class Recording(Seq2SeqTrainer):
        def training_step(self, *args, **kw):
            loss = super().training_step(*args, **kw)
            losses.append(loss.item())
            return loss

    trainer = Recording(model=model, args=Seq2SeqTrainingArguments(**kwargs), train_dataset=features,
                        data_collator=DataCollatorForSeq2Seq(tokenizer, model=model, label_pad_token_id=-100))
    trainer.train()
    ga = kwargs.get("gradient_accumulation_steps", 1)
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


def compare_weights(ours, ref):
    worst = 0.0
    for name, ref_value in ref.items():
        if name not in ours:
            continue  # tied aliases
        diff = (ours[name] - ref_value).abs().max().item()
        # k_proj biases: their true gradient is 0, so Adam turns rounding noise into updates of
        # size lr on both sides; they are checked loosely (the rule).
        limit = 2e-3 if name.endswith("k_proj.bias") else 1e-5
        assert diff <= limit, f"{name}: max abs diff {diff}"
        if not name.endswith("k_proj.bias"):
            worst = max(worst, diff)
    return worst


def assert_steps_match(steps, ref_losses, ref_norms):
    """train_log.jsonl's three steps against Seq2SeqTrainer's losses and grad norms (1e-5 relative)."""
    assert len(steps) == 3
    for step, loss, norm in zip(steps, ref_losses, ref_norms):
        assert abs(step["loss"] - loss) <= 1e-5 * abs(loss), (step, loss)
        assert abs(step["grad_norm"] - norm) <= 1e-5 * abs(norm), (step, norm)


@pytest.mark.parametrize("case", ["plain", "label_smoothing", "gradient_accumulation"])
def test_three_steps_match_seq2seq_trainer(tmp_path, case):
    overrides = {}
    if case == "label_smoothing":
        overrides = dict(label_smoothing_factor=0.1)
    if case == "gradient_accumulation":
        # Two micro-batches per step; equal label lengths make the split irrelevant.
        overrides = dict(gradient_accumulation_steps=2, per_device_train_batch_size=len(SOURCES) // 2)
    model, tokenizer, records = make_job(tmp_path, same_summaries=case == "gradient_accumulation")
    ref, ref_losses, ref_norms = hf_train(model, tokenizer, records, tmp_path, **overrides)
    ours, steps, state, _ = precis_train(tmp_path, tmp_path / "out", **overrides)
    worst = compare_weights(ours, ref)
    print(f"{case}: worst weight diff {worst:.2e}")
    assert_steps_match(steps, ref_losses, ref_norms)
    assert state["global_step"] == 3 and [e["step"] for e in state["log_history"] if "loss" in e] == [1, 2, 3]


def test_resume_is_bit_identical(tmp_path):
    make_job(tmp_path, dropout=0.1)
    common = dict(max_steps=4, save_strategy="steps", save_steps=2, per_device_train_batch_size=2)
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


def test_load_best_model_at_end_keeps_the_best_checkpoint(tmp_path):
    make_job(tmp_path)
    (tmp_path / "valid.jsonl").write_text((tmp_path / "train.jsonl").read_text())
    # A learning rate high enough that the loss goes up again, so the best is not the last.
    ours, _, state, _ = precis_train(
        tmp_path, tmp_path / "out", max_steps=6, learning_rate=0.05, warmup_steps=0, save_strategy="steps",
        save_steps=2, eval_strategy="steps", eval_steps=2, validation_file=str(tmp_path / "valid.jsonl"),
        do_eval=True, load_best_model_at_end=True, metric_for_best_model="loss", save_total_limit=1)
    evals = {e["step"]: e["eval_loss"] for e in state["log_history"] if "eval_loss" in e and "step" in e}
    assert sorted(evals) == [2, 4, 6]
    best_step = min(evals, key=evals.get)
    assert state["best_metric"] == evals[best_step]
    assert state["best_model_checkpoint"].endswith(f"checkpoint-{best_step}")
    best = load_file(str(tmp_path / "out" / f"checkpoint-{best_step}" / "model.safetensors"))
    for name in best:
        assert torch.equal(best[name], ours[name]), name
    # save_total_limit 1 keeps the best checkpoint (and the newest, as HF does).
    kept = sorted(p.name for p in (tmp_path / "out").iterdir() if p.name.startswith("checkpoint-"))
    assert f"checkpoint-{best_step}" in kept and len(kept) <= 2
