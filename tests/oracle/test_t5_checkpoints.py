"""T5 checkpoints: bad or oversized configs are clear errors. (Logits and loss of every
configuration, and saved checkpoints reloaded in transformers with HF's tensor names:
test_forward.py.)"""
import json

import pytest

from model_families import T5
from t5_models import make_t5

VOCAB = T5.vocab
probe, probe_error = T5.probe, T5.probe_error


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
