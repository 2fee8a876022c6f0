"""Data parallelism on GPUs without a GPU: `mpirun -np 2 precis_emulated train --device cuda`
runs each rank's step through the CUDA twins in the kernel emulator and moves the device's
buffers (the gradient buckets, ZeRO-1's shards) through NCCL's calls, which the emulator makes
MPI collectives over its device memory (tests/emulator/nccl.h). Against the CPU's two
ranks over MPI, against one emulated GPU with twice the batch, ZeRO-1 against plain data
parallelism, bf16, T5, a checkpoint written by two emulated GPUs resumed on one, and a rank that
hangs or dies while the other waits in a device collective."""
import json
import os
import shutil
import signal
import subprocess
import time

import pytest
import torch
from safetensors.torch import load_file

from conftest import precis_binary
from process_support import ENV, MPIRUN, launch, process_state, wait_stopped
from sagemaker_hosts import process_name, processes_with_environment
from sagemaker_support import TINY, make_host, sagemaker_env
from t5_models import make_t5, train_tiny_spiece
from train_support import (MAX_SOURCE_LENGTH, MAX_TARGET_LENGTH, SOURCES, SUMMARIES, make_job, max_diff, train,
                           weights, write_records)

pytestmark = pytest.mark.skipif(MPIRUN is None, reason="mpirun (openmpi-bin) is not installed")

EMULATED = "precis_emulated"
TIMEOUT_S = 10 if os.environ.get("PRECIS_SANITIZER") else 3


def logged(out):
    """(loss, grad_norm) of each step, as rank 0 logged them."""
    return [(s["loss"], s["grad_norm"]) for s in map(json.loads, (out / "train_log.jsonl").read_text().splitlines())]


