"""OpenBLAS's kernels chosen for the CPU (src/precis/kernels/cpu/blas_core.h).

An OpenBLAS older than the CPU runs its oldest x86-64 kernels (Prescott) silently. precis
checks at start and restarts itself with OPENBLAS_CORETYPE set to the best core the CPU can run.
On any CPU with AVX2, OPENBLAS_CORETYPE=Prescott with PRECIS_BLAS_CHECK=force fakes that old
library: the restarted process must run the better core, and compute exactly what a process
started with that core computes.
"""
import json
import os
import subprocess

import pytest

from conftest import NO_CPU_FEATURE, precis_binary, run_precis, train_tiny_bpe
from train_support import SOURCES, SUMMARIES, write_records

BASE_ENV = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "PRECIS_BLAS_CHECK",
                                                              "PRECIS_BLAS_TRIED")}


def info(**env):
    out = run_precis("info", env=dict(BASE_ENV, **env)).stdout
    return dict(line.split(": ", 1) for line in out.splitlines() if ": " in line)


def core_of(report):
    return report["BLAS core"].split(" (")[0]


@pytest.fixture(scope="module")
def best_core():
    """The core precis would choose on this CPU, as this OpenBLAS names it when asked for it."""
    faked = info(OPENBLAS_CORETYPE="Prescott", PRECIS_BLAS_CHECK="force")
    # What the CPU can run decides the skip, never what the check did.
    if "no AVX2+FMA" in faked["CPU"]:
        pytest.skip(f"this CPU has no AVX2+FMA ({faked['CPU']}), so no OpenBLAS core beats Prescott and the "
                    f"check {NO_CPU_FEATURE}")
    assert core_of(faked) != "Prescott", faked
    return core_of(faked)


def test_a_faked_old_library_is_replaced_by_the_cpus_best_core(best_core):
    faked = info(OPENBLAS_CORETYPE="Prescott", PRECIS_BLAS_CHECK="force")
    assert faked["BLAS core"] == f"{best_core} (chosen by precis)", faked
    assert "OpenBLAS chose its Prescott kernels" in faked["precis"], faked
    # Asked for directly, the first candidate gives the same core (0.3.21 maps SapphireRapids to
    # Cooperlake): precis chose what this library runs best.
    tried = faked["precis"].split("OPENBLAS_CORETYPE=")[1].split(":")[0]
    assert core_of(info(OPENBLAS_CORETYPE=tried, PRECIS_BLAS_CHECK="off")) == best_core
    # Left alone, precis runs the best core, or OpenBLAS's own choice where nothing beats it.
    plain = info()
    assert core_of(plain) == best_core or ("precis" not in plain and "OpenBLAS" in plain["BLAS core"]), plain


def test_the_users_choice_and_the_switch_are_respected(best_core):
    mine = info(OPENBLAS_CORETYPE="Prescott")
    assert mine["BLAS core"] == "Prescott (chosen by OPENBLAS_CORETYPE)", mine
    off = info(OPENBLAS_CORETYPE="Prescott", PRECIS_BLAS_CHECK="off")
    assert core_of(off) == "Prescott"


def train(tmp_path, name, tokenizer, data, **env):
    out = tmp_path / name
    result = run_precis("train", "--config_name", "bart-tiny", "--tokenizer_name", tokenizer, "--train_file", data,
                        "--max_steps", 3, "--per_device_train_batch_size", 3, "--max_source_length", 48,
                        "--max_target_length", 16, "--do_train", "--save_strategy", "no", "--seed", 42,
                        "--report_to", "none", "--output_dir", out, env=dict(BASE_ENV, OMP_NUM_THREADS="1", **env))
    return (out / "model.safetensors").read_bytes(), json.loads((out / "job_summary.json").read_text()), result.stderr


def test_the_restarted_job_computes_what_the_chosen_core_computes(tmp_path, best_core):
    tokenizer = tmp_path / "tokenizer"
    train_tiny_bpe(tokenizer)
    data = tmp_path / "train.jsonl"
    write_records(data, [{"dialogue": s, "summary": t} for s, t in zip(SOURCES, SUMMARIES)])
    restarted, summary, log = train(tmp_path, "restarted", tokenizer, data, OPENBLAS_CORETYPE="Prescott",
                                    PRECIS_BLAS_CHECK="force")
    direct, _, _ = train(tmp_path, "direct", tokenizer, data, OPENBLAS_CORETYPE=best_core, PRECIS_BLAS_CHECK="off")
    prescott, _, _ = train(tmp_path, "prescott", tokenizer, data, OPENBLAS_CORETYPE="Prescott",
                           PRECIS_BLAS_CHECK="off")
    assert summary["blas"]["core"] == best_core and summary["blas"]["chosen_by"] == "precis", summary["blas"]
    assert summary["blas"]["library"].startswith("OpenBLAS "), summary["blas"]
    assert "OpenBLAS chose its Prescott kernels" in log, log
    assert restarted == direct  # the same weights, bit for bit
    # The comparison can tell the cores apart: Prescott's kernels sum in another order.
    print(f"weights after 3 steps, {best_core} against Prescott: {'the same' if prescott == direct else 'differ'}")


def test_every_mpi_rank_makes_the_same_choice(best_core):
    env = dict(BASE_ENV, OPENBLAS_CORETYPE="Prescott", PRECIS_BLAS_CHECK="force", OMPI_MCA_rmaps_base_oversubscribe="1")
    result = subprocess.run(["mpirun", "--allow-run-as-root", "-np", "2", "-x", "OPENBLAS_CORETYPE", "-x",
                             "PRECIS_BLAS_CHECK", precis_binary(), "info"], env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    cores = [line for line in result.stdout.splitlines() if line.startswith("BLAS core: ")]
    assert cores == [f"BLAS core: {best_core} (chosen by precis)"] * 2, result.stdout
