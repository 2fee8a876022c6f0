"""What a run does when the world fails it: the disk fills while a checkpoint is written,
SIGTERM arrives (with --save_on_interrupt), the latest checkpoint is corrupt, an
evaluation rank dies or hangs. Each time: a clear message, no hang, and the last good
checkpoint loadable, so the same command run again finishes the job. A kill -9 in the
middle of a step or of a checkpoint write, followed by the same command, ends bit-identical
to a run never stopped.

The run is stopped at an exact point by PRECIS_TEST_STOP_AT (a test hook of the trainer,
src/precis/train/test_stop.h: the process stops itself with SIGSTOP there), then killed or
signalled: no sleep has to land inside a window."""
import json
import os
import resource
import signal
import subprocess
import time

import pytest
import torch
from safetensors.torch import load_file

from process_support import ENV, MPIRUN, launch, wait_stopped
from train_support import make_job, weights


def write_job(tmp_path, out, **overrides):
    job = dict(model_name_or_path=str(tmp_path / "base"), train_file=str(tmp_path / "train.jsonl"),
               output_dir=str(out), do_train=True, learning_rate=1e-3, warmup_steps=1, max_steps=4,
               logging_steps=1, save_strategy="steps", save_steps=2, seed=7, per_device_train_batch_size=2,
               max_source_length=64, max_target_length=32, report_to="none")
    job.update(overrides)
    config = tmp_path / f"job-{out.name}-{len(list(tmp_path.glob('job-*')))}.json"
    config.write_text(json.dumps(job))
    return config


def run_job(config, preexec_fn=None):
    return subprocess.run(launch(1, "train", "--config", config), capture_output=True, text=True, env=ENV,
                          timeout=300, preexec_fn=preexec_fn)


def same_weights(a, b):
    wa, wb = weights(a), weights(b)
    return wa.keys() == wb.keys() and all(torch.equal(wa[k], wb[k]) for k in wa)


def test_full_disk_while_checkpointing_keeps_the_last_checkpoint(tmp_path):
    make_job(tmp_path, dropout=0.1)
    straight = run_job(write_job(tmp_path, tmp_path / "straight"))
    assert straight.returncode == 0, straight.stderr
    out = tmp_path / "out"
    first = run_job(write_job(tmp_path, out, max_steps=2))
    assert first.returncode == 0, first.stderr
    # The resumed run may not write a file larger than half the model: checkpoint-4's weights
    # fail part-way, as on a full disk (EFBIG and ENOSPC reach the same write() check).
    limit = (out / "checkpoint-2" / "model.safetensors").stat().st_size // 2

    def small_disk():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails instead of killing
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    full = run_job(write_job(tmp_path, out), preexec_fn=small_disk)
    assert full.returncode != 0
    assert "cannot save" in full.stderr and "checkpoint-4" in full.stderr, full.stderr
    assert "the last complete checkpoint" in full.stderr and "checkpoint-2, is intact" in full.stderr, full.stderr
    assert not (out / "checkpoint-4").exists()
    assert not [p for p in out.iterdir() if ".tmp-" in p.name], list(out.iterdir())  # staging cleaned up
    assert load_file(str(out / "checkpoint-2" / "model.safetensors"))
    # With room again, the same command resumes from checkpoint-2 and ends as the straight run.
    again = run_job(write_job(tmp_path, out))
    assert again.returncode == 0 and "resuming from" in again.stderr and "checkpoint-2" in again.stderr, again.stderr
    assert same_weights(tmp_path / "straight", out)


def start_stopped_at(config, point, tmp_path):
    """`precis train` stopped by the test hook at `point`; returns (Popen, stderr file) once it
    has stopped there. Fails if it ends first."""
    err = tmp_path / f"stderr-{point.replace(':', '-')}-{len(list(tmp_path.glob('stderr-*')))}.txt"
    with open(err, "w") as f:
        proc = subprocess.Popen(launch(1, "train", "--config", config), stdout=subprocess.DEVNULL, stderr=f,
                                env=dict(ENV, PRECIS_TEST_STOP_AT=point))
    wait_stopped(proc, point, stderr_file=err)
    return proc, err


def log_lines(out):
    """train_log.jsonl by step: the last line for each (a resumed run logs redone steps again)."""
    return {e["step"]: e for e in map(json.loads, (out / "train_log.jsonl").read_text().splitlines())}


@pytest.fixture(scope="module")
def accumulation_job(tmp_path_factory):
    """Dropout on, two micro-batches of one example per step (3 steps per epoch), a checkpoint
    every 2 steps; and the run of it never stopped."""
    tmp_path = tmp_path_factory.mktemp("kill9")
    make_job(tmp_path, dropout=0.1)
    job = dict(max_steps=6, per_device_train_batch_size=1, gradient_accumulation_steps=2, save_steps=2)
    straight = run_job(write_job(tmp_path, tmp_path / "straight", **job))
    assert straight.returncode == 0, straight.stderr
    return tmp_path, job


