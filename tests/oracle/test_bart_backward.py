"""BART backward: every parameter's gradient against torch autograd through transformers."""
import pytest

from bart_models import CONFIGS, make_bart, random_batch
from probe_support import reference_grads, run_backward

VOCAB = 97


@pytest.mark.parametrize("name", sorted(CONFIGS))
@pytest.mark.parametrize("label_smoothing", [0.0, 0.1])
def test_every_gradient_matches_autograd(name, label_smoothing, tmp_path):
    model = make_bart(name, VOCAB).train()  # dropout 0: train mode changes nothing else
    model.save_pretrained(tmp_path / "model")
    batch = random_batch(VOCAB, source_len=min(11, model.config.max_position_embeddings))
    ref_loss, ref = reference_grads(model, batch, label_smoothing)
    ours = run_backward("bart_probe", tmp_path / "model", batch, label_smoothing, tmp_path)
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