def gpu_train(tmp_path, name, ranks, **overrides):
    """Five steps of make_job's job on `ranks` emulated GPUs, the global batch 4 (5 on 5 ranks)."""
    return train(tmp_path, tmp_path / name, ranks, binary=EMULATED, device="cuda",
                 per_device_train_batch_size=max(1, 4 // ranks), **overrides)


@pytest.mark.parametrize("zero_stage", [0, 1])
def test_two_gpus_equal_two_cpu_ranks_and_one_gpu(tmp_path, zero_stage):
    """1 MiB buckets (several, each all-reduced on the communication stream as the backward
    completes it) or ZeRO-1's reduce-scatter and all-gather over uneven shards, with dropout.
    The two emulated GPUs against one with the global batch: the same masks and the same
    per-example arithmetic, the gradient summed in another order (1e-6, as the CPU's own test of
    world sizes). Against the CPU's two ranks: the CUDA twins' arithmetic, as one emulated GPU
    against the CPU; the bound is 1e-6 for both. A bucket reduced twice or skipped, or a wrong scaling
    across ranks, moves the weights by about the learning rate (1e-3)."""
    make_job(tmp_path, dropout=0.1)
    # The gradient's norm is 0.07-0.09 here: 0.05 clips every step.
    common = dict(zero_stage=zero_stage, ddp_bucket_cap_mb=1, max_grad_norm=0.05)
    two = gpu_train(tmp_path, "two", 2, **common)
    assert "training on cuda:0" in two.stderr and "job summary: 2 ranks on 1 host" in two.stderr, two.stderr
    gpu_train(tmp_path, "one", 1, max_grad_norm=0.05)
    train(tmp_path, tmp_path / "cpu", 2, device="cpu", per_device_train_batch_size=2, **common)
    ours = weights(tmp_path / "two")
    vs_one = max_diff(weights(tmp_path / "one"), ours)
    vs_cpu = max_diff(weights(tmp_path / "cpu"), ours)
    print(f"ZeRO-{zero_stage}: 2 emulated GPUs vs 1 with twice the batch {vs_one:.2e}, vs 2 CPU ranks {vs_cpu:.2e}")
    assert vs_one <= 1e-6 and vs_cpu <= 1e-6
    # On the GPUs the step's loss is summed over the ranks there, and ZeRO-1's gradient norm
    # too; the CPU sums both on the host.
    for (cpu_loss, cpu_norm), (loss, norm) in zip(logged(tmp_path / "cpu"), logged(tmp_path / "two")):
        assert loss == pytest.approx(cpu_loss, rel=1e-6) and norm == pytest.approx(cpu_norm, rel=1e-5)


@pytest.mark.parametrize("ranks", [2, 5])
def test_zero1_on_gpus_equals_plain_data_parallelism_bit_for_bit(tmp_path, ranks):
    """ZeRO-1's reduce-scatter sums each element in the all-reduce's order (rank order), and its
    step is elementwise, so the sharded run's weights are the plain run's bits. On 2 ranks the
    shards are equal (NCCL's reduce-scatter and all-gather); on 5 they are not (72,096 floats),
    and go as grouped reduces and broadcasts rooted at each shard's rank."""
    make_job(tmp_path)
    gpu_train(tmp_path, "plain", ranks, max_grad_norm=0.05)  # clipped, so the norm counts
    gpu_train(tmp_path, "zero", ranks, zero_stage=1, max_grad_norm=0.05)
    plain, zero = weights(tmp_path / "plain"), weights(tmp_path / "zero")
    assert all(torch.equal(plain[k], zero[k]) for k in plain)


@pytest.mark.parametrize("zero_stage", [0, 1])
def test_bf16_on_two_gpus_equals_one_gpu(tmp_path, zero_stage):
    """--bf16: the fp32 master gradient all-reduced (or reduce-scattered), the bf16 compute
    copy refreshed from the master weights on each rank. Against one emulated GPU: the CPU's
    --bf16 is another arithmetic (CPU autocast), which test_train_bf16 holds to HF's."""
    make_job(tmp_path)
    gpu_train(tmp_path, "one", 1, bf16=True)
    two = gpu_train(tmp_path, "two", 2, bf16=True, zero_stage=zero_stage, ddp_bucket_cap_mb=1)
    assert "bf16 mixed precision" in two.stderr
    diff = max_diff(weights(tmp_path / "one"), weights(tmp_path / "two"))
    print(f"bf16, ZeRO-{zero_stage}: 2 emulated GPUs vs 1 with twice the batch {diff:.2e}")
    assert diff <= 1e-6


@pytest.mark.parametrize("precision,zero_stage", [("fp32", 0), ("bf16", 1)])
def test_t5_on_two_gpus_equals_one_gpu_and_two_cpu_ranks(tmp_path, precision, zero_stage):
    corpus = (SOURCES + SUMMARIES) * 20
    tokenizer = train_tiny_spiece(tmp_path / "spm", corpus, vocab_size=120)
    model = make_t5("v1_1-gated-gelu-untied", len(tokenizer), scale=0.1, dropout=0.1)
    model.save_pretrained(tmp_path / "base")
    tokenizer.save_pretrained(tmp_path / "base")
    write_records(tmp_path / "train.jsonl", [{"dialogue": s, "summary": t} for s, t in zip(SOURCES, SUMMARIES)])
    bf16 = precision == "bf16"
    gpu_train(tmp_path, "one", 1, bf16=bf16)
    gpu_train(tmp_path, "two", 2, bf16=bf16, zero_stage=zero_stage)
    diff = max_diff(weights(tmp_path / "one"), weights(tmp_path / "two"))
    print(f"T5 v1.1, {precision}, ZeRO-{zero_stage}: 2 emulated GPUs vs 1 with twice the batch {diff:.2e}")
    assert diff <= 1e-6
    if not bf16:
        train(tmp_path, tmp_path / "cpu", 2, device="cpu", per_device_train_batch_size=2, zero_stage=zero_stage)
        vs_cpu = max_diff(weights(tmp_path / "cpu"), weights(tmp_path / "two"))
        print(f"T5 v1.1, fp32: 2 emulated GPUs vs 2 CPU ranks {vs_cpu:.2e}")
        assert vs_cpu <= 1e-6


def test_checkpoint_of_two_gpus_resumes_on_one(tmp_path):
    make_job(tmp_path, dropout=0.1)
    common = dict(save_strategy="steps", save_steps=3, zero_stage=1)
    gpu_train(tmp_path, "straight", 2, **common)
    (tmp_path / "resumed").mkdir()
    shutil.copytree(tmp_path / "straight" / "checkpoint-3", tmp_path / "resumed" / "checkpoint-3")
    r = gpu_train(tmp_path, "resumed", 1, **common)
    assert "resuming from" in r.stderr
    assert [json.loads(l)["step"] for l in (tmp_path / "resumed" / "train_log.jsonl").read_text().splitlines()] == [4, 5]
    diff = max_diff(weights(tmp_path / "straight"), weights(tmp_path / "resumed"))
    print(f"saved on 2 emulated GPUs, resumed on 1: max abs diff {diff:.2e}")
    assert diff <= 1e-6


@pytest.mark.parametrize("signal_to_rank_1", ["SIGSTOP", "SIGKILL"])
def test_a_rank_that_hangs_or_dies_ends_the_job_within_the_timeout(tmp_path, signal_to_rank_1):
    """Both ranks stop in the middle of step 5 (the test hook, after the backward); rank 0 goes
    on into ZeRO-1's reduce-scatter on the device, rank 1 stays stopped, or is killed. NCCL's
    collectives have no deadline of their own: the watchdog's --ddp_timeout (3 s; 10 under a
    sanitizer, where a healthy collective may wait that long for a slow rank) aborts the
    communicator, names the rank when it is gone (and mpirun may name it first), and ends every
    rank; the last checkpoint is whole. Without the watchdog the stuck run never ends."""
    make_job(tmp_path)
    out = tmp_path / "out"
    config = tmp_path / "job.json"
    config.write_text(json.dumps(dict(
        model_name_or_path=str(tmp_path / "base"), train_file=str(tmp_path / "train.jsonl"), output_dir=str(out),
        do_train=True, learning_rate=1e-3, max_steps=12, save_strategy="steps", save_steps=2, seed=7,
        max_source_length=MAX_SOURCE_LENGTH, max_target_length=MAX_TARGET_LENGTH, device="cuda",
        per_device_train_batch_size=2, zero_stage=1, ddp_timeout=TIMEOUT_S)))
    proc = subprocess.Popen(launch(2, "train", "--config", config, export=["PRECIS_TEST_STOP_AT"], binary=EMULATED),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(ENV, PRECIS_TEST_STOP_AT="micro:4:0"))
    pids = wait_stopped(proc, "the middle of step 5", ranks=[0, 1])
    os.kill(pids[1], getattr(signal, signal_to_rank_1))
    os.kill(pids[0], signal.SIGCONT)
    started = time.monotonic()
    try:
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.kill(pids[1], signal.SIGKILL)
            proc.kill()
    print(f"{signal_to_rank_1} to rank 1: the job ended {time.monotonic() - started:.1f} s later, exit {proc.returncode}")
    assert proc.returncode != 0 and time.monotonic() - started < 60
    if signal_to_rank_1 == "SIGSTOP":
        assert ("precis: rank 0: error: a GPU collective (reduce-scatter of" in stderr and
                f"did not complete within --ddp_timeout {TIMEOUT_S} s: another rank stopped answering" in stderr), stderr
    else:
        assert "rank 1" in stderr, stderr  # the watchdog's "rank 1 has died", or mpirun's own report
    assert not (out / "model.safetensors").exists() and not (out / "checkpoint-6").exists()
    last = out / "checkpoint-4"
    assert json.loads((last / "trainer_state.json").read_text())["global_step"] == 4
    assert weights(last) and load_file(str(last / "optimizer.safetensors"))


def test_sagemaker_job_on_two_emulated_gpus_names_a_killed_rank_in_the_failure_file(tmp_path):
    """SageMaker's launch on one host of two GPUs: `precis train` in the container starts mpirun
    itself (sagemaker_mpi_num_of_processes_per_host: one rank a GPU), rank 1 is killed in the
    middle of step 5, and every rank ends within the timeout with output/failure naming it."""
    make_job(tmp_path)
    base = make_host(tmp_path / "host", tmp_path, dict(
        TINY, do_train=True, max_steps=12, per_device_train_batch_size=2, save_strategy="steps", save_steps=2,
        seed=7, device="cuda", zero_stage=1, ddp_timeout=TIMEOUT_S, output_dir="/opt/ml/model",
        sagemaker_mpi_enabled=True, sagemaker_mpi_num_of_processes_per_host=2), channels=("train", "model"))
    proc = subprocess.Popen([precis_binary(EMULATED), "train"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=sagemaker_env(base, PRECIS_TEST_STOP_AT="micro:4:0"))
    try:
        deadline = time.monotonic() + 180
        while True:  # the ranks, under the mpirun that precis started, found by their /opt/ml
            ranks = {int(env[b"OMPI_COMM_WORLD_RANK"]): pid for pid, env in processes_with_environment()
                     if env.get(b"SAGEMAKER_BASE_DIR") == str(base).encode() and b"OMPI_COMM_WORLD_RANK" in env
                     and process_name(pid) == EMULATED}
            if len(ranks) == 2 and all(process_state(p) == "T" for p in ranks.values()):
                break
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.poll() else ranks
            time.sleep(0.05)
        os.kill(ranks[1], signal.SIGKILL)
        os.kill(ranks[0], signal.SIGCONT)
        started = time.monotonic()
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    print(f"the job ended {time.monotonic() - started:.1f} s after the kill, exit {proc.returncode}")
    assert proc.returncode != 0 and "training on cuda:0" in stderr, stderr
    failure = (base / "output" / "failure").read_text()
    print(failure)
    # mpirun's report names the machine; on one host that is SageMaker's algo-1.
    assert failure.startswith("algo-1, rank 1: killed by signal 9"), failure
    last = base / "checkpoints" / "checkpoint-4"
    assert json.loads((last / "trainer_state.json").read_text())["global_step"] == 4
