"""`precis card` against the Hub's readers: the front matter parses with PyYAML, its model-index
has the documented structure and passes huggingface_hub's own checks, those it makes without the
network (hub_checked_card: metadata_load's front-matter regex, ModelCard.load's strict parse of
the model-index into EvalResults, and the card data re-serialised by the Hub giving back the same
metadata), with the scores of eval_results.json / predict_results.json; the same checks refuse
broken model-indexes; the hyperparameters and training results table are those
Trainer.create_model_card writes for the same arguments and log history (and, for a run without
evaluation, where HF writes no rows, at most 20 of the logged losses as HF's table would show
them); loss_curve.svg parses as XML and carries the text alternative the card gives the image; a
second run gives the same bytes."""
import copy
import json
import re
import xml.etree.ElementTree as ET

import pytest
import yaml
from huggingface_hub import ModelCard
from huggingface_hub.repocard import metadata_load
from huggingface_hub.repocard_data import eval_results_to_model_index, model_index_to_eval_results

from bart_models import make_bart
from card_support import hf_model_card, logged_losses, regular_log_history, results_table, table_records
from conftest import run_precis, train_tiny_bpe

SOURCES = [
    "Amanda: I baked cookies. Do you want some?\nJerry: Sure!\nAmanda: I'll bring you tomorrow :-)",
    "Olivia: Who are you voting for in this election?\nOliver: Liberals as always.",
    "Tim: Hi, what's up?\nKim: Bad mood tbh, I was going to do lots of stuff but ended up procrastinating",
    "The quick brown fox jumps over the lazy dog.",
]
SUMMARIES = ["Amanda will bring Jerry cookies.", "They vote liberal.", "Kim is in a bad mood.", "A fox jumps."]

TRAINING_ARGS = {
    "model_name_or_path": "facebook/bart-large-cnn", "train_file": "/data/samsum/train.json",
    "validation_file": "/data/samsum/validation.json", "test_file": "/data/samsum/test.json",
    "output_dir": "out", "learning_rate": 5e-05, "per_device_train_batch_size": 4, "per_device_eval_batch_size": 8,
    "gradient_accumulation_steps": 2, "seed": 7, "adam_beta1": 0.9, "adam_beta2": 0.999, "adam_epsilon": 1e-08,
    "lr_scheduler_type": "linear", "warmup_ratio": 0.1, "warmup_steps": 0, "max_steps": -1, "num_train_epochs": 3.0,
    "fp16": False, "label_smoothing_factor": 0.1,
}
LOG_HISTORY = [
    {"epoch": 0.5, "grad_norm": 3.2, "learning_rate": 4e-05, "loss": 3.123456, "step": 5},
    {"epoch": 1.0, "grad_norm": 2.1, "learning_rate": 3e-05, "loss": 2.5, "step": 10},
    {"epoch": 1.0, "eval_loss": 2.4123456, "eval_rouge1": 30.5, "eval_rouge2": 10.25, "eval_rougeL": 25.0,
     "eval_rougeLsum": 27.75, "eval_gen_len": 18.5, "eval_runtime": 1.5, "eval_samples_per_second": 3.0,
     "eval_steps_per_second": 1.0, "step": 10},
    {"epoch": 2.0, "eval_loss": 2.3, "eval_rouge1": 31.5, "eval_rouge2": 11.25, "eval_rougeL": 26.0,
     "eval_rougeLsum": 28.75, "eval_gen_len": 17.0, "eval_runtime": 1.5, "eval_samples_per_second": 3.0,
     "eval_steps_per_second": 1.0, "step": 20},
    {"epoch": 3.0, "grad_norm": 1.5, "learning_rate": 1e-05, "loss": 2.0, "step": 30},
    {"epoch": 3.0, "step": 30, "total_flos": 0, "train_loss": 2.5, "train_runtime": 12.5,
     "train_samples_per_second": 9.6, "train_steps_per_second": 2.4},
]
EVAL_RESULTS = {"epoch": 3.0, "eval_gen_len": 18.25, "eval_loss": 2.3456789, "eval_rouge1": 42.6234,
                "eval_rouge2": 21.9812, "eval_rougeL": 33.0345, "eval_rougeLsum": 39.6789, "eval_runtime": 2.0,
                "eval_samples": 818, "eval_samples_per_second": 409.0, "eval_steps_per_second": 51.0}
