"""Forward of every family and configuration: logits, encoder output and loss against
transformers on tiny random checkpoints (BART: bart_models.CONFIGS; T5 v1.0, relu and tied, and
v1.1, gated-gelu and untied: t5_models.CONFIGS), and what precis saves reloads in transformers.
Family-specific checkpoint loading and saving: test_bart_checkpoints.py, test_t5_checkpoints.py."""
import pytest
import torch
from safetensors.torch import load_file

from model_families import FAMILY_CONFIG_IDS, FAMILY_CONFIGS
from probe_support import assert_loss_close, assert_output_close


@pytest.mark.parametrize("family,name", FAMILY_CONFIGS, ids=FAMILY_CONFIG_IDS)
def test_logits_and_loss_match_transformers(family, name, tmp_path):
    model = family.make(name, family.vocab)
    model.save_pretrained(tmp_path / "model")
    batch = family.random_batch(family.vocab, **family.forward_lengths)
    with torch.no_grad():
        ref = model(**batch)
    ours = family.run_forward(tmp_path / "model", batch, tmp_path)
    # HF's shift right is what precis's collator does too: the test batch uses the same ids.
    assert torch.equal(batch["decoder_input_ids"], family.shift_right(model, batch["labels"]))
    assert_output_close(ours["encoder_output"], ref.encoder_last_hidden_state, "encoder output")
    assert_output_close(ours["logits"], ref.logits, "logits")
    assert_loss_close(ours["loss"].item(), ref.loss.item())


@pytest.mark.parametrize("family,name", FAMILY_CONFIGS, ids=FAMILY_CONFIG_IDS)
def test_saved_checkpoint_reloads_in_transformers(family, name, tmp_path):
    model = family.make(name, family.vocab)
    model.save_pretrained(tmp_path / "model")
    family.probe("resave", tmp_path / "model", tmp_path / "ours")
    reloaded = family.model_class.from_pretrained(tmp_path / "ours").eval()
    batch = family.random_batch(family.vocab)
    with torch.no_grad():
        assert torch.equal(reloaded(**batch).logits, model(**batch).logits)
    names = set(load_file(str(tmp_path / "ours" / "model.safetensors")))
    family.saved_names(model, names)
    # The names HF itself writes, no more and no fewer.
    assert names == set(load_file(str(tmp_path / "model" / "model.safetensors")))
