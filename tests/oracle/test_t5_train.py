"""`precis train` on tiny random T5 v1.0 and v1.1 checkpoints against Seq2SeqTrainer (three
AdamW steps: losses, gradient norms and every weight; --source_prefix as run_summarization
applies it), then the trained checkpoint through `precis eval` (loss and generated
predictions) and `precis serve` (summaries), each against transformers loading the same
directory."""
import json

import pytest
import torch
from transformers import AutoTokenizer, T5ForConditionalGeneration, T5Tokenizer

from conftest import run_precis
from process_support import MPIRUN
from serve_support import Server, post_json
from t5_models import make_t5, spread_weights, train_tiny_spiece
from train_support import (LOSS_RTOL, SOURCES, SUMMARIES, assert_steps_match, compare_weights, hf_train, max_diff,
                           padded_batch, precis_train, train, weights, write_records)

pytest.importorskip("sentencepiece")


def make_t5_job(tmp_path, name, dropout=0.0, **overrides):
    corpus = (SOURCES + SUMMARIES) * 20
    tokenizer = train_tiny_spiece(tmp_path / "spm", corpus, vocab_size=120)
    model = make_t5(name, len(tokenizer), scale=0.1, dropout=dropout, **overrides)
    model.save_pretrained(tmp_path / "base")
    tokenizer.save_pretrained(tmp_path / "base")
    records = [{"dialogue": s, "summary": t} for s, t in zip(SOURCES, SUMMARIES)]
    write_records(tmp_path / "train.jsonl", records)
    return model, tokenizer, records


@pytest.mark.parametrize("name", ["v1_0-relu-tied", "v1_1-gated-gelu-untied"])
@pytest.mark.parametrize("case", ["plain", "label_smoothing"])
def test_three_steps_match_seq2seq_trainer(tmp_path, name, case):
    overrides = dict(label_smoothing_factor=0.1) if case == "label_smoothing" else {}
    model, tokenizer, records = make_t5_job(tmp_path, name)
    ref, ref_losses, ref_norms = hf_train(model, tokenizer, records, tmp_path, **overrides)
    ours, steps, state, result = precis_train(tmp_path, tmp_path / "out", **overrides)
    assert "didn't provide a source prefix" in result.stderr
    not_saved = {k for k in ref if k.startswith(("encoder.embed_tokens", "decoder.embed_tokens"))
                 or (k == "lm_head.weight" and model.config.tie_word_embeddings)}
    # The issue-level 1e-5 is already near fp32 here: measured <= 1.4e-6 (shared.weight, v1.1
    # with label smoothing), Adam amplifying the rounding of near-zero gradients.
    worst = compare_weights(ours, ref, not_saved, 1e-5)
    print(f"{name} {case}: worst weight diff {worst:.2e}")
    assert_steps_match(steps, ref_losses, ref_norms)
    assert state["global_step"] == 3


def test_train_applies_the_source_prefix(tmp_path):
    """`precis train --source_prefix` puts the prefix before every source, as run_summarization's
    preprocess_function does (prefix + inp): two steps equal Seq2SeqTrainer on the prefixed
    sources (losses and gradient norms, at the common bounds), and the prefix changes the first
    loss by far more than those, so training without it would fail. (The weights are spread so
    that the loss depends on the input; Adam's first steps then amplify rounding in near-zero
    gradients beyond test_three_steps_match_seq2seq_trainer's weight bound, so weights are that
    test's check.)"""
    prefix = "summarize: "
    model, tokenizer, records = make_t5_job(tmp_path, "v1_0-relu-tied")
    spread_weights(model, seed=5).save_pretrained(tmp_path / "base")
    prefixed = [dict(r, dialogue=prefix + r["dialogue"]) for r in records]
    with torch.no_grad():  # the first step's loss: the batch's mean cross-entropy at the initial weights
        without_prefix = model(**padded_batch(tokenizer, records)).loss.item()
    _, ref_losses, ref_norms = hf_train(model, tokenizer, prefixed, tmp_path, max_steps=2)
    _, steps, state, result = precis_train(tmp_path, tmp_path / "out", max_steps=2, source_prefix=prefix)
    assert "didn't provide a source prefix" not in result.stderr
    print(f"first loss with the prefix {ref_losses[0]:.6f}, without {without_prefix:.6f}")
    assert abs(ref_losses[0] - without_prefix) > 1000 * LOSS_RTOL * abs(ref_losses[0])
    print("relative diffs (loss, grad norm):",
          [(f"{abs(s['loss'] - l) / l:.1e}", f"{abs(s['grad_norm'] - n) / n:.1e}")
           for s, l, n in zip(steps, ref_losses, ref_norms)])
    assert_steps_match(steps, ref_losses, ref_norms, count=2)
    assert state["global_step"] == 2