PREDICT_RESULTS = {"predict_gen_len": 17.5, "predict_loss": 2.5, "predict_rouge1": 41.32, "predict_rouge2": 20.87,
                   "predict_rougeL": 32.13, "predict_rougeLsum": 38.41, "predict_runtime": 2.0,
                   "predict_samples": 819, "predict_samples_per_second": 409.5, "predict_steps_per_second": 51.2}


def write_json(path, obj):
    path.write_text(json.dumps(obj, indent=4) + "\n")


def hand_made_dir(tmp_path, name="bart-samsum"):
    d = tmp_path / name
    d.mkdir()
    write_json(d / "config.json", {"architectures": ["BartForConditionalGeneration"], "model_type": "bart",
                                   "d_model": 16, "encoder_layers": 2, "decoder_layers": 2, "vocab_size": 600})
    write_json(d / "training_args.json", TRAINING_ARGS)
    write_json(d / "trainer_state.json", {"global_step": 30, "log_history": LOG_HISTORY})
    write_json(d / "eval_results.json", EVAL_RESULTS)
    write_json(d / "predict_results.json", PREDICT_RESULTS)
    return d


def card(d, *args):
    result = run_precis("card", "--model", d, *args)
    assert result.stdout.strip() == str(d / "README.md")
    return (d / "README.md").read_text()


def front_matter(text):
    assert text.startswith("---\n")
    end = text.index("\n---\n", 4)
    return yaml.safe_load(text[4:end + 1]), text[end + 5:]


def hub_checked_card(readme):
    """huggingface_hub's local checks of a model card (ModelCard.validate() asks the Hub's API,
    which is out of reach): metadata_load finds the front matter with the Hub's regex and it is a
    mapping; ModelCard.load parses the model-index into EvalResults, refusing (ValueError) one it
    cannot read; the card data the Hub would write back (to_dict, eval_results_to_model_index,
    ModelCard.content) is the metadata of the file, so no result is merged or lost. Returns the card."""
    meta = metadata_load(readme)
    assert isinstance(meta, dict), f"{readme}: no front matter the Hub finds"
    card = ModelCard.load(readme)
    assert card.data.to_dict() == meta, f"{readme}: the card data the Hub writes back is other metadata"
    if "model-index" in meta:
        assert eval_results_to_model_index(card.data.model_name, card.data.eval_results or []) == \
            meta["model-index"], f"{readme}: the EvalResults give back another model-index"
    assert ModelCard(card.content).data.to_dict() == meta, f"{readme}: the card content the Hub writes reads otherwise"
    return card


def expected_metrics(results, prefix):
    names = [("rouge1", "rouge", "Rouge1"), ("rouge2", "rouge", "Rouge2"), ("rougeL", "rouge", "Rougel"),
             ("rougeLsum", "rouge", "Rougelsum"), ("gen_len", "gen_len", "Gen Len"), ("loss", "loss", "Loss")]
    return {name: (type_, results[f"{prefix}_{key}"]) for key, type_, name in names if f"{prefix}_{key}" in results}


def check_model_index(meta, name, splits):
    """splits: {split: (dataset, results, prefix)}"""
    index = meta["model-index"]
    assert isinstance(index, list) and len(index) == 1 and index[0]["name"] == name
    results = index[0]["results"]
    assert [r["dataset"]["split"] for r in results] == list(splits)
    for r in results:
        dataset, scores, prefix = splits[r["dataset"]["split"]]
        assert r["task"] == {"type": "summarization", "name": "Summarization"}
        assert r["dataset"]["name"] == dataset and r["dataset"]["type"] == dataset
        got = {m["name"]: (m["type"], m["value"]) for m in r["metrics"]}
        assert all(set(m) == {"type", "value", "name"} for m in r["metrics"])
        assert got == expected_metrics(scores, prefix)
        assert all(isinstance(m["value"], float) for m in r["metrics"])

    # huggingface_hub's own readers.
    model_name, eval_results = model_index_to_eval_results(index)
    assert model_name == name
    hub = {(e.dataset_split, e.metric_name): e.metric_value for e in eval_results}
    for split, (dataset, scores, prefix) in splits.items():
        for metric, (_, value) in expected_metrics(scores, prefix).items():
            assert hub[(split, metric)] == value
    assert all(e.task_type == "summarization" for e in eval_results)


