"""T5 tokenizer (spiece.model through libsentencepiece) against transformers' T5Tokenizer
(slow, sentencepiece-backed) and T5TokenizerFast built from the same model: ids and decoding
on the Unicode corpus of the BART tokenizer tests, plus sentinel and special-token texts."""
import json
import subprocess

import pytest

from conftest import UNICODE_CORPUS, precis_binary
from t5_models import SPECIAL_TEXTS, train_tiny_spiece
from tokenizer_support import tiny_spiece_corpus

spm = pytest.importorskip("sentencepiece")

TEXTS = UNICODE_CORPUS + SPECIAL_TEXTS


@pytest.fixture(scope="module")
def t5_tokenizers(tmp_path_factory):
    from transformers import T5TokenizerFast

    d = tmp_path_factory.mktemp("t5_spiece")
    slow = train_tiny_spiece(d, tiny_spiece_corpus())
    slow.save_pretrained(str(d / "tok"))
    fast = T5TokenizerFast.from_pretrained(str(d / "tok"), from_slow=True)
    return d / "tok", slow, fast


def probe(cmd, tok_dir, items, tmp_path, *extra):
    (tmp_path / "in.json").write_text(json.dumps(items))
    result = subprocess.run([precis_binary("spiece_probe"), cmd, tok_dir, tmp_path / "in.json", *extra],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_ids_equal_t5tokenizer(t5_tokenizers, tmp_path):
    tok_dir, slow, fast = t5_tokenizers
    ours = probe("encode", tok_dir, TEXTS, tmp_path)
    assert len(ours) == len(TEXTS)
    agree_with_fast = 0
    for text, ids in zip(TEXTS, ours):
        ref = slow(text).input_ids
        assert ids == ref, f"{text!r}: ours {ids} vs T5Tokenizer {ref} ({slow.convert_ids_to_tokens(ref)})"
        if fast(text).input_ids == ref:
            agree_with_fast += 1
    # The fast pipeline equals the slow one on ordinary text (where precis equals both).
    assert fast(TEXTS[0]).input_ids == ours[0]
    print(f"T5TokenizerFast agrees on {agree_with_fast}/{len(TEXTS)} texts")
    assert any(2 in ids for ids in ours), "the corpus should exercise <unk>"
    assert any(ids[-1] == 1 for ids in ours)


@pytest.mark.parametrize("skip", [True, False])
def test_decode_equals_t5tokenizer(t5_tokenizers, tmp_path, skip):
    tok_dir, slow, _ = t5_tokenizers
    # Encoded texts, and generated-like rows: decoder start (pad) first, pad after </s>.
    rows = [slow(t).input_ids for t in TEXTS]
    rows += [[0] + r + [0, 0] for r in rows[:6]]
    rows += [[0, len(slow) - 1, 5, 6, len(slow) - 2, 1]]
    ours = probe("decode", tok_dir, rows, tmp_path, *([] if skip else ["keep"]))
    for ids, text in zip(rows, ours):
        ref = slow.decode(ids, skip_special_tokens=skip)
        assert text == ref, f"{ids}: ours {text!r} vs T5Tokenizer {ref!r}"
