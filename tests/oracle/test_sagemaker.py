"""precis inside a SageMaker training job on one host, the service faked by an /opt/ml tree
(sagemaker_support.py): `precis train` with no options reads hyperparameters.json in both
estimator encodings and the channels, writes the model where SageMaker tars it, checkpoints
where it syncs them, the job summary and TensorBoard where it uploads them; a SIGTERM saves
and a restart resumes bit-identically; an error writes output/failure."""
import json
import signal
import subprocess
import time

import pytest
import torch
from safetensors.torch import load_file

from conftest import precis_binary
from process_support import wait_stopped
from sagemaker_support import TINY, TUTORIAL, config_file_job, make_host, sagemaker_env, run_train
from train_support import make_job


@pytest.mark.parametrize("encoding", ["json", "str"])
def test_tutorial_hyperparameters_in_both_encodings_equal_the_config_file_job(tmp_path, encoding):
    make_job(tmp_path)
    base = make_host(tmp_path / encoding, tmp_path, dict(TUTORIAL, **TINY, save_steps=3), encoding=encoding)
    r = run_train(base)
    assert r.returncode == 0, r.stderr
    assert "the model channel stands in for model_name_or_path \"facebook/bart-large-cnn\"" in r.stderr
    assert "the train channel stands in for dataset_name \"samsum\"" in r.stderr

    plain = subprocess.run([precis_binary(), "train", "--config", config_file_job(tmp_path, tmp_path / "plain", save_steps=3)],
                           capture_output=True, text=True, timeout=600)
    assert plain.returncode == 0, plain.stderr
    model, reference = base / "model", tmp_path / "plain"
    ours, theirs = load_file(str(model / "model.safetensors")), load_file(str(reference / "model.safetensors"))
    assert ours.keys() == theirs.keys() and all(torch.equal(ours[k], theirs[k]) for k in ours)
    # The same run: every step's loss, and the predictions of the test channel.
    log = [json.loads(l) for l in (model / "train_log.jsonl").read_text().splitlines()]
    assert [(s["step"], s["loss"]) for s in log] == \
        [(s["step"], s["loss"]) for s in map(json.loads, (reference / "train_log.jsonl").read_text().splitlines())]
    assert len(log) == 6  # 3 epochs of 2 steps: num_train_epochs came through as a number
    assert (model / "generated_predictions.txt").read_text() == (reference / "generated_predictions.txt").read_text()
    # Checkpoints in the synced folder, not in the model folder SageMaker tars.
    assert not [p for p in model.iterdir() if p.name.startswith("checkpoint-")]
    assert sorted(p.name for p in (base / "checkpoints").iterdir()) == ["checkpoint-3", "checkpoint-6"]
    # The job summary and TensorBoard's events where SageMaker uploads output/data.
    summary = json.loads((base / "output" / "data" / "job_summary.json").read_text())
    assert summary["world_size"] == 1
    assert list((base / "output" / "data" / "tensorboard").glob("events.out.tfevents.*"))
    assert not (base / "output" / "failure").exists()


def test_command_line_over_hyperparameters_over_config_hyperparameter(tmp_path):
    make_job(tmp_path)
    hyperparameters = dict(TUTORIAL, **TINY, do_eval=False, do_predict=False, config="settings/job.json")
    base = make_host(tmp_path, tmp_path, hyperparameters, encoding="json")
    # A `config` hyperparameter names a file in a channel; the hyperparameters override it, and
    # the command line overrides both.
    settings = base / "input" / "data" / "settings"
    settings.mkdir()
    (settings / "job.json").write_text(json.dumps({"max_steps": 2, "seed": 1, "warmup_steps": 1}))
    r = run_train(base, "--max_steps", "3")
    assert r.returncode == 0, r.stderr
    args = json.loads((base / "model" / "training_args.json").read_text())
    assert (args["max_steps"], args["seed"], args["warmup_steps"]) == (3, 7, 1)


def test_pipe_mode_and_bad_files_are_refused_by_name(tmp_path):
    make_job(tmp_path)
    base = make_host(tmp_path, tmp_path, dict(TUTORIAL, **TINY))
    config = base / "input" / "config" / "inputdataconfig.json"
    config.write_text(json.dumps({"train": {"TrainingInputMode": "Pipe"}}))
    r = run_train(base)
    assert r.returncode != 0
    assert "inputdataconfig.json: channel \"train\" is in Pipe mode" in r.stderr, r.stderr
    assert "Pipe mode" in (base / "output" / "failure").read_text()
    config.unlink()
    (base / "output" / "failure").unlink()
    (base / "input" / "config" / "resourceconfig.json").write_text(json.dumps({"current_host": "algo-1", "hosts": "algo-1"}))
    r = run_train(base)
    assert r.returncode != 0 and "resourceconfig.json: expected \"hosts\" to be a non-empty list" in r.stderr, r.stderr


def test_an_error_writes_the_failure_file_once(tmp_path):
    make_job(tmp_path)
    base = make_host(tmp_path, tmp_path, dict(TUTORIAL, **dict(TINY, learning_rate="fast")))
    r = run_train(base)
    assert r.returncode != 0
    failure = (base / "output" / "failure").read_text()
    assert failure.startswith("algo-1, rank 0: ") and "learning_rate" in failure, failure
    assert len(failure.encode()) <= 1024


def test_sigterm_saves_in_the_checkpoint_folder_and_the_restart_resumes_bit_identically(tmp_path):
    make_job(tmp_path, dropout=0.1)
    hyperparameters = dict(TUTORIAL, **TINY, do_eval=False, do_predict=False, save_strategy="no")
    straight = make_host(tmp_path / "straight", tmp_path, hyperparameters)
    assert run_train(straight).returncode == 0
    base = make_host(tmp_path / "spot", tmp_path, hyperparameters)
    err = tmp_path / "stderr.txt"
    with open(err, "w") as f:
        proc = subprocess.Popen([precis_binary(), "train"], stderr=f, stdout=subprocess.DEVNULL,
                                env=sagemaker_env(base, PRECIS_TEST_STOP_AT="micro:2:0"))
    wait_stopped(proc, "micro:2:0", stderr_file=err)
    start = time.monotonic()
    proc.send_signal(signal.SIGTERM)  # SageMaker's stop; SIGKILL would follow 120 s later
    proc.send_signal(signal.SIGCONT)
    assert proc.wait(timeout=120) == 0, err.read_text()
    print(f"SIGTERM to exit: {time.monotonic() - start:.1f} s")
    assert [p.name for p in (base / "checkpoints").iterdir()] == ["checkpoint-3"]
    assert not (base / "model" / "model.safetensors").exists()
    # A spot restart: a fresh container, the checkpoint folder restored from S3.
    r = run_train(base)
    assert r.returncode == 0 and f"resuming from {base / 'checkpoints' / 'checkpoint-3'}" in r.stderr, r.stderr
    a, b = (load_file(str(d / "model" / "model.safetensors")) for d in (straight, base))
    assert all(torch.equal(a[k], b[k]) for k in a)