@pytest.mark.skipif(MPIRUN is None, reason="mpirun (openmpi-bin) is not installed")
@pytest.mark.parametrize("name", ["v1_0-relu-tied", "v1_1-gated-gelu-untied"])
def test_two_ranks_and_zero1_equal_one_rank(tmp_path, name):
    # Wide enough (about 3 MiB of gradients) that 1 MiB buckets give several, each all-reduced
    # at the backward stage that completes it: a bucket started before its last gradient
    # arrived would make the two-rank weights differ.
    make_t5_job(tmp_path, name, dropout=0.1, d_model=96, d_kv=32, num_heads=3, d_ff=384)
    train(tmp_path, tmp_path / "one", 1, per_device_train_batch_size=4)
    two = train(tmp_path, tmp_path / "two", 2, per_device_train_batch_size=2, ddp_bucket_cap_mb=1)
    train(tmp_path, tmp_path / "zero", 2, per_device_train_batch_size=2, zero_stage=1)
    summary = json.loads((tmp_path / "two" / "job_summary.json").read_text())
    print(next(l for l in two.stderr.splitlines() if "all-reduce in" in l))
    assert summary["allreduce_buckets"] >= 3
    one = weights(tmp_path / "one")
    for run in ("two", "zero"):
        diff = max_diff(one, weights(tmp_path / run))
        print(f"T5 {name} {run} vs one rank after 5 steps with dropout: max abs diff {diff:.2e}")
        assert diff <= 1e-6


def test_fp16_is_refused_with_the_reason(tmp_path):
    make_t5_job(tmp_path, "v1_1-gated-gelu-untied")
    r = run_precis("train", "--model_name_or_path", tmp_path / "base", "--train_file", tmp_path / "train.jsonl",
                   "--output_dir", tmp_path / "out", "--do_train", "--fp16", check=False)
    assert r.returncode != 0 and "T5 overflows in float16" in r.stderr


def test_train_then_eval_then_serve(tmp_path):
    make_t5_job(tmp_path, "v1_1-gated-gelu-untied")
    out = tmp_path / "out"
    precis_train(tmp_path, out, max_steps=5, source_prefix="summarize: ")
    # The trained directory loads in transformers: model, slow and fast tokenizers.
    hf = T5ForConditionalGeneration.from_pretrained(out).eval()
    tok = T5Tokenizer.from_pretrained(out, legacy=True)
    AutoTokenizer.from_pretrained(out)
    records = [json.loads(line) for line in (tmp_path / "train.jsonl").read_text().splitlines()]
    prefixed = [dict(r, dialogue="summarize: " + r["dialogue"]) for r in records]
    sources = [r["dialogue"] for r in prefixed]

    # precis eval: the loss of the collated batch, and generate() + decode of every input.
    run_precis("eval", "--model", out, "--data", tmp_path / "train.jsonl", "--source_prefix", "summarize: ",
               "--max_target_length", 32, "--predict_with_generate", "--num_beams", 2,
               "--generation_max_length", 12, "--output_dir", tmp_path / "eval")
    metrics = json.loads((tmp_path / "eval" / "eval_results.json").read_text())
    batch = padded_batch(tok, prefixed, max_source_length=1024)  # precis eval's default, as run_summarization's
    with torch.no_grad():
        loss = hf(**batch).loss.item()
        generated = hf.generate(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], num_beams=2,
                                max_length=12)
    assert abs(metrics["eval_loss"] - loss) <= 1e-5 * abs(loss), (metrics["eval_loss"], loss)
    predictions = (tmp_path / "eval" / "generated_predictions.txt").read_text().split("\n")
    assert predictions == [t.strip() for t in tok.batch_decode(generated, skip_special_tokens=True)]

    # precis serve: the Inference API's summaries equal generate() + decode.
    with Server(out, "--batch_wait_ms", 2) as server:
        for text in sources[:3]:
            status, body, _ = post_json(server.port, {"inputs": text, "parameters": {"num_beams": 2, "max_length": 12}})
            assert status == 200, body
            with torch.no_grad():
                ref = hf.generate(**tok([text], return_tensors="pt"), num_beams=2, max_length=12)
            assert body == [{"summary_text": tok.decode(ref[0], skip_special_tokens=True)}]
        assert server.stop() == 0


def test_from_scratch_initialisation_matches_transformers_statistics(tmp_path):
    """config_name + tokenizer_name: a new T5 with HF's _init_weights scales (lr 0 keeps them)."""
    model, tokenizer, _ = make_t5_job(tmp_path, "v1_1-gated-gelu-untied")
    config = model.config.to_dict()
    config.update(d_model=64, d_kv=16, d_ff=96, num_heads=4, initializer_factor=1.0)
    (tmp_path / "config.json").write_text(json.dumps(config))
    job = dict(config_name=str(tmp_path / "config.json"), tokenizer_name=str(tmp_path / "base"),
               train_file=str(tmp_path / "train.jsonl"), output_dir=str(tmp_path / "out"), do_train=True,
               learning_rate=0.0, max_steps=1, save_strategy="no", seed=3, per_device_train_batch_size=2)
    (tmp_path / "job.json").write_text(json.dumps(job))
    run_precis("train", "--config", tmp_path / "job.json")
    from safetensors.torch import load_file
    from transformers import T5Config
    ours = load_file(str(tmp_path / "out" / "model.safetensors"))
    torch.manual_seed(0)
    ref = T5ForConditionalGeneration(T5Config(**{**config, "vocab_size": len(tokenizer)})).state_dict()
    for name, value in ours.items():
        want = ref[name]
        assert value.shape == want.shape, name
        if "layer_norm" in name:
            assert torch.equal(value, want), name
        elif value.numel() >= 400:
            ratio = value.std().item() / want.std().item()
            assert 0.85 < ratio < 1.15, (name, ratio)
            assert abs(value.mean().item()) < 4 * want.std().item() / value.numel() ** 0.5, name
