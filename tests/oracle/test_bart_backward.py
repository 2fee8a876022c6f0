"""BART backward: every parameter's gradient against torch autograd through transformers."""
import subprocess

import pytest
import torch
from safetensors.torch import load_file, save_file

from bart_models import CONFIGS, make_bart, random_batch
from conftest import precis_binary

VOCAB = 97


def reference_grads(model, batch, label_smoothing):
    model.zero_grad()
    out = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"],
                decoder_input_ids=batch["decoder_input_ids"])
    if label_smoothing:
        from transformers.trainer_pt_utils import LabelSmoother
        loss = LabelSmoother(epsilon=label_smoothing)(out, batch["labels"])
    else:
        loss = torch.nn.functional.cross_entropy(out.logits.reshape(-1, VOCAB), batch["labels"].reshape(-1))
    loss.backward()
    return loss.item(), {n: p.grad for n, p in model.named_parameters()}


@pytest.mark.parametrize("name", sorted(CONFIGS))
@pytest.mark.parametrize("label_smoothing", [0.0, 0.1])
def test_every_gradient_matches_autograd(name, label_smoothing, tmp_path):
    model = make_bart(name, VOCAB).train()  # dropout 0: train mode changes nothing else
    model.save_pretrained(tmp_path / "model")
    batch = random_batch(VOCAB, source_len=min(11, model.config.max_position_embeddings))
    ref_loss, ref = reference_grads(model, batch, label_smoothing)
    save_file({k: v.contiguous() for k, v in batch.items()}, str(tmp_path / "batch.safetensors"))
    result = subprocess.run([precis_binary("bart_probe"), "grad", tmp_path / "model", tmp_path / "batch.safetensors",
                             tmp_path / "grads.safetensors", str(label_smoothing)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    ours = load_file(str(tmp_path / "grads.safetensors"))
    assert abs(ours.pop("loss").item() - ref_loss) <= 1e-5 * abs(ref_loss)
    # HF names: the tied embedding's gradient is model.shared.weight's.
    assert set(ours) == {n for n in ref if n != "lm_head.weight" or not model.config.tie_word_embeddings}
    worst = max(((ours[n] - g).abs() / g.abs().clamp(min=1.0)).max().item() for n, g in ref.items() if n in ours)
    for n, g in ref.items():
        if n not in ours:
            continue
        err = ((ours[n] - g).abs() / g.abs().clamp(min=1.0)).max().item()
        assert err <= 1e-5, f"{n}: max error {err} (grad abs max {g.abs().max().item()})"
    print(f"{name}: worst relative gradient error {worst:.2e}")
    assert worst <= 1e-5
