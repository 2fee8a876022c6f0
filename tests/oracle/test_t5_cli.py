"""`precis generate` on a T5 checkpoint directory (config.json model_type "t5", spiece.model):
ids and summary_text equal transformers' tokenizer -> generate() -> batch_decode."""
import json
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


def test_tokenizer_json_only_checkpoint_equals_t5tokenizerfast(tmp_path):
    """A checkpoint with tokenizer.json and no spiece.model (T5TokenizerFast, what AutoTokenizer
    gives run_summarization): precis tokenize and generate read it as transformers does."""
    import json
    import shutil
    from transformers import T5TokenizerFast
    corpus = [t for t in UNICODE_CORPUS if t.strip()] * 3 + TEXTS * 10
    slow = train_tiny_spiece(tmp_path / "spm", corpus, vocab_size=150)
    slow.save_pretrained(tmp_path / "slow")
    fast = T5TokenizerFast.from_pretrained(tmp_path / "slow", from_slow=True, legacy=True)
    model = spread_weights(make_t5("v1_0-relu-tied", len(fast)), seed=3)
    model.save_pretrained(tmp_path / "model")
    fast.save_pretrained(tmp_path / "fast")
    for name in ("tokenizer.json", "special_tokens_map.json"):
        shutil.copy(tmp_path / "fast" / name, tmp_path / "model" / name)
    config = json.loads((tmp_path / "fast" / "tokenizer_config.json").read_text())
    config.pop("add_prefix_space", None)  # as Hub files: no re-conversion from spiece.model
    (tmp_path / "model" / "tokenizer_config.json").write_text(json.dumps(config))
    assert not (tmp_path / "model" / "spiece.model").exists()
    hf_tok = T5TokenizerFast.from_pretrained(tmp_path / "model")

    out = json_lines(run_precis("tokenize", "--model", tmp_path / "model", *sum((["--text", t] for t in TEXTS[:1]), []),
                                "--decode", "--skip_special_tokens").stdout)
    assert out[0]["ids"] == hf_tok(TEXTS[0]).input_ids
    inputs = hf_tok(["summarize: " + t for t in TEXTS], max_length=20, truncation=True, padding=True,
                    return_tensors="pt")
    with torch.no_grad():
        ref = model.generate(**inputs, num_beams=3, max_length=14)
    args = ["generate", "--model", tmp_path / "model", "--source_prefix", "summarize: ", "--max_source_length", 20,
            "--num_beams", 3, "--max_length", 14]
    for t in TEXTS:
        args += ["--text", t]
    got = json_lines(run_precis(*args, env={**os.environ, "OMP_NUM_THREADS": "1"}).stdout)
    assert [o["ids"] for o in got] == ref.tolist()
    assert [o["summary_text"] for o in got] == hf_tok.batch_decode(ref, skip_special_tokens=True)


def test_serve_truncates_at_the_tokenizers_model_max_length(tmp_path):
    """T5 has no position limit: `precis serve` takes the input limit from tokenizer_config.json's
    model_max_length, as T5Tokenizer(truncation=True) does."""
    from serve_support import Server, post_json
    from transformers import T5Tokenizer
    corpus = [t for t in UNICODE_CORPUS if t.strip()] * 3 + TEXTS * 10
    tokenizer = train_tiny_spiece(tmp_path / "spm", corpus, vocab_size=150)
    model = spread_weights(make_t5("v1_0-relu-tied", len(tokenizer)), seed=3)
    model.save_pretrained(tmp_path / "model")
    tokenizer.save_pretrained(tmp_path / "model")
    config_path = tmp_path / "model" / "tokenizer_config.json"
    config = json.loads(config_path.read_text())
    config["model_max_length"] = 10
    config_path.write_text(json.dumps(config))
    tok = T5Tokenizer.from_pretrained(tmp_path / "model", legacy=True)
    assert tok.model_max_length == 10
    text = TEXTS[2]
    enc = tok([text], truncation=True, return_tensors="pt")
    assert enc.input_ids.shape[1] == 10 < len(tok(text).input_ids)
    with torch.no_grad():
        ref = model.generate(**enc, num_beams=1, max_length=8)
    with Server(tmp_path / "model", "--batch_wait_ms", 2) as server:
        status, body, _ = post_json(server.port, {"inputs": text, "parameters": {"num_beams": 1, "max_length": 8}})
        assert status == 200, body
        assert body == [{"summary_text": tok.decode(ref[0], skip_special_tokens=True)}]
        assert server.stop() == 0

