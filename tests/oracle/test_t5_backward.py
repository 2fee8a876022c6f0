"""T5 backward: every parameter's gradient against torch autograd through transformers."""
import subprocess

import pytest
import torch
from safetensors.torch import load_file, save_file

from conftest import precis_binary
from t5_models import CONFIGS, make_t5, random_batch

VOCAB = 89


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
    model = make_t5(name, VOCAB).train()  # dropout 0: train mode changes nothing else
    model.save_pretrained(tmp_path / "model")
    batch = random_batch(VOCAB, source_len=19, target_len=13)
    ref_loss, ref = reference_grads(model, batch, label_smoothing)
    save_file({k: v.contiguous() for k, v in batch.items()}, str(tmp_path / "batch.safetensors"))
    result = subprocess.run([precis_binary("t5_probe"), "grad", tmp_path / "model", tmp_path / "batch.safetensors",
                             tmp_path / "grads.safetensors", str(label_smoothing)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    ours = load_file(str(tmp_path / "grads.safetensors"))
    assert abs(ours.pop("loss").item() - ref_loss) <= 1e-5 * abs(ref_loss)
    # named_parameters() lists the shared embedding once (as shared.weight) and a tied lm_head not at all.
    assert set(ours) == set(ref)
    worst = 0.0
    for n, g in ref.items():
        err = ((ours[n] - g).abs() / g.abs().clamp(min=1.0)).max().item()
        worst = max(worst, err)
        assert err <= 1e-5, f"{n}: max error {err} (grad abs max {g.abs().max().item()})"
    print(f"{name}: worst relative gradient error {worst:.2e}")
