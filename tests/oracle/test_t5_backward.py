"""T5 backward: every parameter's gradient against torch autograd through transformers."""
import pytest

from probe_support import assert_gradients_close, assert_loss_close, reference_grads, run_backward
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
    assert_loss_close(ours.pop("loss").item(), ref_loss)
    # named_parameters() lists the shared embedding once (as shared.weight) and a tied lm_head not at all.
    assert set(ours) == set(ref)
    assert_gradients_close(ours, ref)
