"""precis.rouge: evaluate.load("rouge").compute, from the library's rouge_score twin."""
from . import _precis


def rouge(predictions, references, rouge_types=None, use_aggregator=True, use_stemmer=False, bootstrap_seed=0):
    """ROUGE of predictions against references, pair by pair, with evaluate's keys and values.

    use_aggregator=True: rouge_score's BootstrapAggregator mid fmeasure per type, its 1000
    resamples drawn as NumPy draws them after numpy.random.seed(bootstrap_seed) (evaluate draws
    from NumPy's global state as it stands). use_aggregator=False: each pair's fmeasure, a list
    per type. rouge_types: any of rouge1, rouge2, rougeL, rougeLsum (all four by default; the
    bootstrap's draws are those of all four in that order). rougeLsum sees a text's lines as
    its sentences, as evaluate does.
    """
    return _precis.rouge(list(predictions), list(references), None if rouge_types is None else list(rouge_types),
                         use_aggregator, use_stemmer, bootstrap_seed)
