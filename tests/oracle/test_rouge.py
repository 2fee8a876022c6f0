"""precis rouge against rouge_score, live: every per-pair precision/recall/F, the means, the
bootstrap aggregate (after numpy.random.seed), the tokens, and the Porter stems of every
distinct word in 16 MB of English text."""
import json
import math
import pathlib
import sys

import numpy as np
import pytest
from nltk.stem.porter import PorterStemmer
from rouge_score import rouge_scorer, scoring, tokenizers

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from conftest import run_precis  # noqa: E402
from test_rouge_corpus import english_text, rouge_pairs  # noqa: E402

TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
TOL = 1e-9


def write_json_lines(path, texts):
    path.write_text("".join(json.dumps(t) + "\n" for t in texts))
    return path


def precis_rouge(tmp_path, pairs, *flags):
    preds = write_json_lines(tmp_path / "predictions.jsonl", [p for p, _ in pairs])
    refs = write_json_lines(tmp_path / "references.jsonl", [r for _, r in pairs])
    out = run_precis("rouge", "--predictions", preds, "--references", refs, "--per_example", *flags)
    return json.loads(out.stdout)


def close(a, b):
    return math.isclose(a, b, rel_tol=0, abs_tol=TOL)


@pytest.fixture(scope="module")
def pairs():
    return rouge_pairs()


@pytest.mark.parametrize("use_stemmer", [True, False])
def test_every_pair_and_the_mean_match_rouge_score(tmp_path, pairs, use_stemmer):
    flags = [] if use_stemmer else ["--no_stemmer"]
    ours = precis_rouge(tmp_path, pairs, *flags)
    scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=use_stemmer)
    theirs = [scorer.score(ref, pred) for pred, ref in pairs]
    assert len(ours["per_example"]) == len(pairs)
    bad = []
    for i, (mine, ref) in enumerate(zip(ours["per_example"], theirs)):
        for t in TYPES:
            for m in ("precision", "recall", "fmeasure"):
                if not close(mine[t][m], getattr(ref[t], m)):
                    bad.append((i, t, m, mine[t][m], getattr(ref[t], m), pairs[i]))
    assert not bad, f"{len(bad)} mismatches, first: {bad[:3]}"
    for t in TYPES:
        mean = sum(s[t].fmeasure for s in theirs) / len(theirs)
        assert close(ours[t], mean), (t, ours[t], mean)
        # what evaluate returns with use_aggregator=False, averaged
        assert close(ours[t], float(np.mean([s[t].fmeasure for s in theirs]))), t


@pytest.mark.parametrize("seed", [0, 7, 1234])
def test_bootstrap_matches_rouge_score_after_numpy_seed(tmp_path, pairs, seed):
    subset = pairs[:150]
    ours = precis_rouge(tmp_path, subset, "--bootstrap_seed", seed)
    scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=True)
    aggregator = scoring.BootstrapAggregator()
    for pred, ref in subset:
        aggregator.add_scores(scorer.score(ref, pred))
    np.random.seed(seed)
    theirs = aggregator.aggregate()
    for t in TYPES:
        for bound in ("low", "mid", "high"):
            for m in ("precision", "recall", "fmeasure"):
                a = ours["bootstrap"][t][bound][m]
                b = float(getattr(getattr(theirs[t], bound), m))
                assert close(a, b), (t, bound, m, a, b)
        # run_summarization: round(result * 100, 4) of evaluate's mid.fmeasure
        assert ours["run_summarization_percent"][t] == round(float(theirs[t].mid.fmeasure) * 100, 4)


def test_tokens_match_default_tokenizer(tmp_path, pairs):
    texts = sorted({t for pair in pairs for t in pair})
    path = write_json_lines(tmp_path / "texts.jsonl", texts)
    for use_stemmer in (True, False):
        flags = [] if use_stemmer else ["--no_stemmer"]
        out = run_precis("rouge_tokens", "--input", path, *flags).stdout.splitlines()
        tokenizer = tokenizers.DefaultTokenizer(use_stemmer=use_stemmer)
        assert len(out) == len(texts)
        for text, line in zip(texts, out):
            assert json.loads(line) == tokenizer.tokenize(text), text[:200]


def test_porter_stems_of_every_word_in_english_text(tmp_path):
    tokenizer = tokenizers.DefaultTokenizer(use_stemmer=False)
    text = english_text(max_chars=16_000_000)
    words = sorted(set(tokenizer.tokenize(text)))
    assert len(words) > 20000
    path = tmp_path / "words.txt"
    path.write_text("\n".join(words) + "\n")
    out = run_precis("rouge_tokens", "--input", path).stdout.splitlines()
    assert len(out) == len(words)
    stemmer = PorterStemmer()  # NLTK_EXTENSIONS, as rouge_score builds it
    wrong = [(w, json.loads(line), stemmer.stem(w)) for w, line in zip(words, out)
             if json.loads(line) != [stemmer.stem(w) if len(w) > 3 else w]]
    assert not wrong, f"{len(wrong)} of {len(words)} stems differ, first: {wrong[:10]}"


def test_plain_text_files_and_count_mismatch(tmp_path):
    (tmp_path / "p.txt").write_text("the cat sat\n\na dog\n")
    (tmp_path / "r.txt").write_text("the cat sat down\nnothing\na dog ran\n")
    ours = json.loads(run_precis("rouge", "--predictions", tmp_path / "p.txt",
                                 "--references", tmp_path / "r.txt", "--per_example").stdout)
    scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=True)
    expected = [scorer.score(r, p) for p, r in [("the cat sat", "the cat sat down"), ("", "nothing"),
                                               ("a dog", "a dog ran")]]
    for mine, ref in zip(ours["per_example"], expected):
        for t in TYPES:
            assert close(mine[t]["fmeasure"], ref[t].fmeasure)
    (tmp_path / "short.txt").write_text("only one\n")
    result = run_precis("rouge", "--predictions", tmp_path / "short.txt",
                        "--references", tmp_path / "r.txt", check=False)
    assert result.returncode != 0
    assert "short.txt" in result.stderr and "r.txt" in result.stderr
    assert "1 predictions" in result.stderr and "3 references" in result.stderr


def test_split_sentences_puts_one_sentence_per_line(tmp_path):
    pairs = [("Mr. Smith went to Washington. He arrived at 5 p.m. and left. Did he stay?",
              "Smith went to Washington.\nHe left.")]
    plain = precis_rouge(tmp_path, pairs)
    split = precis_rouge(tmp_path, pairs, "--split_sentences")
    scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=True)
    lines = "Mr. Smith went to Washington.\nHe arrived at 5 p.m. and left.\nDid he stay?"
    expected = scorer.score(pairs[0][1], lines)
    assert close(split["rougeLsum"], expected["rougeLsum"].fmeasure)
    for t in ("rouge1", "rouge2", "rougeL"):
        assert close(split[t], plain[t])
