"""A SageMaker job on two hosts, faked on one machine (sagemaker_hosts.py): the first host runs
mpirun over ssh, the second serves ssh and waits, both end with the job's status. The weights
equal plain mpirun's; a SIGTERM to both hosts leaves a checkpoint and a restart resumes from it
bit-identically; a killed rank on algo-2 names itself in output/failure and ends both hosts. No
host holds a key before the job: the first makes one per job, the other authorises it alone."""
import json
import os
import pathlib
import shutil
import signal
import tempfile
import time

import pytest
import torch
from safetensors.torch import load_file

from process_support import MPIRUN, process_state
from sagemaker_hosts import HOSTS, TwoHosts, missing_requirement, process_name, processes_with_environment
from sagemaker_support import TINY
from train_support import make_job, train, weights

pytestmark = [pytest.mark.skipif(MPIRUN is None, reason="mpirun (openmpi-bin) is not installed"),
              pytest.mark.skipif(missing_requirement() is not None, reason=str(missing_requirement()))]

# The release in the hyperparameters, as docs/hf-semantics.md asks of jobs on several hosts (sshd
# hands the ranks none of this environment); 5's report_to default is "none", so TensorBoard is
# asked for.
JOB = dict(TINY, do_train=True, per_device_train_batch_size=2, max_steps=5, save_strategy="no", seed=7,
           warmup_steps=1, weight_decay=0.01, output_dir="/opt/ml/model", sagemaker_mpi_enabled=True,
           hf_semantics="5", report_to=["tensorboard"])


def ranks_of(base):
    """{rank: pid} of the training ranks running on the fake host of `base`: mpirun starts
    them under an orted that detaches from ssh, so they are found by the host's
    SAGEMAKER_BASE_DIR, which they inherit."""
    ranks = {}
    for pid, env in processes_with_environment():
        if env.get(b"SAGEMAKER_BASE_DIR") == str(base).encode() and b"OMPI_COMM_WORLD_RANK" in env \
                and process_name(pid) == "precis":
            ranks[int(env[b"OMPI_COMM_WORLD_RANK"])] = pid
    return ranks


def wait_ranks_stopped(hosts, procs, deadline_s=180):
    """{rank: pid} once both ranks have stopped themselves at the test hook."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        ranks = {}
        for base in hosts.bases.values():
            ranks.update(ranks_of(base))
        if len(ranks) == 2 and all(process_state(p) == "T" for p in ranks.values()):
            return ranks
        for host, proc in procs.items():
            assert proc.poll() is None, f"{host} ended (exit {proc.returncode}):\n{hosts.stderr(host)}"
        time.sleep(0.05)
    raise AssertionError("the ranks did not stop at the hook:\n" + "\n".join(hosts.stderr(h) for h in HOSTS))


def wait_for_lines(hosts, procs, lines, deadline_s=60):
    """Returns once each host's stderr holds its line of `lines` ({host: text})."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        if all(text in hosts.stderr(host) for host, text in lines.items()):
            return
        for host, proc in procs.items():
            assert proc.poll() is None, f"{host} ended (exit {proc.returncode}):\n{hosts.stderr(host)}"
        time.sleep(0.05)
    raise AssertionError(f"not all of {lines} within {deadline_s} s:\n" +
                         "\n".join(f"--- {h}\n{hosts.stderr(h)}" for h in HOSTS))


@pytest.fixture
def two_hosts(tmp_path):
    """TwoHosts(tmp_path, ...) as a factory; whatever a failed test leaves running (the hosts'
    sshd, orted daemons, ranks) is killed afterwards."""
    made = []

    def make(job_dir, hyperparameters):
        made.append(TwoHosts(tmp_path, job_dir, hyperparameters))
        return made[-1]
    yield make
    for hosts in made:
        hosts.kill_leftovers()


