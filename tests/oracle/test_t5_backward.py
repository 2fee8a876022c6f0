"""T5 backward: every parameter's gradient against torch autograd through transformers."""
import pytest

from probe_support import reference_grads, run_backward
from t5_models import CONFIGS, make_t5, random_batch

VOCAB = 89


@pytest.mark.parametrize("name", sorted(CONFIGS))
@pytest.mark.parametrize("label_smoothing", [0.0, 0.1])
def test_every_gradient_matches_autograd(name, label_smoothing, tmp_path):
    model = make_t5(name, VOCAB).train()  # dropout 0: train mode changes nothing else
    model.save_pretrained(tmp_path / "model")
    batch = random_batch(VOCAB, source_len=19, target_len=13)
    ref_loss, ref = reference_grads(model, batch, label_smoothing)
    ours = run_backward("t5_probe", tmp_path / "model", batch, label_smoothing, tmp_path)
    assert abs(ours.pop("loss").item() - ref_loss) <= 1e-5 * abs(ref_loss)
    # named_parameters() lists the shared embedding once (as shared.weight) and a tied lm_head not at all.
    assert set(ours) == set(ref)
    worst = 0.0
    for n, g in ref.items():
        err = ((ours[n] - g).abs() / g.abs().clamp(min=1.0)).max().item()
        worst = max(worst, err)
        assert err <= 1e-5, f"{n}: max error {err} (grad abs max {g.abs().max().item()})"
    print(f"{name}: worst relative gradient error {worst:.2e}")