@pytest.mark.parametrize("point,resumes_from", [
    ("micro:3:0", "checkpoint-2"),  # between the two micro-batches of step 4
    ("save:4", "checkpoint-2"),     # checkpoint-4 half written
])
def test_kill_9_then_the_same_command_equals_a_run_never_stopped(accumulation_job, point, resumes_from):
    tmp_path, job = accumulation_job
    straight, out = tmp_path / "straight", tmp_path / f"killed-{point.replace(':', '-')}"
    config = write_job(tmp_path, out, **job)
    proc, _ = start_stopped_at(config, point, tmp_path)
    os.kill(proc.pid, signal.SIGKILL)
    assert proc.wait(timeout=60) == -signal.SIGKILL
    saved = sorted(p.name for p in out.iterdir() if p.name.startswith("checkpoint-"))
    if point.startswith("save"):
        assert saved[:1] == ["checkpoint-2"] and saved[1].startswith("checkpoint-4.tmp-") and len(saved) == 2, saved
    else:
        assert saved == ["checkpoint-2"], saved
    again = run_job(config)
    assert again.returncode == 0 and f"resuming from {out / resumes_from}" in again.stderr, again.stderr
    assert not [p for p in out.iterdir() if ".tmp-" in p.name]
    # Bit-identical: weights, the optimizer's moments, every step's loss and gradient norm.
    assert same_weights(straight, out)
    a, b = (load_file(str(d / "checkpoint-6" / "optimizer.safetensors")) for d in (straight, out))
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    assert json.loads((out / "checkpoint-6" / "trainer_state.json").read_text()) == \
        json.loads((straight / "checkpoint-6" / "trainer_state.json").read_text())
    history = [[(e["step"], e["loss"], e["grad_norm"]) for e in json.loads((d / "trainer_state.json").read_text())
                ["log_history"] if "loss" in e] for d in (straight, out)]
    assert history[0] == history[1] and len(history[0]) == 6
    ours, theirs = log_lines(out), log_lines(straight)
    assert sorted(ours) == list(range(1, 7))
    assert all((ours[k]["loss"], ours[k]["grad_norm"]) == (theirs[k]["loss"], theirs[k]["grad_norm"]) for k in ours)


def test_sigterm_with_save_on_interrupt_saves_and_exits_cleanly(tmp_path):
    make_job(tmp_path, dropout=0.1)
    straight = run_job(write_job(tmp_path, tmp_path / "straight", max_steps=6, save_strategy="no"))
    assert straight.returncode == 0, straight.stderr
    out = tmp_path / "out"
    config = write_job(tmp_path, out, max_steps=6, save_strategy="no", save_on_interrupt=True)
    # SIGTERM arrives in the middle of step 3 (queued while the run is stopped there).
    proc, err = start_stopped_at(config, "micro:2:0", tmp_path)
    proc.send_signal(signal.SIGTERM)
    proc.send_signal(signal.SIGCONT)
    assert proc.wait(timeout=60) == 0, err.read_text()
    stderr = err.read_text()
    saved = [p for p in out.iterdir() if p.name.startswith("checkpoint-")]
    assert [p.name for p in saved] == ["checkpoint-3"], stderr  # step 3 finished, then saved
    assert "SIGTERM: stopped at step 3 and saved" in stderr, stderr
    assert json.loads((saved[0] / "trainer_state.json").read_text())["global_step"] == 3
    assert not (out / "model.safetensors").exists()  # the run did not finish
    # The same command resumes and ends exactly as the uninterrupted run.
    again = run_job(config)
    assert again.returncode == 0 and "resuming from" in again.stderr, again.stderr
    assert same_weights(tmp_path / "straight", out)


def test_sigterm_without_the_option_kills_and_leaves_checkpoints_whole(tmp_path):
    make_job(tmp_path)
    out = tmp_path / "out"
    config = write_job(tmp_path, out, max_steps=6, save_steps=1)
    # SIGTERM in the middle of writing checkpoint-4.
    proc, _ = start_stopped_at(config, "save:4", tmp_path)
    proc.send_signal(signal.SIGTERM)
    proc.send_signal(signal.SIGCONT)
    assert proc.wait(timeout=60) == -signal.SIGTERM
    # A staging folder, never a half checkpoint-4; the earlier ones whole.
    names = sorted(p.name for p in out.iterdir() if p.name.startswith("checkpoint-"))
    assert names[:3] == ["checkpoint-1", "checkpoint-2", "checkpoint-3"] and len(names) == 4, names
    assert names[3].startswith("checkpoint-4.tmp-"), names
    for checkpoint in names[:3]:
        assert load_file(str(out / checkpoint / "model.safetensors")) and (out / checkpoint / "trainer_state.json").exists()
    # The rerun resumes from the last one and clears the staging folder away.
    again = run_job(config)
    assert again.returncode == 0 and f"resuming from {out / 'checkpoint-3'}" in again.stderr, again.stderr
    assert not [p for p in out.iterdir() if ".tmp-" in p.name]


