"""`precis train --device cuda` through the CUDA backend without a GPU: precis_emulated is the
CLI whose CUDA backend is the kernel emulator (the CUDA twins' launchers and kernel bodies run
as host threads, cuBLAS's GEMM semantics on a CPU loop), with device memory guarded, so a host
read or write of it anywhere in the job (trainer, checkpoints, evaluation, generation) crashes
the run. Against Seq2SeqTrainer as test_train checks the CPU; a checkpoint saved from the
device resumes bit for bit; evaluation and predict_with_generate on the device give the CPU's
metrics and predictions; and --device's choices and errors in the CLI built here."""
import json
import math
import shutil

import pytest
import torch
from safetensors.torch import load_file, save_file

from conftest import require_cpu_bf16_sums_in_fp32, run_precis
from train_support import (BART_NOT_SAVED, BART_WEIGHT_LIMIT, assert_steps_match, compare_weights, hf_train,
                           hf_train_fp32_then_bf16, make_job, make_predict_job, precis_train)

EMULATED = "precis_emulated"


def test_three_steps_on_cuda_match_seq2seq_trainer(tmp_path):
    model, tokenizer, records = make_job(tmp_path)
    ref, ref_losses, ref_norms = hf_train(model, tokenizer, records, tmp_path, label_smoothing_factor=0.1)
    ours, steps, state, result = precis_train(tmp_path, tmp_path / "out", binary=EMULATED, device="cuda",
                                              label_smoothing_factor=0.1)
    assert "training on cuda:0" in result.stderr
    worst = compare_weights(ours, ref, BART_NOT_SAVED, BART_WEIGHT_LIMIT)
    print(f"cuda (emulated): worst weight diff {worst:.2e}")
    assert_steps_match(steps, ref_losses, ref_norms)
    assert state["global_step"] == 3


def test_dropout_and_resume_on_cuda(tmp_path):
    """With dropout (the CUDA twins draw the CPU's Philox masks, which HF's torch does not), the
    device run against the CPU run of the same job, and a resume from a device checkpoint
    (model and optimizer state written and read through host copies) against the straight run,
    bit for bit."""
    make_job(tmp_path, dropout=0.1)
    common = dict(max_steps=4, save_strategy="steps", save_steps=2, per_device_train_batch_size=1,
                  gradient_accumulation_steps=2)
    cpu, cpu_steps, _, _ = precis_train(tmp_path, tmp_path / "cpu", device="cpu", **common)
    straight, steps, _, _ = precis_train(tmp_path, tmp_path / "straight", binary=EMULATED, device="cuda", **common)
    for ours, theirs in zip(steps, cpu_steps):
        assert ours["loss"] == pytest.approx(theirs["loss"], rel=1e-6), (ours, theirs)
        assert ours["grad_norm"] == pytest.approx(theirs["grad_norm"], rel=3e-6), (ours, theirs)
    for name in cpu:
        diff = (straight[name] - cpu[name]).abs().max().item()
        assert diff <= BART_WEIGHT_LIMIT, (name, diff)
    # The straight run's own checkpoint-2 (written from the device), alone in a new output dir.
    (tmp_path / "resumed").mkdir()
    shutil.copytree(tmp_path / "straight" / "checkpoint-2", tmp_path / "resumed" / "checkpoint-2")
    resumed, resumed_steps, _, result = precis_train(tmp_path, tmp_path / "resumed", binary=EMULATED, device="cuda",
                                                     **common)
    assert "resuming from" in result.stderr
    assert [s["step"] for s in resumed_steps] == [3, 4]
    for name in straight:
        assert torch.equal(straight[name], resumed[name]), name


def test_eval_and_predict_on_cuda_match_the_cpu(tmp_path):
    make_predict_job(tmp_path)
    data = str(tmp_path / "data.jsonl")
    job = dict(model_name_or_path=str(tmp_path / "base"), validation_file=data, test_file=data, do_eval=True,
               do_predict=True, predict_with_generate=True, generation_max_length=12, generation_num_beams=4,
               per_device_eval_batch_size=4, max_source_length=64, max_target_length=32)
    results = {}
    for name, binary, device in (("cpu", "precis", "cpu"), ("cuda", EMULATED, "cuda")):
        out = tmp_path / name
        (tmp_path / f"{name}.json").write_text(json.dumps(dict(job, output_dir=str(out), device=device)))
        run_precis("train", "--config", tmp_path / f"{name}.json", binary=binary)
        results[name] = (json.loads((out / "all_results.json").read_text()),
                         (out / "generated_predictions.txt").read_text())
    (cpu, cpu_predictions), (cuda, cuda_predictions) = results["cpu"], results["cuda"]
    assert cuda_predictions == cpu_predictions and cpu_predictions.strip()
    for key, value in cpu.items():
        if key.endswith(("_runtime", "_per_second")):
            continue
        assert cuda[key] == pytest.approx(value, rel=1e-5), key