def test_hand_made_directory(tmp_path):
    d = hand_made_dir(tmp_path)
    text = card(d, "--widget_text", "Anna: Lunch at 12:30?\nBen: Sure!")
    meta, body = front_matter(text)
    assert meta["language"] == ["en"] and meta["license"] == "apache-2.0"
    assert meta["tags"] == ["summarization", "generated_from_trainer", "precis"]
    assert meta["datasets"] == ["samsum"] and meta["base_model"] == "facebook/bart-large-cnn"
    assert meta["pipeline_tag"] == "summarization" and meta["metrics"] == ["rouge"]
    assert meta["widget"] == [{"text": "Anna: Lunch at 12:30?\nBen: Sure!"}]
    check_model_index(meta, "bart-samsum", {"validation": ("samsum", EVAL_RESULTS, "eval"),
                                            "test": ("samsum", PREDICT_RESULTS, "predict")})

    hub_card = hub_checked_card(d / "README.md")
    assert hub_card.data.model_name == "bart-samsum"
    assert hub_card.data.base_model == "facebook/bart-large-cnn"
    assert {(e.dataset_split, e.metric_name): e.metric_value for e in hub_card.data.eval_results} == {
        **{("validation", k): v for k, (_, v) in expected_metrics(EVAL_RESULTS, "eval").items()},
        **{("test", k): v for k, (_, v) in expected_metrics(PREDICT_RESULTS, "predict").items()}}
    # The Hub re-serialises the metadata it read: it must round-trip.
    assert yaml.safe_load(hub_card.data.to_yaml())["model-index"] == meta["model-index"]

    for section in ("## Training procedure", "### Training hyperparameters", "### Training results",
                    "## Evaluation results", "## Usage", "## Framework versions",
                    'pipeline("summarization", model="bart-samsum")', "precis generate --model bart-samsum"):
        assert section in body
    svg = (d / "loss_curve.svg").read_bytes()
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    ns = {"s": "http://www.w3.org/2000/svg"}
    # The curve's text alternative, from LOG_HISTORY's losses: the SVG's accessible name and
    # description, and the card's text for the image.
    description = ("Training loss, 3 logged steps: from 3.123 at step 5 to 2 at step 30; lowest 2 at step 30. "
                   "Validation loss, 2 evaluations: from 2.412 at step 10 to 2.3 at step 20; lowest 2.3 at step 20.")
    assert root.get("role") == "img"
    assert root.find(f".//s:title[@id='{root.get('aria-labelledby')}']", ns).text == "Training loss"
    assert root.find(f".//s:desc[@id='{root.get('aria-describedby')}']", ns).text == description
    assert f"\n![{description}](loss_curve.svg)\n" in body
    assert len(root.findall(".//s:polyline", ns)) == 1
    assert len(root.findall(".//s:g/s:circle", ns)) == 2  # two validation losses
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "step" in texts and "loss" in texts

    # Deterministic: the same bytes again.
    assert card(d, "--widget_text", "Anna: Lunch at 12:30?\nBen: Sure!") == text
    assert (d / "loss_curve.svg").read_bytes() == svg


