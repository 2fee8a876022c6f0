"""precis.AutoTokenizer against transformers' AutoTokenizer on the tokenizer tests' Unicode
corpus: byte-level BPE (BART) and T5's (tokenizer.json and spiece.model), one text and
batches, truncation, padding, numpy arrays, decode and batch_decode."""
import numpy as np
import pytest
from transformers import AutoTokenizer

import precis
from conftest import UNICODE_CORPUS
from t5_models import SPECIAL_TEXTS, train_tiny_spiece
from tokenizer_support import tiny_spiece_corpus


@pytest.fixture(scope="module")
def t5_dirs(tmp_path_factory):
    """A tiny spiece.model, saved once as T5Tokenizer (spiece.model) and once as
    T5TokenizerFast (tokenizer.json, which AutoTokenizer prefers)."""
    from transformers import T5TokenizerFast
    d = tmp_path_factory.mktemp("t5_tok")
    slow = train_tiny_spiece(d, tiny_spiece_corpus())  # test_t5_tokenizer's
    slow.save_pretrained(str(d / "spiece"))
    T5TokenizerFast.from_pretrained(str(d / "spiece"), from_slow=True).save_pretrained(str(d / "fast"))
    return {"spiece": d / "spiece", "fast": d / "fast"}


@pytest.fixture(params=["bpe", "t5-fast", "t5-spiece"])
def tokenizers(request, tiny_bpe_dir, t5_dirs):
    """precis's and transformers' tokenizer of one directory. A directory with spiece.model
    alone is T5Tokenizer's (AutoTokenizer(use_fast=False)), as precis reads it (text_tokenizer.h);
    AutoTokenizer's default would convert it to a fast tokenizer with ids of its own."""
    directory = {"bpe": tiny_bpe_dir, "t5-fast": t5_dirs["fast"], "t5-spiece": t5_dirs["spiece"]}[request.param]
    theirs = AutoTokenizer.from_pretrained(directory, use_fast=request.param != "t5-spiece")
    return precis.AutoTokenizer.from_pretrained(directory), theirs


def test_ids_equal_autotokenizer(tokenizers):
    ours, theirs = tokenizers
    texts = UNICODE_CORPUS + SPECIAL_TEXTS
    for text in texts:
        assert ours(text)["input_ids"] == theirs(text)["input_ids"], text
    for kwargs in ({}, {"max_length": 7, "truncation": True}, {"padding": True},
                   {"padding": "max_length", "max_length": 40, "truncation": True}, {"add_special_tokens": False}):
        a, b = ours(texts, **kwargs), theirs(texts, **kwargs)
        assert a["input_ids"] == b["input_ids"], kwargs
        assert a["attention_mask"] == b["attention_mask"], kwargs
    a, b = ours(texts, padding=True, return_tensors="np"), theirs(texts, padding=True, return_tensors="np")
    assert a.input_ids.dtype == b.input_ids.dtype and np.array_equal(a.input_ids, b.input_ids)
    assert np.array_equal(a.attention_mask, b.attention_mask)
    assert len(ours) == len(theirs) and ours.pad_token_id == theirs.pad_token_id


def test_decode_equals_autotokenizer(tokenizers):
    ours, theirs = tokenizers
    ids = theirs(UNICODE_CORPUS)["input_ids"]
    for skip in (False, True):
        assert ours.batch_decode(ids, skip_special_tokens=skip) == theirs.batch_decode(ids, skip_special_tokens=skip)
        assert ours.decode(np.array(ids[3]), skip_special_tokens=skip) == theirs.decode(ids[3], skip_special_tokens=skip)


def test_errors_are_python_exceptions(tmp_path, tiny_bpe_dir):
    with pytest.raises(precis.Error) as e:
        precis.AutoTokenizer.from_pretrained(tmp_path / "missing")
    assert isinstance(e.value, ValueError) and "missing" in str(e.value)
    with pytest.raises(ValueError, match="padding must be"):
        precis.AutoTokenizer.from_pretrained(tiny_bpe_dir)(["a"], padding="sideways")
