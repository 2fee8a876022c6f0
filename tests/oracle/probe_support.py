"""Running the model probes (tests/tools/bart_probe.cpp, t5_probe.cpp) from the oracle tests:
a batch goes in as a safetensors file, logits / encoder output / gradients come back as one."""
import subprocess

import torch
from safetensors.torch import load_file, save_file

from conftest import precis_binary


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