def test_matches_trainer_create_model_card(tmp_path):
    """The hyperparameter list and the training results table are Trainer.create_model_card's."""
    import torch
    from transformers import Seq2SeqTrainer, Seq2SeqTrainingArguments

    d = hand_made_dir(tmp_path)
    ours = card(d)
    hf_args = {k: v for k, v in TRAINING_ARGS.items()
               if k not in ("model_name_or_path", "train_file", "validation_file", "test_file")}
    hf_args.update(output_dir=str(tmp_path / "hf"), report_to=[], use_cpu=True)
    (tmp_path / "hf").mkdir()
    model = make_bart("narrow-gelu", 600)
    trainer = Seq2SeqTrainer(model=model, args=Seq2SeqTrainingArguments(**hf_args))
    trainer.state.log_history = LOG_HISTORY
    trainer.create_model_card(license="apache-2.0", finetuned_from="facebook/bart-large-cnn", dataset="samsum")
    hf = (tmp_path / "hf" / "README.md").read_text()
    del torch

    def section(text, start, stop):
        i = text.index(start) + len(start)
        return text[i:text.index(stop, i)]

    marker = "The following hyperparameters were used during training:\n"
    assert section(ours, marker, "\n\n") == section(hf, marker, "\n\n")
    assert section(ours, "### Training results\n\n", "\n\n") == section(hf, "### Training results\n\n", "\n\n")
    # HF's summary of the evaluation set names the same metrics (ours from eval_results.json).
    assert "It achieves the following results on the evaluation set:\n- Loss: 2.3457\n- Rouge1: 42.6234\n" in ours


def test_bare_directory_and_errors(tmp_path):
    d = tmp_path / "tiny"
    d.mkdir()
    write_json(d / "config.json", {"model_type": "bart"})
    text = card(d, "--license", "mit", "--language", "de", "--dataset", "knkarthick/samsum",
                "--base_model", "facebook/bart-base")
    meta, body = front_matter(text)
    assert meta["license"] == "mit" and meta["language"] == ["de"] and meta["datasets"] == ["knkarthick/samsum"]
    assert meta["base_model"] == "facebook/bart-base"
    assert meta["model-index"] == [{"name": "tiny", "results": []}]
    assert not hub_checked_card(d / "README.md").data.eval_results
    assert "## Training procedure" not in body and "## Evaluation results" not in body
    assert not (d / "loss_curve.svg").exists()

    (d / "eval_results.json").write_text('{"eval_loss": ')
    r = run_precis("card", "--model", d, check=False)
    assert r.returncode != 0 and "eval_results.json" in r.stderr
    r = run_precis("card", "--model", tmp_path / "missing", check=False)
    assert r.returncode != 0 and "missing" in r.stderr


def training_run(tmp_path, name, **job):
    """precis train from a tiny random BART on SOURCES/SUMMARIES (data/dialogs/{train,validation,
    test}.jsonl), logging every step; `job` adds to or overrides its arguments. The output directory."""
    base, data = tmp_path / "base", tmp_path / "data" / "dialogs"
    if not base.exists():
        tokenizer = train_tiny_bpe(base)
        make_bart("narrow-gelu", len(tokenizer)).save_pretrained(base)
        data.mkdir(parents=True)
        for split in ("train", "validation", "test"):
            with open(data / f"{split}.jsonl", "w") as f:
                for s, t in zip(SOURCES, SUMMARIES):
                    f.write(json.dumps({"dialogue": s, "summary": t}) + "\n")
    out = tmp_path / name
    job = dict(model_name_or_path=str(base), train_file=str(data / "train.jsonl"),
               validation_file=str(data / "validation.jsonl"), test_file=str(data / "test.jsonl"),
               output_dir=str(out), do_train=True, per_device_train_batch_size=2, learning_rate=1e-3,
               logging_steps=1, save_strategy="no", seed=7, max_source_length=32, max_target_length=16, **job)
    (tmp_path / f"{name}.json").write_text(json.dumps(job))
    run_precis("train", "--config", tmp_path / f"{name}.json")
    return out


