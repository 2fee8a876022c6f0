"""Backward of every family and configuration: every parameter's gradient and the loss against
torch autograd through transformers, with and without label smoothing."""
import pytest

from model_families import BART, FAMILY_CONFIG_IDS, FAMILY_CONFIGS
from probe_support import assert_gradients_close, assert_loss_close, reference_grads


@pytest.mark.parametrize("family,name", FAMILY_CONFIGS, ids=FAMILY_CONFIG_IDS)
@pytest.mark.parametrize("label_smoothing", [0.0, 0.1])
def test_every_gradient_matches_autograd(family, name, label_smoothing, tmp_path):
    model = family.make(name, family.vocab).train()  # dropout 0: train mode changes nothing else
    model.save_pretrained(tmp_path / "model")
    batch = family.random_batch(family.vocab, **family.backward_lengths)
    ref_loss, ref = reference_grads(model, batch, label_smoothing)
    ours = family.run_backward(tmp_path / "model", batch, label_smoothing, tmp_path)
    assert_loss_close(ours.pop("loss").item(), ref_loss)
    # HF names: BART's tied embedding's gradient is model.shared.weight's; T5's
    # named_parameters() lists the shared embedding once (as shared.weight) and a tied lm_head
    # not at all.
    if family is BART and model.config.tie_word_embeddings:
        ref = {n: g for n, g in ref.items() if n != "lm_head.weight"}
    assert set(ours) == set(ref)
    assert_gradients_close(ours, ref)
