"""T5 forward: logits, encoder output and loss against transformers on tiny random T5 v1.0
(relu, tied) and v1.1 (gated-gelu, untied) checkpoints."""
import json
import subprocess

import pytest
import torch
from safetensors.torch import load_file, save_file
from transformers import T5ForConditionalGeneration

from conftest import precis_binary
from t5_models import CONFIGS, make_t5, random_batch

VOCAB = 89


def probe(*args):
    result = subprocess.run([precis_binary("t5_probe"), *map(str, args)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result


def run_forward(model_dir, batch, tmp_path):
    save_file({k: v.contiguous() for k, v in batch.items()}, str(tmp_path / "batch.safetensors"))
    probe("forward", model_dir, tmp_path / "batch.safetensors", tmp_path / "out.safetensors")
    return load_file(str(tmp_path / "out.safetensors"))


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
    enc_diff = (ours["encoder_output"] - ref.encoder_last_hidden_state).abs().max().item()
    assert enc_diff <= 1e-4, f"max abs encoder output diff {enc_diff}"
    logits_diff = (ours["logits"] - ref.logits).abs().max().item()
    assert logits_diff <= 1e-4, f"max abs logits diff {logits_diff}"
    rel = abs(ours["loss"].item() - ref.loss.item()) / abs(ref.loss.item())
    assert rel <= 1e-5, f"loss {ours['loss'].item()} vs {ref.loss.item()}"


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
    result = subprocess.run([precis_binary("t5_probe"), "resave", tmp_path / "model", tmp_path / "o"],
                            capture_output=True, text=True)
    assert result.returncode == 1
    assert "feed_forward_proj" in result.stderr and "config.json" in result.stderr
