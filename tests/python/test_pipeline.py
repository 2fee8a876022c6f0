"""precis.pipeline("summarization") against transformers' pipeline("summarization") on the same
tiny BART directory (bart-large-cnn's generation settings scaled down): the ids and texts of
greedy search, beam search (the checkpoint's own settings and kwargs over them) and sampling,
for one string and for a list, one at a time and in padded batches."""
import pytest
import torch
from transformers import pipeline as hf_pipeline

import precis
from bart_models import CNN, TEXTS, save_model


@pytest.fixture(scope="module")
def model_dir(tiny_bpe_dir, tmp_path_factory):
    d = tmp_path_factory.mktemp("cnn")
    save_model(tiny_bpe_dir, d, "narrow-gelu", 3, 4.0, **CNN)
    return d


@pytest.fixture(scope="module")
def pipelines(model_dir):
    return precis.pipeline("summarization", model=model_dir), hf_pipeline(
        "summarization", model=str(model_dir), tokenizer=str(model_dir), device=-1)


def ids(rows):
    return [r["summary_token_ids"] if isinstance(r["summary_token_ids"], list) else r["summary_token_ids"].tolist()
            for r in rows]


CASES = {
    "checkpoint": {},  # the checkpoint's beam search: 4 beams, lengths, no_repeat_ngram_size
    "greedy": dict(num_beams=1, max_length=20, min_length=0, no_repeat_ngram_size=0),
    "beam": dict(num_beams=3, length_penalty=0.6, max_length=24, min_length=8, no_repeat_ngram_size=2),
    # top_k=1 sampling draws the most likely token whatever the draws.
    "sampling-top1": dict(do_sample=True, top_k=1, num_beams=1, max_length=20),
}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("batch_size", [1, 3])
def test_list_equals_transformers(pipelines, case, batch_size):
    ours, theirs = pipelines
    kwargs = CASES[case]
    torch.manual_seed(0)
    expected = theirs(TEXTS, batch_size=batch_size, return_tensors=True, **kwargs)
    got = ours(TEXTS, batch_size=batch_size, return_tensors=True, **kwargs)
    assert ids(got) == ids(expected)
    assert ours(TEXTS, batch_size=batch_size, **kwargs) == theirs(TEXTS, batch_size=batch_size, **kwargs)


@pytest.mark.parametrize("case", CASES)
def test_string_equals_transformers(pipelines, case):
    ours, theirs = pipelines
    for text in TEXTS[:3]:
        expected = theirs(text, **CASES[case])
        assert ours(text, **CASES[case]) == expected
        assert isinstance(expected, list) and list(expected[0]) == ["summary_text"]


# Sampling with a seed: precis's `seed=N` draws what torch draws after torch.manual_seed(N).
SAMPLED = {
    "temperature": dict(do_sample=True, top_k=0, temperature=1.5, num_beams=1, max_length=20),
    "top-k-top-p": dict(do_sample=True, top_k=50, top_p=0.9, num_beams=1, max_length=20),
    "two-sequences": dict(do_sample=True, top_k=50, num_beams=1, max_length=20, num_return_sequences=2),
}


def flat(rows):
    """A list's results with their per-text lists (num_return_sequences > 1) laid end to end."""
    return [r for x in rows for r in (x if isinstance(x, list) else [x])]


@pytest.mark.parametrize("case", SAMPLED)
@pytest.mark.parametrize("batch_size", [1, 3])
def test_sampling_with_a_seed_equals_transformers(pipelines, case, batch_size):
    """pipeline(texts, seed=N) equals transformers' pipeline after torch.manual_seed(N), for a
    list (the generator going on from batch to batch) and for a string."""
    ours, theirs = pipelines
    kwargs = SAMPLED[case]
    seen = []
    for seed in (11, 12):
        torch.manual_seed(seed)
        expected = ids(flat(theirs(TEXTS, batch_size=batch_size, return_tensors=True, **kwargs)))
        assert ids(flat(ours(TEXTS, batch_size=batch_size, seed=seed, return_tensors=True, **kwargs))) == expected
        seen.append(expected)
        torch.manual_seed(seed)
        assert ours(TEXTS[0], seed=seed, **kwargs) == theirs(TEXTS[0], **kwargs)
    assert seen[0] != seen[1]


def test_sampling_with_a_seed(pipelines, model_dir):
    """The same seed gives the same summaries, and as `precis generate --seed`."""
    ours, _ = pipelines
    sample = dict(do_sample=True, top_k=0, temperature=1.5, num_beams=1, max_length=20)
    a = ours(TEXTS, seed=11, return_tensors=True, **sample)
    assert ids(a) == ids(ours(TEXTS, seed=11, return_tensors=True, **sample))
    assert ids(a) != ids(ours(TEXTS, seed=12, return_tensors=True, **sample))
    from conftest import json_lines, run_precis
    cli = json_lines(run_precis("generate", "--model", model_dir, "--text", TEXTS[0], "--do_sample", "--top_k", "0",
                                "--temperature", "1.5", "--num_beams", "1", "--max_length", "20",
                                "--seed", "11").stdout)
    assert cli[0]["ids"] == ids(ours(TEXTS[0], seed=11, return_tensors=True, **sample))[0]


def test_num_return_sequences_and_errors(pipelines, tmp_path):
    ours, theirs = pipelines
    kwargs = dict(num_beams=4, num_return_sequences=2)
    assert ours(TEXTS[:2], **kwargs) == theirs(TEXTS[:2], **kwargs)
    with pytest.raises(precis.Error):
        ours(TEXTS[0], num_beams=0)
    with pytest.raises(ValueError, match="task"):
        precis.pipeline("translation", model=tmp_path)
    with pytest.raises(precis.Error):
        precis.pipeline("summarization", model=tmp_path / "missing")
