"""BART backward: every parameter's gradient against torch autograd through transformers."""
import pytest

from bart_models import CONFIGS, make_bart, random_batch
from probe_support import assert_gradients_close, assert_loss_close, reference_grads, run_backward

VOCAB = 97


@pytest.mark.parametrize("name", sorted(CONFIGS))
@pytest.mark.parametrize("label_smoothing", [0.0, 0.1])
def test_every_gradient_matches_autograd(name, label_smoothing, tmp_path):
    model = make_bart(name, VOCAB).train()  # dropout 0: train mode changes nothing else
    model.save_pretrained(tmp_path / "model")
    batch = random_batch(VOCAB, source_len=min(11, model.config.max_position_embeddings))
    ref_loss, ref = reference_grads(model, batch, label_smoothing)
    ours = run_backward("bart_probe", tmp_path / "model", batch, label_smoothing, tmp_path)
    assert_loss_close(ours.pop("loss").item(), ref_loss)
    # HF names: the tied embedding's gradient is model.shared.weight's.
    tied_head = model.config.tie_word_embeddings
    ref = {n: g for n, g in ref.items() if n != "lm_head.weight" or not tied_head}
    assert set(ours) == set(ref)
    assert_gradients_close(ours, ref)
