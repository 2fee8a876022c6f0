"""What a run does when the world fails it: the disk fills while a checkpoint is written,
SIGTERM arrives (with --save_on_interrupt), the latest checkpoint is corrupt, an
evaluation rank dies or hangs. Each time: a clear message, no hang, and the last good
checkpoint loadable, so the same command run again finishes the job."""
import json
import os
import resource
import signal
import subprocess
import time

import pytest
import torch
from safetensors.torch import load_file

from conftest import precis_binary
from test_train import make_job
from test_train_distributed import ENV, MPIRUN, launch, rank_pids, train, weights


def write_job(tmp_path, out, **overrides):
    job = dict(model_name_or_path=str(tmp_path / "base"), train_file=str(tmp_path / "train.jsonl"),
               output_dir=str(out), do_train=True, learning_rate=1e-3, warmup_steps=1, max_steps=4,
               logging_steps=1, save_strategy="steps", save_steps=2, seed=7, per_device_train_batch_size=2,
               max_source_length=64, max_target_length=32, report_to="none")
    job.update(overrides)
    config = tmp_path / f"job-{out.name}-{len(list(tmp_path.glob('job-*')))}.json"
    config.write_text(json.dumps(job))
    return config


def run_job(config, preexec_fn=None, env=None):
    return subprocess.run([precis_binary(), "train", "--config", str(config)], capture_output=True, text=True,
                          env=env or ENV, timeout=300, preexec_fn=preexec_fn)


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


def start_slow_run(config):
    env = dict(ENV, PRECIS_STEP_DELAY_MS="150")
    return subprocess.Popen([precis_binary(), "train", "--config", str(config)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


def wait_for_steps(out, proc, steps, timeout=120):
    deadline = time.time() + timeout
    log = out / "train_log.jsonl"
    while not (log.exists() and len(log.read_text().splitlines()) >= steps):
        assert proc.poll() is None and time.time() < deadline, "the run ended early"
        time.sleep(0.05)


def test_sigterm_with_save_on_interrupt_saves_and_exits_cleanly(tmp_path):
    make_job(tmp_path, dropout=0.1)
    straight = run_job(write_job(tmp_path, tmp_path / "straight", max_steps=12, save_strategy="no"))
    assert straight.returncode == 0, straight.stderr
    out = tmp_path / "out"
    config = write_job(tmp_path, out, max_steps=12, save_strategy="no", save_on_interrupt=True)
    proc = start_slow_run(config)
    wait_for_steps(out, proc, 3)
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    saved = [p for p in out.iterdir() if p.name.startswith("checkpoint-")]
    assert len(saved) == 1, stderr
    step = int(saved[0].name.split("-")[1])
    assert 3 <= step < 12 and f"SIGTERM: stopped at step {step} and saved" in stderr, stderr
    assert json.loads((saved[0] / "trainer_state.json").read_text())["global_step"] == step
    assert not (out / "model.safetensors").exists()  # the run did not finish
    # The same command resumes and ends exactly as the uninterrupted run.
    again = run_job(config)
    assert again.returncode == 0 and "resuming from" in again.stderr, again.stderr
    assert same_weights(tmp_path / "straight", out)


def test_sigterm_without_the_option_kills_and_leaves_checkpoints_whole(tmp_path):
    make_job(tmp_path)
    out = tmp_path / "out"
    proc = start_slow_run(write_job(tmp_path, out, max_steps=40, save_steps=1))
    wait_for_steps(out, proc, 4)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGTERM
    # Killed in the middle of a save at worst: a staging folder, never a half checkpoint-N.
    for checkpoint in (p for p in out.iterdir() if p.name.startswith("checkpoint-") and ".tmp-" not in p.name):
        assert load_file(str(checkpoint / "model.safetensors")) and (checkpoint / "trainer_state.json").exists()
    # The rerun resumes from the last one and clears any staging folder away.
    again = run_job(write_job(tmp_path, out, max_steps=40, save_steps=20))
    assert again.returncode == 0 and "resuming from" in again.stderr, again.stderr
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
    forever; the job ends with a message within the timeout."""
    make_job(tmp_path)
    rows = [json.loads(line) for line in (tmp_path / "train.jsonl").read_text().splitlines()]
    with open(tmp_path / "eval.jsonl", "w") as f:
        for _ in range(20):
            for r in rows:
                f.write(json.dumps(r) + "\n")
    out = tmp_path / "out"
    config = write_job(tmp_path, out, max_steps=2, save_strategy="no", do_eval=True,
                       validation_file=str(tmp_path / "eval.jsonl"), per_device_eval_batch_size=2,
                       predict_with_generate=True, generation_num_beams=4, generation_max_length=32,
                       ddp_timeout=5)
    proc = subprocess.Popen(launch(2, "train", "--config", config), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=ENV)
    deadline = time.time() + 120
    while not (out / "job_summary.json").exists():  # rank 0 has trained and saved: evaluation starts
        assert proc.poll() is None and time.time() < deadline, "the run ended before evaluating"
        time.sleep(0.02)
    pids = rank_pids(proc.pid)
    os.kill(pids[1], signal.SIGKILL if failure == "killed" else signal.SIGSTOP)
    failed_at = time.time()
    # The job ends once rank 0 has finished its share of the evaluation and waited --ddp_timeout
    # for rank 1: about 5 s in a release build. Under AddressSanitizer (with full unwinding
    # for Open MPI) that share alone takes tens of seconds on a loaded machine.
    limit = 240 if os.environ.get("PRECIS_SANITIZER") else 60
    try:
        _, stderr = proc.communicate(timeout=limit)
    finally:
        if proc.poll() is None:
            proc.kill()
    print(f"{failure}: job ended {time.time() - failed_at:.1f} s later, exit {proc.returncode}")
    assert proc.returncode != 0 and time.time() - failed_at < limit
    if failure == "stopped":
        assert "did not complete within --ddp_timeout 5 s" in stderr, stderr
    else:
        assert "rank 1" in stderr, stderr
    assert not (out / "eval_results.json").exists()


def test_dataset_record_longer_than_the_limit_is_refused(tmp_path):
    make_job(tmp_path)
    with open(tmp_path / "train.jsonl", "a") as f:
        f.write(json.dumps({"dialogue": "x" * 5000, "summary": "long"}) + "\n")
    r = run_job(write_job(tmp_path, tmp_path / "out", max_record_bytes=1000))
    assert r.returncode != 0 and "train.jsonl:7: record longer than max_record_bytes (1000 bytes)" in r.stderr, r.stderr
    skipped = run_job(write_job(tmp_path, tmp_path / "out2", max_record_bytes=1000, skip_bad_records=True, max_steps=1))
    assert skipped.returncode == 0 and "1 skipped as malformed" in skipped.stderr, skipped.stderr