def test_two_hosts_equal_plain_mpirun_and_both_exit_0(tmp_path, two_hosts):
    make_job(tmp_path)
    hosts = two_hosts(tmp_path, JOB)
    key_folders = set(pathlib.Path(tempfile.gettempdir()).glob("precis-job-key-*"))
    start = time.monotonic()
    status = hosts.wait(hosts.start(), timeout=300)
    print(f"two hosts: {time.monotonic() - start:.1f} s")
    assert status == {"algo-1": 0, "algo-2": 0}, hosts.stderr("algo-1") + hosts.stderr("algo-2")
    assert "2 hosts, 1 rank each: starting mpirun" in hosts.stderr("algo-1")
    # The job's key: both hosts authorised the one key algo-1 made (mpirun reaches algo-1 by ssh
    # too here, where the machine calls itself otherwise), and its private half is gone.
    keys = hosts.authorized_keys["algo-2"].read_text().splitlines()
    assert len(keys) == 1 and keys[0].startswith("ssh-ed25519 ") and keys[0].endswith(" precis-job"), keys
    assert hosts.authorized_keys["algo-1"].read_text().splitlines() == keys
    assert set(pathlib.Path(tempfile.gettempdir()).glob("precis-job-key-*")) == key_folders
    # Rank 0 alone writes the model, on the first host.
    assert not (hosts.bases["algo-2"] / "model" / "model.safetensors").exists()
    # Hosts counted by resourceconfig.json's current_host, not gethostname() (one machine here).
    summary = json.loads((hosts.bases["algo-1"] / "output" / "data" / "job_summary.json").read_text())
    assert (summary["world_size"], summary["hosts"]) == (2, 2), summary
    assert [p.name for p in (hosts.bases["algo-1"] / "output" / "data" / "tensorboard").iterdir()
            if ".algo-1." not in p.name] == []
    plain = {k: v for k, v in JOB.items() if not k.startswith("sagemaker_")}
    plain.update(output_dir=str(tmp_path / "plain"))
    train(tmp_path, tmp_path / "plain", 2, **plain)
    ours, theirs = weights(hosts.bases["algo-1"] / "model"), weights(tmp_path / "plain")
    assert ours.keys() == theirs.keys() and all(torch.equal(ours[k], theirs[k]) for k in ours)


def test_sigterm_to_both_hosts_saves_and_the_restart_resumes_bit_identically(tmp_path, two_hosts):
    make_job(tmp_path, dropout=0.1)
    plain = {k: v for k, v in JOB.items() if not k.startswith("sagemaker_")}
    train(tmp_path, tmp_path / "straight", 2, **dict(plain, output_dir=str(tmp_path / "straight")))
    hosts = two_hosts(tmp_path, JOB)
    procs = hosts.start(PRECIS_TEST_STOP_AT="micro:2:0")
    ranks = wait_ranks_stopped(hosts, procs)
    start = time.monotonic()
    for proc in procs.values():  # SageMaker's stop reaches each host's first process
        proc.send_signal(signal.SIGTERM)
    # Each host passes it on to its stopped rank (queued until SIGCONT). Waiting for both to say
    # so, rather than for a second, keeps a slow host's launcher from meeting a rank that the
    # other host's stop has already ended: the forward is then exact.
    wait_for_lines(hosts, procs, {h: "SIGTERM: passed to 1 rank on this host" for h in HOSTS})
    for pid in ranks.values():
        os.kill(pid, signal.SIGCONT)
    status = hosts.wait(procs, timeout=120)
    print(f"SIGTERM to both hosts' exit: {time.monotonic() - start:.1f} s")
    assert status == {"algo-1": 0, "algo-2": 0}, hosts.stderr("algo-1") + hosts.stderr("algo-2")
    for host in HOSTS:  # each rank got the stop once
        assert hosts.stderr(host).count("SIGTERM: passed to") == 1, hosts.stderr(host)
    checkpoints = hosts.bases["algo-1"] / "checkpoints"
    assert [p.name for p in checkpoints.iterdir()] == ["checkpoint-3"]
    first_key = hosts.authorized_keys["algo-2"].read_text()
    # The restart: SageMaker restores the synced checkpoint folder on every host.
    shutil.copytree(checkpoints, hosts.bases["algo-2"] / "checkpoints")
    status = hosts.wait(hosts.start(), timeout=300)
    assert status == {"algo-1": 0, "algo-2": 0}, hosts.stderr("algo-1") + hosts.stderr("algo-2")
    assert "resuming from" in hosts.stderr("algo-1")
    # The restarted job made a key of its own, which replaced the first one.
    assert hosts.authorized_keys["algo-2"].read_text() != first_key
    a, b = weights(tmp_path / "straight"), weights(hosts.bases["algo-1"] / "model")
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_a_killed_rank_on_algo_2_is_named_in_the_failure_file_and_ends_both_hosts(tmp_path, two_hosts):
    make_job(tmp_path)
    hosts = two_hosts(tmp_path, dict(JOB, ddp_timeout=20))
    procs = hosts.start(PRECIS_TEST_STOP_AT="micro:2:0")
    ranks = wait_ranks_stopped(hosts, procs)
    start = time.monotonic()
    os.kill(ranks[1], signal.SIGKILL)
    os.kill(ranks[0], signal.SIGCONT)
    status = hosts.wait(procs, timeout=60)
    print(f"kill to both hosts' exit: {time.monotonic() - start:.1f} s")
    assert status["algo-1"] != 0 and status["algo-2"] != 0, status
    failure = (hosts.bases["algo-1"] / "output" / "failure").read_text()
    print(failure)
    assert failure.startswith("algo-2, rank 1: killed by signal 9"), failure
    assert (hosts.bases["algo-2"] / "output" / "failure").read_text() == failure
