"""`precis generate` on a T5 checkpoint directory (config.json model_type "t5", spiece.model):
ids and summary_text equal transformers' tokenizer -> generate() -> batch_decode."""
import os

import pytest
import torch

from conftest import UNICODE_CORPUS, json_lines, run_precis
from t5_models import make_t5, spread_weights, train_tiny_spiece

pytest.importorskip("sentencepiece")

TEXTS = [
    "Amanda: I baked cookies. Do you want some?\nJerry: Sure!\nAmanda: I'll bring you tomorrow :-)",
    "Hello world",
    "The quick brown fox jumps over the lazy dog. The quick brown fox jumps over the lazy dog again.",
    "Café déjà vu, naïve façade, Zoë's résumé.",
]


@pytest.mark.parametrize("name,settings", [
    ("v1_1-gated-gelu-untied", ["--num_beams", "4", "--max_length", "20", "--no_repeat_ngram_size", "3"]),
    ("v1_0-relu-tied", ["--num_beams", "1", "--max_length", "16"]),
])
def test_generate_command_equals_transformers(tmp_path, name, settings):
    corpus = [t for t in UNICODE_CORPUS if t.strip()] * 3 + TEXTS * 10
    tokenizer = train_tiny_spiece(tmp_path / "spm", corpus, vocab_size=150)
    model = spread_weights(make_t5(name, len(tokenizer)), seed=7)
    model.save_pretrained(tmp_path / "model")
    tokenizer.save_pretrained(tmp_path / "model")
    prefix, max_source = "summarize: ", 24
    inputs = tokenizer([prefix + t for t in TEXTS], max_length=max_source, truncation=True, padding=True,
                       return_tensors="pt")
    kwargs = {settings[i].lstrip("-"): int(settings[i + 1]) for i in range(0, len(settings), 2)}
    with torch.no_grad():
        ref = model.generate(**inputs, **kwargs)
    ref_text = tokenizer.batch_decode(ref, skip_special_tokens=True)
    args = ["generate", "--model", tmp_path / "model", "--source_prefix", prefix,
            "--max_source_length", max_source, *settings]
    for t in TEXTS:
        args += ["--text", t]
    out = json_lines(run_precis(*args, env={**os.environ, "OMP_NUM_THREADS": "1"}).stdout)
    assert [o["ids"] for o in out] == ref.tolist()
    assert [o["summary_text"] for o in out] == ref_text


def test_tokenize_command_equals_t5tokenizer(tmp_path):
    import json
    corpus = [t for t in UNICODE_CORPUS if t.strip()] * 3 + TEXTS * 10
    tokenizer = train_tiny_spiece(tmp_path / "spm", corpus, vocab_size=150)
    tokenizer.save_pretrained(tmp_path / "tok")
    texts = TEXTS + ["Fill <extra_id_0> the blank <extra_id_1>.", "</s> already ends</s>"]
    (tmp_path / "texts.jsonl").write_text("".join(json.dumps(t) + "\n" for t in texts))
    for flags, kwargs in [([], {}), (["--max_length", "9"], dict(max_length=9, truncation=True)),
                          (["--no_special_tokens"], dict(add_special_tokens=False))]:
        out = json_lines(run_precis("tokenize", "--model", tmp_path / "tok", "--input", tmp_path / "texts.jsonl",
                                    "--decode", "--skip_special_tokens", *flags).stdout)
        ref = [tokenizer(t, **kwargs).input_ids for t in texts]
        assert [o["ids"] for o in out] == ref, flags
        assert [o["text"] for o in out] == [tokenizer.decode(ids, skip_special_tokens=True) for ids in ref]
    # --save writes what transformers loads back.
    run_precis("tokenize", "--model", tmp_path / "tok", "--save", tmp_path / "saved")
    from transformers import T5Tokenizer
    again = T5Tokenizer.from_pretrained(tmp_path / "saved", legacy=True)
    assert [again(t).input_ids for t in texts] == [tokenizer(t).input_ids for t in texts]
