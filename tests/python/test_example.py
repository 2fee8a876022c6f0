"""The tutorial examples/summarization.py run end to end as a script on the tests' tiny job
(train_support's BART and dialogues, 2 steps): it trains, evaluates, summarizes and writes the
model card, with its paths from the environment as CI passes them."""
import json
import os
import pathlib
import subprocess
import sys

from conftest import PACKAGE_PARENT, SOURCE_DIR
from train_support import make_job


def test_tutorial_runs_end_to_end(tmp_path):
    make_job(tmp_path)
    out = tmp_path / "out"
    env = dict(os.environ, PRECIS_EXAMPLE_MODEL=str(tmp_path / "base"),
               PRECIS_EXAMPLE_TRAIN_FILE=str(tmp_path / "train.jsonl"),
               PRECIS_EXAMPLE_VALIDATION_FILE=str(tmp_path / "train.jsonl"), PRECIS_EXAMPLE_OUTPUT_DIR=str(out),
               PRECIS_EXAMPLE_MAX_STEPS="2",
               PYTHONPATH=os.pathsep.join(filter(None, [PACKAGE_PARENT, os.environ.get("PYTHONPATH")])))
    r = subprocess.run([sys.executable, str(pathlib.Path(SOURCE_DIR) / "examples" / "summarization.py")],
                       capture_output=True, text=True, env=env, cwd=tmp_path, timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2 steps; training loss" in r.stdout
    metrics = json.loads((out / "eval_results.json").read_text())
    assert {"eval_loss", "eval_rouge1", "eval_rougeLsum"} <= set(metrics)
    assert "'rouge1':" in r.stdout  # precis.rouge's dict printed
    assert (out / "README.md").read_text().startswith("---\n")
    assert (out / "model.safetensors").exists()
