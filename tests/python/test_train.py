"""precis.train against `precis train` and transformers' Seq2SeqTrainer on train_support's tiny
BART job: a transformers.Seq2SeqTrainingArguments object (read through to_dict()) gives the
CLI's weights bit for bit and Seq2SeqTrainer's within BART_WEIGHT_LIMIT (2e-6, under the
issue's 1e-5) after 3 steps; the log callback sees every entry; the GIL is free while it
trains; and a Ctrl-C stops it at a step's end with a complete checkpoint, the interpreter alive."""
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest
import torch
from safetensors.torch import load_file
from transformers import Seq2SeqTrainingArguments

import precis
from conftest import PACKAGE_PARENT
from train_support import (BART_NOT_SAVED, BART_WEIGHT_LIMIT, MAX_SOURCE_LENGTH, MAX_TARGET_LENGTH, compare_weights,
                           hf_train, make_job, precis_train)

HF_ARGS = dict(per_device_train_batch_size=6, learning_rate=1e-3, weight_decay=0.01, warmup_steps=1, max_grad_norm=1.0,
               max_steps=3, logging_steps=1, save_strategy="no", report_to=[], use_cpu=True, seed=7,
               optim="adamw_torch")


def job_files(tmp_path):
    return dict(model_name_or_path=str(tmp_path / "base"), train_file=str(tmp_path / "train.jsonl"),
                max_source_length=MAX_SOURCE_LENGTH, max_target_length=MAX_TARGET_LENGTH)


def test_train_with_transformers_arguments_equals_cli_and_seq2seqtrainer(tmp_path):
    model, tokenizer, records = make_job(tmp_path)
    initial = {k: v.clone() for k, v in model.state_dict().items()}
    ref, _, _ = hf_train(model, tokenizer, records, tmp_path, **HF_ARGS)
    cli, _, _, _ = precis_train(tmp_path, tmp_path / "cli")

    entries = []
    args = Seq2SeqTrainingArguments(output_dir=str(tmp_path / "py"), **HF_ARGS)
    out = precis.train(args, callback=entries.append, progress=False, **job_files(tmp_path))
    ours = load_file(str(tmp_path / "py" / "model.safetensors"))

    assert set(ours) == set(cli) and all(torch.equal(ours[k], cli[k]) for k in ours)
    assert compare_weights(ours, ref, BART_NOT_SAVED, BART_WEIGHT_LIMIT) > 0
    assert any((ours[k] - initial[k]).abs().max() > 1e-4 for k in ours)  # it trained
    # TrainOutput as trainer.train() returns it; the callback got the log history's entries.
    assert out.global_step == 3 and out.training_loss == out.metrics["train_loss"]
    assert {"train_runtime", "train_samples_per_second", "train_steps_per_second", "epoch"} <= set(out.metrics)
    history = json.loads((tmp_path / "py" / "trainer_state.json").read_text())["log_history"]
    assert entries == history
    assert len(entries) == 4 and [e["step"] for e in entries] == [1, 2, 3, 3] and "train_runtime" in entries[3]


def test_precis_arguments_take_the_cli_names_and_messages(tmp_path):
    args = precis.Seq2SeqTrainingArguments(output_dir=str(tmp_path), learning_rate="5e-5", max_steps=3,
                                           save_on_interrupt=True, eval_strategy="steps", eval_steps=2,
                                           validation_file=str(tmp_path / "validation.jsonl"))
    assert args.learning_rate == 5e-5 and args.save_on_interrupt and args.do_eval
    assert args.to_dict()["max_steps"] == 3
    # As HF's, the arguments need name no data: the files eval_strategy and do_predict ask for
    # come with precis.train.
    bare = precis.Seq2SeqTrainingArguments(output_dir=str(tmp_path), eval_strategy="epoch", do_predict=True)
    assert bare.do_eval and bare.do_predict and bare.validation_file is None and bare.test_file is None
    with pytest.raises(precis.Error, match='unknown option "lerning_rate" \\(did you mean "learning_rate"\\?\\)'):
        precis.Seq2SeqTrainingArguments(output_dir=str(tmp_path), lerning_rate=1e-3)
    with pytest.raises(ValueError, match="learning_rate"):
        precis.Seq2SeqTrainingArguments(output_dir=str(tmp_path), learning_rate="fast")
    with pytest.raises(precis.Error):
        precis.train(output_dir=str(tmp_path / "x"), model_name_or_path=str(tmp_path / "missing"),
                     train_file=str(tmp_path / "missing.jsonl"), progress=False)


def test_gil_is_released_while_training(tmp_path):
    """The main thread keeps running while another trains: its longest wait is a small part of
    the run (held, it would wait for the whole run, no Python running in it until the end)."""
    make_job(tmp_path)
    done = threading.Event()
    result = []

    def run():
        try:
            result.append(precis.train(output_dir=str(tmp_path / "out"), progress=False,
                                       **{**HF_ARGS, "max_steps": 60, "logging_steps": 1000, "report_to": "none"},
                                       **job_files(tmp_path)))
        finally:
            done.set()

    thread = threading.Thread(target=run)
    start = last = time.perf_counter()
    longest = 0.0
    thread.start()
    while not done.is_set():
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
    duration = time.perf_counter() - start
    thread.join()
    assert result and result[0].global_step == 60
    assert longest < 0.3 * duration, (longest, duration)


SCRIPT = """
import json, os, signal, sys
sys.path.insert(0, {package!r}) if {package!r} else None
import precis
settings = json.loads({settings!r})
def log(entry):
    print("step", entry.get("step"), flush=True)
try:
    precis.train(callback=log, progress=False, **settings)
    print("finished", flush=True)
except KeyboardInterrupt as e:
    print("KeyboardInterrupt", e, flush=True)
# The interpreter lives on, with Python's own Ctrl-C back.
assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
try:
    os.kill(os.getpid(), signal.SIGINT)
    for _ in range(10**6):
        pass
    print("no second KeyboardInterrupt", flush=True)
except KeyboardInterrupt:
    print("second KeyboardInterrupt", flush=True)
print("alive", flush=True)
"""


def test_keyboard_interrupt_saves_a_checkpoint_and_the_interpreter_survives(tmp_path):
    make_job(tmp_path)
    out = tmp_path / "out"
    settings = dict(output_dir=str(out), **{**HF_ARGS, "max_steps": 100000, "save_strategy": "no",
                                            "report_to": "none"}, **job_files(tmp_path))
    script = SCRIPT.format(package=PACKAGE_PARENT, settings=json.dumps(settings))
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(script)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    first = child.stdout.readline()
    assert first.startswith("step"), first + child.stderr.read()
    child.send_signal(signal.SIGINT)
    stdout, stderr = child.communicate(timeout=300)
    assert child.returncode == 0, stderr
    lines = stdout.splitlines()
    assert any(l.startswith("KeyboardInterrupt precis.train stopped") for l in lines), stdout + stderr
    assert lines[-2:] == ["second KeyboardInterrupt", "alive"], stdout
    checkpoints = sorted(out.glob("checkpoint-*"))
    assert len(checkpoints) == 1, stderr
    saved = {p.name for p in checkpoints[0].iterdir()}
    assert {"model.safetensors", "optimizer.safetensors", "trainer_state.json", "config.json",
            "training_args.json"} <= saved, saved
    state = json.loads((checkpoints[0] / "trainer_state.json").read_text())
    assert state["global_step"] == int(checkpoints[0].name.split("-")[1]) >= 1
