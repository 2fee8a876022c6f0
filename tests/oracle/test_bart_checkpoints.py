"""BART checkpoints: sharded and bf16 checkpoints and BartModel's prefix load, bad configs and
tensors are clear errors. (Logits and loss of every configuration, and saved checkpoints reloaded
in transformers: test_forward.py.)"""
import pytest
import torch
from safetensors.torch import save_file
from transformers import BartForConditionalGeneration

from bart_models import make_bart, random_batch
from model_families import BART
from probe_support import assert_output_close

VOCAB = BART.vocab
probe, run_forward, probe_error = BART.probe, BART.run_forward, BART.probe_error


def test_sharded_and_half_precision_checkpoints(tmp_path):
    model = make_bart("narrow-gelu", VOCAB)
    model.save_pretrained(tmp_path / "sharded", max_shard_size="20KB")
    assert (tmp_path / "sharded" / "model.safetensors.index.json").exists()
    batch = random_batch(VOCAB)
    with torch.no_grad():
        ref = model(**batch)
    ours = run_forward(tmp_path / "sharded", batch, tmp_path)
    assert_output_close(ours["logits"], ref.logits, "logits, sharded")
    # A bf16 checkpoint is converted at load: compare with HF running the same bf16 weights in fp32.
    model.to(torch.bfloat16).save_pretrained(tmp_path / "bf16")
    ref32 = BartForConditionalGeneration.from_pretrained(tmp_path / "bf16", torch_dtype=torch.float32).eval()
    with torch.no_grad():
        ref = ref32(**batch)
    ours = run_forward(tmp_path / "bf16", batch, tmp_path)
    assert_output_close(ours["logits"], ref.logits, "logits, bf16 checkpoint")


def test_bare_bart_model_prefix_and_missing_final_logits_bias(tmp_path):
    model = make_bart("narrow-gelu", VOCAB)
    with torch.no_grad():
        model.final_logits_bias.zero_()
    state = {k: v for k, v in model.state_dict().items() if k != "final_logits_bias"}
    # A checkpoint without the "model." prefix (saved from BartModel) and no final_logits_bias.
    stripped = {k[len("model."):] if k.startswith("model.") else k: v.contiguous() for k, v in state.items()
                if not k.endswith("embed_tokens.weight") and k != "lm_head.weight"}
    (tmp_path / "bare").mkdir()
    save_file(stripped, str(tmp_path / "bare" / "model.safetensors"), metadata={"format": "pt"})
    model.config.to_json_file(tmp_path / "bare" / "config.json")
    batch = random_batch(VOCAB)
    with torch.no_grad():
        ref = model(**batch)
    ours = run_forward(tmp_path / "bare", batch, tmp_path)
    assert_output_close(ours["logits"], ref.logits, "logits")


@pytest.mark.parametrize("mutate,message", [
    (lambda d: (d / "config.json").write_text("{not json"), "not valid JSON"),
    (lambda d: (d / "config.json").write_text('{"model_type": "t5"}'), 'model_type "t5" is not supported'),
    (lambda d: (d / "config.json").write_text('{"model_type": "bart", "d_model": "wide"}'), 'field "d_model" must be an integer'),
    (lambda d: (d / "config.json").write_text('{"model_type": "bart", "d_model": 1000000000}'), 'field "d_model" must be in'),
    (lambda d: (d / "config.json").write_text('{"model_type": "bart", "activation_function": "swiglu"}'), "unknown activation_function"),
])
def test_bad_config_is_a_clear_error(tmp_path, mutate, message):
    model = make_bart("narrow-gelu", VOCAB)
    model.save_pretrained(tmp_path / "model")
    mutate(tmp_path / "model")
    stderr = probe_error("resave", tmp_path / "model", tmp_path / "out")
    assert message in stderr and "config.json" in stderr
    assert len(stderr.strip().splitlines()) == 1


def test_missing_and_misshapen_tensors_are_clear_errors(tmp_path):
    model = make_bart("narrow-gelu", VOCAB)
    state = {k: v.contiguous() for k, v in model.state_dict().items()
             if not k.endswith("embed_tokens.weight") and k != "lm_head.weight"}
    (tmp_path / "m").mkdir()
    model.config.to_json_file(tmp_path / "m" / "config.json")
    missing = dict(state)
    del missing["model.encoder.layers.1.fc1.weight"]
    save_file(missing, str(tmp_path / "m" / "model.safetensors"))
    stderr = probe_error("resave", tmp_path / "m", tmp_path / "o")
    assert "model.encoder.layers.1.fc1.weight" in stderr and "missing" in stderr
    wrong = dict(state)
    wrong["model.decoder.layers.0.fc2.bias"] = torch.zeros(5)
    save_file(wrong, str(tmp_path / "m" / "model.safetensors"))
    stderr = probe_error("resave", tmp_path / "m", tmp_path / "o")
    assert "model.decoder.layers.0.fc2.bias" in stderr and "model.safetensors" in stderr