def test_device_choices_and_errors(tmp_path):
    make_job(tmp_path)
    base = ["train", "--model_name_or_path", tmp_path / "base", "--train_file", tmp_path / "train.jsonl",
            "--do_train", "--max_steps", "1", "--per_device_train_batch_size", "6"]
    # The CLI built here has no GPU: auto trains on the CPU, cuda says why it cannot.
    r = run_precis(*base, "--output_dir", tmp_path / "auto", "--device", "auto")
    assert "training on" not in r.stderr
    r = run_precis(*base, "--output_dir", tmp_path / "cuda", "--device", "cuda", check=False)
    assert r.returncode == 1 and "--device cuda: no CUDA GPU is available" in r.stderr, r.stderr
    # HF's use_cpu / no_cuda mean the CPU; against --device cuda they are an error.
    r = run_precis(*base, "--output_dir", tmp_path / "cpu", "--use_cpu", "true", binary=EMULATED)
    assert "training on" not in r.stderr
    r = run_precis(*base, "--output_dir", tmp_path / "both", "--no_cuda", "true", "--device", "cuda",
                   binary=EMULATED, check=False)
    assert r.returncode == 1 and "--no_cuda contradicts --device cuda" in r.stderr, r.stderr
    # In the emulated CLI, auto finds its device.
    r = run_precis(*base, "--output_dir", tmp_path / "emulated", "--device", "auto", binary=EMULATED)
    assert "training on cuda:0" in r.stderr


def test_bf16_on_cuda_matches_seq2seq_trainer_bf16(tmp_path):
    """--bf16 against Seq2SeqTrainer(bf16=True), which is autocast over fp32 weights (here on the
    CPU, torch.cpu.amp): matmuls in bf16 (their weights and biases cast to bf16), layer norms,
    softmax and the loss in fp32, the residual stream in fp32. precis casts the linear layers'
    weights and biases as autocast does and keeps BART's residual stream, its LayerNorm outputs
    and the logits in fp32 too (each linear layer's input rounded, each branch widened as it
    joins), over fp32 master weights and optimizer state. What still differs: autocast rounds
    the attention scores to bf16 before the softmax, and the shares of a layer's input gradient
    before it sums them in fp32; precis's fused attention and its GEMMs that add each share to
    the stream's fp32 gradient do not. On this job the losses agree within 3.1e-7 relative and
    the gradient norms within 2.0e-4 (measured;
    with the stream in bf16, as precis kept it before, 2.8e-6 and 2.7e-4), against 1.3e-3
    between HF's bf16 and fp32 gradient norms. The loss bound, 1e-6, fails a bf16 stream; the
    norm bound, 5e-4, fails a run that ignores --bf16."""
    require_cpu_bf16_sums_in_fp32()
    model, tokenizer, records = make_job(tmp_path)
    _, ref_losses, ref_norms = hf_train(model, tokenizer, records, tmp_path, label_smoothing_factor=0.1, bf16=True)
    ours, steps, _, result = precis_train(tmp_path, tmp_path / "out", binary=EMULATED, device="cuda", bf16=True,
                                          label_smoothing_factor=0.1)
    assert "in bf16 mixed precision" in result.stderr
    for step, loss, norm in zip(steps, ref_losses, ref_norms):
        print(f"step {step['step']}: loss {step['loss']:.9f} vs {loss:.9f}, grad norm {step['grad_norm']:.9f} vs {norm:.9f}")
        assert abs(step["loss"] - loss) <= 1e-6 * loss, (step, loss)
        assert abs(step["grad_norm"] - norm) <= 5e-4 * norm, (step, norm)
    assert len(steps) == len(ref_losses) == 3
    # The saved model is the fp32 master (save_pretrained of HF's fp32 parameters).
    assert all(t.dtype == torch.float32 for t in ours.values())