def test_card_of_a_real_training_run(tmp_path):
    """precis train (2 steps, evaluation at each, prediction) then precis card."""
    out = training_run(tmp_path, "run", do_eval=True, do_predict=True, predict_with_generate=True,
                       generation_max_length=8, eval_strategy="steps", eval_steps=1, max_steps=2)
    text = card(out)
    meta, body = front_matter(text)
    eval_results = json.loads((out / "eval_results.json").read_text())
    predict_results = json.loads((out / "predict_results.json").read_text())
    assert meta["datasets"] == ["dialogs"] and "base_model" not in meta  # a local checkpoint is no Hub id
    check_model_index(meta, "run", {"validation": ("dialogs", eval_results, "eval"),
                                    "test": ("dialogs", predict_results, "predict")})
    hub = hub_checked_card(out / "README.md")
    assert {(e.dataset_split, e.metric_name): e.metric_value for e in hub.data.eval_results} == {
        **{("validation", k): v for k, (_, v) in expected_metrics(eval_results, "eval").items()},
        **{("test", k): v for k, (_, v) in expected_metrics(predict_results, "predict").items()}}
    assert "| Training Loss | Epoch | Step | Validation Loss | Rouge1 |" in body
    ET.fromstring((out / "loss_curve.svg").read_bytes())
    assert card(out) == text
    # The widget's example is the run's own data: the test file's first record (the tutorial's
    # card carries one of its dialogues).
    assert meta["widget"] == [{"text": SOURCES[0]}]
    # Named as Trainer.push_to_hub names it: hub_model_id's last part, else output_dir's name.
    args = json.loads((out / "training_args.json").read_text())
    args["hub_model_id"] = "someone/dialog-summarizer"
    (out / "training_args.json").write_text(json.dumps(args))
    meta, body = front_matter(card(out))
    assert meta["model-index"][0]["name"] == "dialog-summarizer"
    assert 'pipeline("summarization", model="dialog-summarizer")' in body


def test_results_table_with_evaluation_has_hfs_rows(tmp_path):
    """A precis run evaluating every 2 steps: its card's results table has the rows
    Trainer.create_model_card writes for the same trainer_state.json log history (one per
    evaluation, the training loss logged before it), cell for cell. The columns are the same but
    not in the same order: HF takes them from the log entry's keys, which trainer_state.json
    sorts (Gen Len first); precis keeps the order Trainer logs them in (Validation Loss first,
    Gen Len last), the card of a run HF just trained (test_matches_trainer_create_model_card)."""
    out = training_run(tmp_path, "run", do_eval=True, predict_with_generate=True, generation_max_length=8,
                       eval_strategy="steps", eval_steps=2, max_steps=6)
    log_history = json.loads((out / "trainer_state.json").read_text())["log_history"]
    _, hf_header, hf_rows = results_table(hf_model_card(tmp_path / "hf", log_history))
    _, header, rows = results_table(card(out))
    assert len(hf_rows) == 3
    assert sorted(header) == sorted(hf_header)
    assert table_records(header, rows) == table_records(hf_header, hf_rows)
    # The demo's log with an evaluation every 200 steps: all 25 of HF's rows, none left out for
    # being more than the 20 a table without evaluation shows.
    (out / "trainer_state.json").write_text(json.dumps({"global_step": 5000, "log_history": (
        regular_log_history(25, 5000, evaluate_every=200))}, indent=2, sort_keys=True))
    log_history = json.loads((out / "trainer_state.json").read_text())["log_history"]
    _, hf_header, hf_rows = results_table(hf_model_card(tmp_path / "hf2", log_history))
    _, header, rows = results_table(card(out))
    assert len(hf_rows) == 25
    assert table_records(header, rows) == table_records(hf_header, hf_rows)


def test_results_table_without_evaluation(tmp_path):
    """Without evaluation HF's card has a "Training results" heading and no row. precis's table
    shows at most 20 of the logged training losses, at evenly spaced steps from the start and
    ending at the last, exactly as HF's make_markdown_table writes those log entries. For a run
    logging every step (45 losses) and for the demo's log (every 25 steps, 200 losses)."""
    from transformers.modelcard import make_markdown_table

    out = training_run(tmp_path, "run", max_steps=45)
    demo = {"global_step": 5000, "log_history": regular_log_history(25, 5000)}
    for name, state in (("precis train's", None), ("the demo's", demo)):
        if state:
            (out / "trainer_state.json").write_text(json.dumps(state, indent=2, sort_keys=True))
        log_history = json.loads((out / "trainer_state.json").read_text())["log_history"]
        hf = hf_model_card(tmp_path / f"hf-{len(log_history)}", log_history)
        assert results_table(hf) is None  # the heading, no table
        losses = logged_losses(log_history)
        assert len(losses) in (45, 200), name
        table, header, rows = results_table(card(out))
        steps = [int(row[2]) for row in rows]
        assert 10 <= len(rows) <= 20, (name, steps)
        assert steps[-1] == losses[-1]["step"], name
        gaps = {b - a for a, b in zip(steps, steps[1:])}
        assert len(gaps) == 1 and steps[0] <= min(gaps), (name, steps)
        shown = [e for e in losses if e["step"] in steps]
        assert table == make_markdown_table(
            [{"Training Loss": e["loss"], "Epoch": e["epoch"], "Step": e["step"]} for e in shown]), name


