"""`precis train` against Seq2SeqTrainer (torch.optim.AdamW, linear schedule with warmup,
clipping), step for step, on a tiny random BART with dropout off; resume; the best checkpoint; bad input."""
import os
import shutil

import pytest
import torch
from safetensors.torch import load_file
from transformers import DataCollatorForSeq2Seq

from conftest import run_precis
from probe_support import reference_grads, run_backward
from train_support import (BART_NOT_SAVED, BART_WEIGHT_LIMIT, LOSS_RTOL, assert_steps_match, compare_weights,
                           features, hf_train, hf_trainer, make_job, precis_train, write_records)

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
    # As the trainer collates it: decoder_input_ids from the labels (the model's
    # prepare_decoder_input_ids_from_labels), labels padded with -100.
    batch = DataCollatorForSeq2Seq(tokenizer, model=model, label_pad_token_id=-100)(features(tokenizer, records))
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
    write_records(tmp_path / "valid.jsonl", valid)
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
