"""What transformers' pipeline takes from config.json beyond the generation config:
task_specific_params[task] merged into the generation config when the pipeline is made for
that task (bart-large-cnn's beam search; a "text2text-generation" pipeline on the same
directory does not take the "summarization" entry), and config.prefix (T5's "summarize: ",
which T5's checkpoints carry in their task_specific_params) before every input. precis's
pipeline against HF's on tiny random BART and T5 checkpoints whose configs set them."""
import json
import shutil

import pytest
from transformers import pipeline as hf_pipeline

import precis
from bart_models import TEXTS, save_model
from t5_models import make_t5, train_tiny_spiece
from tokenizer_support import tiny_spiece_corpus

# bart-large-cnn's "summarization" entry with the lengths scaled to a tiny model, and a prefix.
SUMMARIZATION = dict(num_beams=3, length_penalty=2.0, max_length=22, min_length=9, no_repeat_ngram_size=2,
                     early_stopping=True, prefix="Summarize this: ", not_a_generation_key=7)


def edit_config(d, **changes):
    config = json.loads((d / "config.json").read_text())
    config.update(changes)
    (d / "config.json").write_text(json.dumps(config))
    return d


@pytest.fixture(scope="module")
def bart_dir(tiny_bpe_dir, tmp_path_factory):
    d = tmp_path_factory.mktemp("bart_task")
    save_model(tiny_bpe_dir, d, "narrow-gelu", 5, 3.0)
    return edit_config(d, task_specific_params={"summarization": SUMMARIZATION})


@pytest.fixture(scope="module")
def t5_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("t5_task")
    from transformers import T5TokenizerFast
    train_tiny_spiece(d / "spiece", tiny_spiece_corpus()).save_pretrained(str(d / "spiece"))
    # tokenizer.json: what AutoTokenizer and precis both read (test_tokenizer's "fast" directory).
    tokenizer = T5TokenizerFast.from_pretrained(str(d / "spiece"), from_slow=True)
    tokenizer.save_pretrained(str(d))
    make_t5("v1_0-relu-tied", len(tokenizer), seed=2, scale=0.5).save_pretrained(d)
    # t5-small's entry: only the prefix and beam search settings.
    return edit_config(d, task_specific_params={"summarization": dict(
        early_stopping=True, length_penalty=2.0, max_length=16, min_length=6, no_repeat_ngram_size=3, num_beams=2,
        prefix="summarize: ")})


def ids(rows):
    """The rows' ids: "summary_token_ids" (summarization) or "generated_token_ids" (text2text)."""
    (key,) = {k for r in rows for k in r}
    return [r[key] if isinstance(r[key], list) else r[key].tolist() for r in rows]


def both(task, d, **kwargs):
    ours = precis.pipeline(task, model=d)
    theirs = hf_pipeline(task, model=str(d), tokenizer=str(d), device=-1)
    return ids(ours(TEXTS, return_tensors=True, **kwargs)), ids(theirs(TEXTS, return_tensors=True, **kwargs))


@pytest.mark.parametrize("family", ["bart", "t5"])
def test_task_specific_params_and_prefix_equal_transformers(family, bart_dir, t5_dir):
    d = bart_dir if family == "bart" else t5_dir
    ours, theirs = both("summarization", d)
    assert ours == theirs
    # The entry is the summarization task's: the text2text pipeline's ids are other ones.
    plain_ours, plain_theirs = both("text2text-generation", d)
    assert plain_ours == plain_theirs and plain_ours != ours
    # Call-time kwargs override the entry.
    override_ours, override_theirs = both("summarization", d, num_beams=1, max_length=12)
    assert override_ours == override_theirs and override_ours != ours


def test_config_prefix_alone(bart_dir, tmp_path):
    """config.prefix without a task entry (PretrainedConfig's own attribute) is put before the
    texts by every text2text pipeline."""
    d = tmp_path / "prefixed"
    shutil.copytree(bart_dir, d)
    edit_config(d, task_specific_params=None, prefix="Dialogue: ")
    ours, theirs = both("summarization", d, num_beams=1, max_length=16)
    assert ours == theirs
    assert ours != both("summarization", edit_config(d, prefix=None), num_beams=1, max_length=16)[0]


def test_bad_task_specific_params(bart_dir, tmp_path):
    d = tmp_path / "bad"
    shutil.copytree(bart_dir, d)
    edit_config(d, task_specific_params={"summarization": ["num_beams", 4]})
    with pytest.raises(precis.Error, match=r"config.json: task_specific_params.summarization must be an object"):
        precis.pipeline("summarization", model=d)
