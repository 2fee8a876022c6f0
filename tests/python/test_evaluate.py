"""precis.evaluate against `precis eval` on the same checkpoint and data (the oracle test
test_eval_loss holds the CLI to Seq2SeqTrainer.evaluate()): the same metrics dict, the same
eval_results.json and generated_predictions.txt, and the CLI's messages as precis.Error."""
import json
import shutil

import pytest

import precis
from bart_models import make_bart
from conftest import run_precis, train_tiny_bpe
from test_eval_loss import DIALOGUES

# Trainer's speed metrics: measured, so they differ between any two runs.
SPEED = {"eval_runtime", "eval_samples_per_second", "eval_steps_per_second"}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("evaluate")
    make_bart("narrow-gelu", len(train_tiny_bpe(d / "model"))).save_pretrained(d / "model")
    with open(d / "data.jsonl", "w") as f:
        for text, summary in DIALOGUES:
            f.write(json.dumps({"dialogue": text, "summary": summary}) + "\n")
    return d / "model", d / "data.jsonl"


def without_speed(metrics):
    assert SPEED <= set(metrics) and all(metrics[k] > 0 for k in SPEED)
    return {k: v for k, v in metrics.items() if k not in SPEED}


@pytest.mark.parametrize("generate", [False, True])
def test_metrics_equal_precis_eval(inputs, tmp_path, generate):
    model, data = inputs
    options = dict(per_device_eval_batch_size=3, max_source_length=48, max_target_length=12, source_prefix="x: ",
                   max_eval_samples=7)
    if generate:
        options.update(predict_with_generate=True, num_beams=2, generation_max_length=10, seed=5)
    args = []
    for name, value in options.items():
        args += [f"--{name}"] if value is True else [f"--{name}", value]
    out = run_precis("eval", "--model", model, "--data", data, "--output_dir", tmp_path / "cli", *args)
    cli = json.loads(out.stdout)
    ours = precis.evaluate(model, data, output_dir=tmp_path / "py", **options)
    assert without_speed(ours) == without_speed(cli)
    assert ours["eval_samples"] == 7 and ("eval_rouge1" in ours) == generate
    assert json.loads((tmp_path / "py" / "eval_results.json").read_text()) == ours
    names = ["eval_results.json"] + (["generated_predictions.txt"] if generate else [])
    assert sorted(p.name for p in (tmp_path / "py").iterdir()) == names
    if generate:
        assert ((tmp_path / "py" / "generated_predictions.txt").read_text()
                == (tmp_path / "cli" / "generated_predictions.txt").read_text())


def cli_error(*args):
    r = run_precis("eval", *args, check=False)
    assert r.returncode != 0
    # The error line; a job's log may hold other lines before it (which BLAS core runs).
    return next(line for line in r.stderr.splitlines() if line.startswith("precis: error: ")).removeprefix(
        "precis: error: ")


def test_errors_are_the_commands(inputs, tmp_path):
    model, data = inputs
    with pytest.raises(precis.Error) as e:
        precis.evaluate(model, tmp_path / "missing.jsonl")
    assert str(e.value) == cli_error("--model", model, "--data", tmp_path / "missing.jsonl")
    assert "missing.jsonl" in str(e.value)

    broken = tmp_path / "broken"
    shutil.copytree(model, broken)
    (broken / "config.json").write_text('{"model_type": "bart", "d_model": ')
    with pytest.raises(precis.Error) as e:
        precis.evaluate(broken, data)
    assert str(e.value) == cli_error("--model", broken, "--data", data)
    assert "config.json" in str(e.value)

    # The command line's parser refuses these; from Python the library does.
    with pytest.raises(precis.Error, match="per_device_eval_batch_size must be positive, found 0"):
        precis.evaluate(model, data, per_device_eval_batch_size=0)
    with pytest.raises(precis.Error, match="val_max_target_length must be positive, found -1"):
        precis.evaluate(model, data, val_max_target_length=-1)
    with pytest.raises(TypeError, match="unknown option 'num_beam'"):
        precis.evaluate(model, data, num_beam=2)
