"""deploy/kubernetes/mpijob.yaml and deploy/slurm/train.sbatch: the MPIJob parses with the
fields the Kubeflow MPI operator (v2beta1) requires, the sbatch script is valid bash with
srun --mpi=pmix, one task per GPU and requeue; and the command both run is the one tested:
the MPIJob launcher's mpirun line, run here on a local hostfile and the tiny job, trains, and
the sbatch's precis arguments are the launcher's."""
import json
import re
import shlex
import subprocess

import pytest
import yaml

from conftest import SOURCE_DIR, precis_binary
from process_support import ENV, MPIRUN
from train_support import make_job

MPIJOB = SOURCE_DIR / "deploy" / "kubernetes" / "mpijob.yaml"
SBATCH = SOURCE_DIR / "deploy" / "slurm" / "train.sbatch"


def mpijob():
    return yaml.safe_load(MPIJOB.read_text())


def test_mpijob_has_the_fields_the_operator_requires():
    job = mpijob()
    assert job["apiVersion"] == "kubeflow.org/v2beta1" and job["kind"] == "MPIJob"
    assert job["metadata"]["name"]
    spec = job["spec"]
    assert spec["mpiImplementation"] == "OpenMPI"
    assert set(spec["mpiReplicaSpecs"]) == {"Launcher", "Worker"}
    launcher, worker = spec["mpiReplicaSpecs"]["Launcher"], spec["mpiReplicaSpecs"]["Worker"]
    assert launcher["replicas"] == 1
    for replica in (launcher, worker):
        containers = replica["template"]["spec"]["containers"]
        assert len(containers) == 1 and containers[0]["image"] and containers[0]["command"]
    gpus = worker["template"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"]
    assert spec["slotsPerWorker"] == gpus  # one rank per GPU
    command = launcher["template"]["spec"]["containers"][0]["command"]
    assert command[0] == "mpirun" and "/etc/mpi/hostfile" in command
    assert int(command[command.index("-np") + 1]) == spec["slotsPerWorker"] * worker["replicas"]
    # A failed rank ends the job rather than leaving the others waiting (docs/kubernetes.md).
    assert command[command.index("orte_abort_on_non_zero_status") + 1] == "1"
    assert spec["runPolicy"]["backoffLimit"] == 0 and launcher["restartPolicy"] == "Never"
    mounts = {m["mountPath"] for r in (launcher, worker) for m in r["template"]["spec"]["containers"][0]["volumeMounts"]}
    assert mounts == {"/shared"}


def precis_arguments(words):
    return words[words.index("train") + 1:]


def test_sbatch_is_valid_bash_with_pmix_requeue_and_the_launchers_arguments():
    subprocess.run(["bash", "-n", SBATCH], check=True)
    text = SBATCH.read_text()
    directives = dict(re.findall(r"^#SBATCH --([a-z-]+)(?:=(\S+))?", text, re.M))
    assert "requeue" in directives and directives["ntasks-per-node"] == directives["gpus-per-node"]
    srun = next(l for l in text.splitlines() if l.startswith("srun "))
    words = shlex.split(srun.rstrip("&").strip())
    assert "--mpi=pmix" in words
    launcher = mpijob()["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]["command"]
    ours, theirs = precis_arguments(words), precis_arguments(launcher)
    assert [w for w in ours if w.startswith("--")] == [w for w in theirs if w.startswith("--")]


@pytest.mark.skipif(MPIRUN is None, reason="mpirun (openmpi-bin) is not installed")
def test_the_mpijob_launcher_command_trains_on_a_local_hostfile(tmp_path):
    make_job(tmp_path)
    (tmp_path / "job.yaml").write_text(yaml.safe_dump(dict(
        model_name_or_path=str(tmp_path / "base"), train_file=str(tmp_path / "train.jsonl"),
        output_dir=str(tmp_path / "out"), do_train=True, max_steps=2, per_device_train_batch_size=2,
        max_source_length=64, max_target_length=32, save_strategy="no")))
    (tmp_path / "hostfile").write_text("localhost slots=2\n")
    command = mpijob()["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]["command"]
    local = {"/etc/mpi/hostfile": str(tmp_path / "hostfile"), "/shared/job.yaml": str(tmp_path / "job.yaml"),
             "precis": precis_binary()}
    words = [local.get(w, w) for w in command]
    words[words.index("-np") + 1] = "2"
    r = subprocess.run(words, capture_output=True, text=True, env=ENV, timeout=300)
    assert r.returncode == 0, r.stderr
    summary = json.loads((tmp_path / "out" / "job_summary.json").read_text())
    assert summary["world_size"] == 2


def test_torchrun_variables_are_refused_with_what_to_use_instead(tmp_path):
    # torchrun's world (WORLD_SIZE > 1, no MPI launcher): refused, naming mpirun and srun.
    env = dict(ENV, RANK="0", WORLD_SIZE="2", LOCAL_RANK="0", MASTER_ADDR="127.0.0.1", MASTER_PORT="29500")
    make_job(tmp_path)
    r = subprocess.run([precis_binary(), "train", "--model_name_or_path", tmp_path / "base", "--train_file",
                        tmp_path / "train.jsonl", "--output_dir", tmp_path / "out", "--do_train", "--max_steps", "1"],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode != 0
    assert "WORLD_SIZE=2 (torchrun's variables)" in r.stderr and "mpirun -np N" in r.stderr, r.stderr
    # A world of one (torchrun --nproc_per_node 1) is a single process, as it is.
    env["WORLD_SIZE"] = "1"
    r = subprocess.run([precis_binary(), "train", "--model_name_or_path", tmp_path / "base", "--train_file",
                        tmp_path / "train.jsonl", "--output_dir", tmp_path / "out", "--do_train", "--max_steps", "1",
                        "--max_source_length", "64", "--max_target_length", "32"],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
