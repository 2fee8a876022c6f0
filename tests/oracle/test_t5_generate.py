"""T5 generation (KV-cached decoder, greedy and beam search through the shared generate())
against transformers' generate() on tiny random T5 v1.0 and v1.1 checkpoints: ids equal."""
import json
import os
import subprocess

import pytest
import torch
from safetensors.torch import load_file, save_file

from conftest import precis_binary
from t5_models import CONFIGS, make_t5, random_batch, spread_weights

VOCAB = 89

# EOS: token 34, which these models emit often, so rows and beams also finish by EOS (then
# pad) and min_length, length_penalty and early_stopping have something to decide; with T5's
# own EOS (1) every row runs to max_length.
SETTINGS = {
    "greedy": dict(num_beams=1, max_length=24),
    "greedy-no-repeat": dict(num_beams=1, max_length=24, no_repeat_ngram_size=2, min_length=6, eos_token_id=34),
    "beam4": dict(num_beams=4, max_length=20, length_penalty=2.0, early_stopping=True, eos_token_id=34),
    "greedy-eos": dict(num_beams=1, max_length=24, eos_token_id=34),
    "beam4-eos": dict(num_beams=4, max_length=20, eos_token_id=34, num_return_sequences=3),
    "beam4-no-repeat": dict(num_beams=4, max_length=22, no_repeat_ngram_size=3, num_return_sequences=2,
                            min_length=5, eos_token_id=34),
}

V1_0, V1_1 = "v1_0-relu-tied", "v1_1-gated-gelu-untied"
# setting: [(one of its settings at a neighbouring value, the models on which HF's ids differ
# from the setting's)]: the test asserts each difference, so every setting is known to matter.
NEIGHBOURS = {
    "greedy": [(dict(num_beams=4), (V1_0, V1_1))],
    "greedy-no-repeat": [(dict(no_repeat_ngram_size=0), (V1_0, V1_1)), (dict(min_length=0), (V1_1,))],
    "beam4": [(dict(early_stopping=False), (V1_0,)), (dict(length_penalty=1.0), (V1_1,))],
    "greedy-eos": [(dict(eos_token_id=1), (V1_0, V1_1))],
    "beam4-eos": [(dict(eos_token_id=1), (V1_0, V1_1))],
    "beam4-no-repeat": [(dict(no_repeat_ngram_size=0), (V1_0, V1_1)), (dict(min_length=0), (V1_1,))],
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
@pytest.mark.parametrize("setting", sorted(SETTINGS))
def test_generated_ids_equal_transformers(name, setting, tmp_path):
    model = spread_weights(make_t5(name, VOCAB), seed=3)
    model.save_pretrained(tmp_path / "model")
    batch = random_batch(VOCAB, batch=3, source_len=13, seed=5)
    inputs = {k: batch[k] for k in ("input_ids", "attention_mask")}
    kwargs = SETTINGS[setting]
    with torch.no_grad():
        ref = model.generate(**inputs, **kwargs, do_sample=False)
        for change, sensitive_on in NEIGHBOURS[setting]:
            if name in sensitive_on:
                other = model.generate(**inputs, **{**kwargs, **change}, do_sample=False)
                assert other.shape != ref.shape or not torch.equal(other, ref), \
                    f"HF's ids are the same with {change}: this model does not tell the setting apart"
    save_file({k: v.contiguous() for k, v in inputs.items()}, str(tmp_path / "batch.safetensors"))
    (tmp_path / "settings.json").write_text(json.dumps(kwargs))
    # One thread: the ids do not depend on the thread count, and a tiny model on a loaded CI
    # machine spends its time spinning OpenMP workers otherwise.
    result = subprocess.run([precis_binary("t5_probe"), "generate", tmp_path / "model",
                             tmp_path / "batch.safetensors", tmp_path / "settings.json",
                             tmp_path / "out.safetensors"], capture_output=True, text=True,
                            env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert result.returncode == 0, result.stderr
    ours = load_file(str(tmp_path / "out.safetensors"))["sequences"].long()
    assert ours.shape == ref.shape, f"{ours.shape} vs {ref.shape}\n{ours}\n{ref}"
    assert torch.equal(ours, ref), f"\nours {ours}\nhf   {ref}"
    assert (ref[:, 0] == 0).all()  # decoding starts from pad, T5's decoder_start_token_id