@pytest.mark.parametrize("damage", ["truncated-weights", "garbage-trainer-state", "truncated-optimizer"])
def test_corrupt_latest_checkpoint_falls_back_to_the_previous(tmp_path, damage):
    make_job(tmp_path, dropout=0.1)
    straight = run_job(write_job(tmp_path, tmp_path / "straight", max_steps=6))
    assert straight.returncode == 0, straight.stderr
    out = tmp_path / "out"
    assert run_job(write_job(tmp_path, out)).returncode == 0
    latest = out / "checkpoint-4"
    if damage == "truncated-weights":
        path = latest / "model.safetensors"
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    elif damage == "truncated-optimizer":
        path = latest / "optimizer.safetensors"
        path.write_bytes(path.read_bytes()[: path.stat().st_size - 100])
    else:
        (latest / "trainer_state.json").write_text('{"global_step": 4, "log_hist')
    # Named explicitly, the corrupt checkpoint is an error that names it.
    named = run_job(write_job(tmp_path, out, max_steps=6, resume_from_checkpoint=str(latest)))
    assert named.returncode != 0 and "checkpoint-4" in named.stderr, named.stderr
    # Found in output_dir, it is skipped with a warning and the run resumes from checkpoint-2.
    found = run_job(write_job(tmp_path, out, max_steps=6))
    assert found.returncode == 0, found.stderr
    assert "warning: cannot resume from" in found.stderr and "resuming from the older checkpoint-2" in found.stderr
    steps = [json.loads(line)["step"] for line in (out / "train_log.jsonl").read_text().splitlines()]
    assert steps[-4:] == [3, 4, 5, 6]
    assert same_weights(tmp_path / "straight", out)


@pytest.mark.skipif(MPIRUN is None, reason="mpirun (openmpi-bin) is not installed")
@pytest.mark.parametrize("failure", ["killed", "stopped"])
def test_evaluation_rank_failure_ends_the_job(tmp_path, failure):
    """Rank 1 dies (SIGKILL) or hangs (SIGSTOP) while the ranks evaluate: rank 0 does not wait
    forever; the job ends with a message within the timeout. Rank 1 stops itself inside the
    evaluation (the test hook, after its loss and before it generates); "killed" then kills it."""
    make_job(tmp_path)
    out = tmp_path / "out"
    config = write_job(tmp_path, out, max_steps=2, save_strategy="no", do_eval=True,
                       validation_file=str(tmp_path / "train.jsonl"), per_device_eval_batch_size=2,
                       predict_with_generate=True, generation_num_beams=2, generation_max_length=16,
                       ddp_timeout=5)
    proc = subprocess.Popen(launch(2, "train", "--config", config, export=["PRECIS_TEST_STOP_AT"]),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(ENV, PRECIS_TEST_STOP_AT="evaluate:1"))
    pid = wait_stopped(proc, "rank 1's evaluation", ranks=[1])[1]
    if failure == "killed":
        os.kill(pid, signal.SIGKILL)
    failed_at = time.monotonic()
    # The job ends once rank 0 has finished its share of the evaluation and waited --ddp_timeout
    # for rank 1: about 5 s in a release build. Under AddressSanitizer (with full unwinding
    # for Open MPI) that share alone takes tens of seconds on a loaded machine.
    limit = 240 if os.environ.get("PRECIS_SANITIZER") else 60
    try:
        _, stderr = proc.communicate(timeout=limit)
    finally:
        if proc.poll() is None:
            proc.kill()
    print(f"{failure}: job ended {time.monotonic() - failed_at:.1f} s later, exit {proc.returncode}")
    assert proc.returncode != 0 and time.monotonic() - failed_at < limit
    if failure == "stopped":
        assert "did not complete within --ddp_timeout 5 s" in stderr, stderr
    else:
        assert "rank 1" in stderr, stderr
    assert (out / "job_summary.json").exists()  # training had finished: it failed in the evaluation
    assert not (out / "eval_results.json").exists()


def test_dataset_record_longer_than_the_limit_is_refused(tmp_path):
    make_job(tmp_path)
    with open(tmp_path / "train.jsonl", "a") as f:
        f.write(json.dumps({"dialogue": "x" * 5000, "summary": "long"}) + "\n")
    r = run_job(write_job(tmp_path, tmp_path / "out", max_record_bytes=1000))
    assert r.returncode != 0 and "train.jsonl:7: record longer than max_record_bytes (1000 bytes)" in r.stderr, r.stderr
    skipped = run_job(write_job(tmp_path, tmp_path / "out2", max_record_bytes=1000, skip_bad_records=True, max_steps=1))
    assert skipped.returncode == 0 and "1 skipped as malformed" in skipped.stderr, skipped.stderr