def test_fp16_on_cuda_scales_the_loss_and_skips_overflowing_steps(tmp_path):
    """--fp16 (Seq2SeqTrainer needs a GPU for it, so the reference is precis's fp32 run): the
    steps agree with fp32 to fp16's precision (the gradients are scaled by 2^16 and unscaled
    before clipping; measured 8e-5 on the gradient norms). Then a model whose activations
    overflow fp16 (weights x 300): every step's gradients hold an inf or NaN, so each step is
    skipped, the weights stay as they were, the learning-rate schedule does not advance and
    the scale halves per step (scaler.json in the checkpoint), as HF's GradScaler does."""
    make_job(tmp_path)
    _, fp32_steps, _, _ = precis_train(tmp_path, tmp_path / "fp32", device="cpu")
    _, steps, _, result = precis_train(tmp_path, tmp_path / "fp16", binary=EMULATED, device="cuda", fp16=True)
    assert "in fp16 mixed precision" in result.stderr
    for ours, ref in zip(steps, fp32_steps):
        assert abs(ours["loss"] - ref["loss"]) <= 1e-5 * ref["loss"], (ours, ref)
        assert abs(ours["grad_norm"] - ref["grad_norm"]) <= 5e-4 * ref["grad_norm"], (ours, ref)
        assert ours["grad_norm"] != ref["grad_norm"]  # fp16 compute, not fp32
    # Overflow: the same job from weights 300 times larger.
    base = load_file(str(tmp_path / "base" / "model.safetensors"))
    save_file({k: v * 300 for k, v in base.items()}, str(tmp_path / "base" / "model.safetensors"),
              metadata={"format": "pt"})
    big = load_file(str(tmp_path / "base" / "model.safetensors"))
    ours, steps, state, _ = precis_train(tmp_path, tmp_path / "overflow", binary=EMULATED, device="cuda", fp16=True,
                                         save_strategy="steps", save_steps=3)
    assert [s["learning_rate"] for s in steps] == [0.0, 0.0, 0.0]  # warmup never ends: no step taken
    # An inf or NaN norm: JSON has neither, train_log.jsonl writes null.
    assert all(s["grad_norm"] is None or not math.isfinite(s["grad_norm"]) for s in steps), steps
    for name, value in ours.items():
        assert torch.equal(value, big[name]), name
    scaler = json.loads((tmp_path / "overflow" / "checkpoint-3" / "scaler.json").read_text())
    assert scaler == {"scale": 65536.0 / 8, "growth_tracker": 0, "skipped_steps": 3}


@pytest.mark.parametrize("name", ["v1_0-relu-tied", "v1_1-gated-gelu-untied"])
def test_t5_bf16_on_cuda_matches_seq2seq_trainer_bf16(tmp_path, name, monkeypatch):
    """T5 under --bf16 against Seq2SeqTrainer(bf16=True) (CPU autocast), as the BART test above:
    the residual stream, the RMSNorm outputs and the LM head's input fp32, each linear layer's
    input rounded; the logits stay bf16 as autocast leaves T5's bias-free LM head, and the loss
    widens them. Measured on these jobs: losses within 3.8e-6 relative, gradient norms within
    3.9e-4 (with the stream in bf16, as precis kept it before: 1.7e-6 and 1.4e-3), where HF's
    bf16 gradient norms are 4.4e-4 to 1.1e-3 from its fp32 ones. The norm bound, 1e-3, fails the
    bf16 stream (v1.0); a run that ignores --bf16 lands nearer HF's fp32 norms than its bf16."""
    require_cpu_bf16_sums_in_fp32()
    from test_t5_train import make_t5_job
    model, tokenizer, records = make_t5_job(tmp_path, name)
    fp32_norms, _, ref_losses, ref_norms = hf_train_fp32_then_bf16(model, tokenizer, records, tmp_path, monkeypatch)
    _, steps, _, result = precis_train(tmp_path, tmp_path / "out", binary=EMULATED, device="cuda", bf16=True)
    assert "in bf16 mixed precision" in result.stderr
    for step, loss, norm, fp32_norm in zip(steps, ref_losses, ref_norms, fp32_norms, strict=True):
        print(f"{name} step {step['step']}: loss {step['loss']:.9f} vs {loss:.9f} ({abs(step['loss'] - loss) / loss:.1e}), "
              f"grad norm {step['grad_norm']:.9f} vs {norm:.9f} ({abs(step['grad_norm'] - norm) / norm:.1e}); "
              f"HF bf16 from fp32 {abs(norm - fp32_norm) / fp32_norm:.1e}, precis from HF fp32 "
              f"{abs(step['grad_norm'] - fp32_norm) / fp32_norm:.1e}")
        assert abs(step["loss"] - loss) <= 1e-5 * loss, (step, loss)
        assert abs(step["grad_norm"] - norm) <= 1e-3 * norm, (step, norm)
        assert abs(step["grad_norm"] - norm) < abs(step["grad_norm"] - fp32_norm), (step, norm, fp32_norm)
