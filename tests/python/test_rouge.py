"""precis.rouge against rouge_score as evaluate.load("rouge").compute runs it, on the ROUGE
tests' 600 pairs: each pair's fmeasure (use_aggregator=False) and BootstrapAggregator's mid
under the same numpy.random.seed (use_aggregator=True), with and without the stemmer."""
import numpy as np
import pytest
from rouge_score import rouge_scorer, scoring

import precis
from test_rouge_corpus import rouge_pairs

TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]


@pytest.fixture(scope="module")
def pairs():
    pairs = rouge_pairs()
    assert len(pairs) >= 600
    return pairs[:600]


def evaluate_rouge(predictions, references, use_aggregator, use_stemmer, seed):
    """evaluate's rouge.py compute() (evaluate 0.4), with numpy's global RNG seeded first."""
    scorer = rouge_scorer.RougeScorer(TYPES, use_stemmer=use_stemmer)
    aggregator = scoring.BootstrapAggregator() if use_aggregator else None
    scores = []
    for ref, pred in zip(references, predictions):
        score = scorer.score(ref, pred)
        aggregator.add_scores(score) if use_aggregator else scores.append(score)
    if use_aggregator:
        np.random.seed(seed)
        return {key: value.mid.fmeasure for key, value in aggregator.aggregate().items()}
    return {key: [s[key].fmeasure for s in scores] for key in scores[0]}


@pytest.mark.parametrize("use_stemmer", [False, True])
@pytest.mark.parametrize("use_aggregator", [False, True])
def test_rouge_equals_evaluate(pairs, use_aggregator, use_stemmer):
    predictions, references = [p for p, _ in pairs], [r for _, r in pairs]
    ours = precis.rouge(predictions, references, use_aggregator=use_aggregator, use_stemmer=use_stemmer,
                        bootstrap_seed=5)
    theirs = evaluate_rouge(predictions, references, use_aggregator, use_stemmer, 5)
    assert list(ours) == list(theirs) == TYPES
    for key in TYPES:
        assert np.allclose(ours[key], theirs[key], rtol=0, atol=1e-9), key
    if not use_aggregator:
        assert len(ours["rouge1"]) == len(pairs)


def test_rouge_errors():
    with pytest.raises(precis.Error, match="2 predictions but 1 references"):
        precis.rouge(["a", "b"], ["a"])
    with pytest.raises(ValueError, match="unknown rouge type"):
        precis.rouge(["a"], ["a"], rouge_types=["rougeS"])
