"""Running the model probes (tests/probes/bart_probe.cpp, t5_probe.cpp) from the oracle tests:
a batch goes in as a safetensors file, logits / encoder output / gradients come back as one."""
import subprocess

import torch
from safetensors.torch import load_file, save_file

from conftest import precis_binary

# precis against transformers, both in fp32. The promise is logits within 1e-4 and gradients
# within 1e-5 (the project's standard); fp32 gives far less, and the tests assert bounds near what it gives,
# so that a regression of 10x is caught the day it lands. Measured (release build with
# -march=native and clang -O1 as under ASan, 1 and 2 OpenMP threads), the worst over the
# BART and T5 configurations of bart_models / t5_models:
#   logits, encoder output: max |diff| / max |ref| <= 4.2e-7 (generation's step logits 4.5e-7)
#   gradients: max |diff| / the largest |gradient| of the model <= 3.1e-7
#   loss: relative <= 2.1e-7 (2 ulps)
# Relative to a tensor's scale, not element-wise: fp32 sums err in proportion to the terms
# summed, not to the result (k_proj.bias's gradient is 0 up to rounding on both sides).
# OUTPUT_TOL: ~5x the worst measured. A 1e-5 shift of one layer norm's output moves BART's
# logits by 2e-5 of their scale, of one GELU's by 9e-6: both fail it, neither failed 1e-4.
OUTPUT_TOL = 2e-6
# GRADIENT_TOL, of the largest gradient: ~6x the worst measured. The layer norm shift moves
# gradients by 1.3e-5 to 5e-5 of it, the GELU shift by 2.2e-5.
GRADIENT_TOL = 2e-6
# LOSS_TOL, relative: ~5x the worst measured (8 ulps).
LOSS_TOL = 1e-6


def scaled_error(ours, ref):
    """max |ours - ref| / max |ref|: the error relative to the tensor's scale."""
    assert ours.shape == ref.shape, f"shape {tuple(ours.shape)} vs {tuple(ref.shape)}"
    return ((ours - ref).abs().max() / ref.abs().max()).item()


def assert_output_close(ours, ref, what):
    """Returns the scaled error after asserting it is within OUTPUT_TOL."""
    err = scaled_error(ours, ref)
    print(f"{what}: max abs diff / max abs ref {err:.2e}")
    assert err <= OUTPUT_TOL, f"{what}: max abs diff {err:.2e} of the largest |value| {ref.abs().max().item():.3g}"
    return err


def assert_loss_close(ours, ref):
    rel = abs(ours - ref) / abs(ref)
    print(f"loss: relative diff {rel:.2e}")
    assert rel <= LOSS_TOL, f"loss {ours} vs {ref}: relative diff {rel:.2e}"


def assert_gradients_close(ours, ref):
    """Every gradient of `ref` (name -> tensor) within GRADIENT_TOL of the model's largest."""
    scale = max(g.abs().max().item() for g in ref.values())
    worst, worst_name = 0.0, None
    for n, g in ref.items():
        err = (ours[n] - g).abs().max().item() / scale
        if err > worst:
            worst, worst_name = err, n
        assert err <= GRADIENT_TOL, f"{n}: max abs diff {err:.2e} of the largest |gradient| {scale:.3g}"
    print(f"gradients: max abs diff / largest |gradient| {worst:.2e} ({worst_name})")


def probe(tool, *args):
    """Runs `tool` ("bart_probe" or "t5_probe") and asserts it succeeded."""
    result = subprocess.run([precis_binary(tool), *map(str, args)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result


def probe_error(tool, *args):
    """Runs `tool` expecting a user error (exit status 1, as the CLI gives); returns its stderr."""
    result = subprocess.run([precis_binary(tool), *map(str, args)], capture_output=True, text=True)
    assert result.returncode == 1, result.stderr
    return result.stderr


def padded_batch(vocab_size, batch, source_len, target_len, seed, *, first_id, eos, pad,
                 source_step, bos=None):
    """Inputs and labels of unequal lengths for a family's random_batch: row b's source is
    source_step·b shorter and its target 2·b shorter, each ending in eos (the source starting
    with bos when given), then right-padded (pad; labels -100). Ids from [first_id, vocab)."""
    g = torch.Generator().manual_seed(seed)
    input_ids = torch.randint(first_id, vocab_size, (batch, source_len), generator=g)
    attention_mask = torch.ones_like(input_ids)
    labels = torch.randint(first_id, vocab_size, (batch, target_len), generator=g)
    for b in range(batch):
        src, tgt = source_len - source_step * b, target_len - 2 * b
        if bos is not None:
            input_ids[b, 0] = bos
        input_ids[b, src - 1] = eos
        input_ids[b, src:] = pad
        attention_mask[b, src:] = 0
        labels[b, tgt - 1] = eos
        labels[b, tgt:] = -100
    return input_ids, attention_mask, labels


def save_batch(batch, path):
    save_file({k: v.contiguous() for k, v in batch.items()}, str(path))


def run_forward(tool, model_dir, batch, tmp_path):
    """precis's logits, encoder output and loss for `batch`."""
    save_batch(batch, tmp_path / "batch.safetensors")
    probe(tool, "forward", model_dir, tmp_path / "batch.safetensors", tmp_path / "out.safetensors")
    return load_file(str(tmp_path / "out.safetensors"))


def run_backward(tool, model_dir, batch, label_smoothing, tmp_path):
    """precis's gradient of every parameter (HF names), plus "loss"."""
    save_batch(batch, tmp_path / "batch.safetensors")
    probe(tool, "grad", model_dir, tmp_path / "batch.safetensors", tmp_path / "grads.safetensors",
          label_smoothing)
    return load_file(str(tmp_path / "grads.safetensors"))


def reference_grads(model, batch, label_smoothing):
    """The loss and every parameter's gradient by torch autograd through transformers, with the
    Trainer's LabelSmoother when label_smoothing > 0."""
    model.zero_grad()
    out = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"],
                decoder_input_ids=batch["decoder_input_ids"])
    if label_smoothing:
        from transformers.trainer_pt_utils import LabelSmoother
        loss = LabelSmoother(epsilon=label_smoothing)(out, batch["labels"])
    else:
        vocab = out.logits.shape[-1]
        loss = torch.nn.functional.cross_entropy(out.logits.reshape(-1, vocab), batch["labels"].reshape(-1))
    loss.backward()
    return loss.item(), {n: p.grad for n, p in model.named_parameters()}