def broken(index, path, change):
    """A copy of model-index with `change` applied at `path` (keys and list positions)."""
    index = copy.deepcopy(index)
    node = index
    for key in path[:-1]:
        node = node[key]
    change(node, path[-1])
    return index


# How huggingface_hub's ModelCard.load refuses a model-index it cannot parse into EvalResults.
UNPARSABLE = re.escape("Invalid `model_index` in metadata cannot be parsed: ")
WRITTEN_BACK_OTHERWISE = "the card data the Hub writes back is other metadata"


def test_hub_checks_refuse_broken_model_indexes(tmp_path):
    """The checks hub_checked_card makes can fail: each broken variant of a precis card's
    model-index is refused, by the check named with it (the exception and its message); the
    card itself passes."""
    d = hand_made_dir(tmp_path)
    text = card(d)
    meta, body = front_matter(text)
    hub_checked_card(d / "README.md")
    index = meta["model-index"]
    first = [0, "results", 0]
    drop = lambda node, key: node.pop(key)  # noqa: E731
    # name: (model-index, exception, message pattern)
    variants = {
        "metric without value": (broken(index, first + ["metrics", 0, "value"], drop),
                                 ValueError, UNPARSABLE + "<class 'KeyError'> 'value'"),
        "metric without type": (broken(index, first + ["metrics", 1, "type"], drop),
                                ValueError, UNPARSABLE + "<class 'KeyError'> 'type'"),
        "dataset without type": (broken(index, first + ["dataset", "type"], drop),
                                 ValueError, UNPARSABLE + "<class 'KeyError'> 'type'"),
        "task without type": (broken(index, first + ["task", "type"], drop),
                              ValueError, UNPARSABLE + "<class 'KeyError'> 'type'"),
        "results not a list": (broken(index, [0, "results"], lambda n, k: n.__setitem__(k, n[k][0])),
                               ValueError, UNPARSABLE + "<class 'TypeError'> string indices"),
        "no name": (broken(index, [0, "name"], drop), ValueError, UNPARSABLE + "<class 'KeyError'> 'name'"),
        "source without url": (broken(index, first + ["source"], lambda n, k: n.__setitem__(k, {"name": "x"})),
                               ValueError, re.escape("If `source_name` is provided, `source_url` must also be provided")),
        # Two results for one (task, dataset, split), or a split without metrics: ModelCard.load
        # parses them, but the Hub merges or drops them when it writes the card back.
        "a split twice": (broken(index, [0, "results", 1, "dataset", "split"],
                                 lambda n, k: n.__setitem__(k, "validation")),
                          AssertionError, WRITTEN_BACK_OTHERWISE),
        "metrics of a split dropped": (broken(index, [0, "results", 1, "metrics"], lambda n, k: n.__setitem__(k, [])),
                                       AssertionError, WRITTEN_BACK_OTHERWISE),
    }
    for name, (bad, exception, message) in variants.items():
        readme = tmp_path / name.replace(" ", "_") / "README.md"
        readme.parent.mkdir()
        readme.write_text("---\n" + yaml.safe_dump({**meta, "model-index": bad}, sort_keys=False) + "---\n" + body)
        with pytest.raises(exception, match=message):
            hub_checked_card(readme)
    for name, content, exception, message in [
            ("front matter not a mapping", "---\n- a\n- b\n---\n# x\n", ValueError,
             "repo card metadata block should be a dict"),  # metadata_load
            ("no front matter", "# x\n", AssertionError, "no front matter the Hub finds")]:
        readme = tmp_path / name.replace(" ", "_") / "README.md"
        readme.parent.mkdir()
        readme.write_text(content)
        with pytest.raises(exception, match=message):
            hub_checked_card(readme)
