"""T5 forward: logits, encoder output and loss against transformers on tiny random T5 v1.0
(relu, tied) and v1.1 (gated-gelu, untied) checkpoints."""
import json
from functools import partial

import pytest
import torch
from safetensors.torch import load_file
from transformers import T5ForConditionalGeneration

import probe_support
from probe_support import assert_loss_close, assert_output_close
from t5_models import CONFIGS, make_t5, random_batch

VOCAB = 89

probe = partial(probe_support.probe, "t5_probe")
run_forward = partial(probe_support.run_forward, "t5_probe")
probe_error = partial(probe_support.probe_error, "t5_probe")


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_logits_and_loss_match_transformers(name, tmp_path):
    model = make_t5(name, VOCAB)
    model.save_pretrained(tmp_path / "model")
    # Long enough that relative distances reach the logarithmic buckets and max_distance.
    batch = random_batch(VOCAB, source_len=23, target_len=17)
    with torch.no_grad():
        ref = model(**batch)
    ours = run_forward(tmp_path / "model", batch, tmp_path)
    # HF's shift_right is what precis's collator does too: the test batch uses the same ids.
    assert torch.equal(batch["decoder_input_ids"], model._shift_right(batch["labels"]))
    assert_output_close(ours["encoder_output"], ref.encoder_last_hidden_state, "encoder output")
    assert_output_close(ours["logits"], ref.logits, "logits")
    assert_loss_close(ours["loss"].item(), ref.loss.item())


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_saved_checkpoint_reloads_in_transformers(name, tmp_path):
    model = make_t5(name, VOCAB)
    model.save_pretrained(tmp_path / "model")
    probe("resave", tmp_path / "model", tmp_path / "ours")
    reloaded = T5ForConditionalGeneration.from_pretrained(tmp_path / "ours").eval()
    batch = random_batch(VOCAB)
    with torch.no_grad():
        assert torch.equal(reloaded(**batch).logits, model(**batch).logits)
    names = set(load_file(str(tmp_path / "ours" / "model.safetensors")))
    assert "shared.weight" in names
    assert not names & {"encoder.embed_tokens.weight", "decoder.embed_tokens.weight"}
    assert ("lm_head.weight" in names) == (not model.config.tie_word_embeddings)
    assert names == set(load_file(str(tmp_path / "model" / "model.safetensors")))


def test_bad_feed_forward_proj_is_a_clear_error(tmp_path):
    model = make_t5("v1_0-relu-tied", VOCAB)
    model.save_pretrained(tmp_path / "model")
    config = json.loads((tmp_path / "model" / "config.json").read_text())
    config["feed_forward_proj"] = "gated-swiglu"
    (tmp_path / "model" / "config.json").write_text(json.dumps(config))
    stderr = probe_error("resave", tmp_path / "model", tmp_path / "o")
    assert "feed_forward_proj" in stderr and "config.json" in stderr


@pytest.mark.parametrize("field,value", [("d_model", 60000), ("num_layers", 1000), ("d_ff", 1000000)])
def test_config_larger_than_its_weights_is_refused_before_allocating(tmp_path, field, value):
    """Sizes each within its field's bounds whose product the weights cannot hold: refused
    with both sizes named, before gigabytes are allocated."""
    model = make_t5("v1_0-relu-tied", VOCAB)
    model.save_pretrained(tmp_path / "model")
    config = json.loads((tmp_path / "model" / "config.json").read_text())
    config[field] = value
    (tmp_path / "model" / "config.json").write_text(json.dumps(config))
    stderr = probe_error("resave", tmp_path / "model", tmp_path / "o")
    assert "config.json describes a model of" in stderr and "does not match the weights" in stderr, stderr
