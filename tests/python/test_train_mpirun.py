"""`mpirun -np 2 python script.py`, each process calling precis.train, against `mpirun -np 2
precis train` with the same options (the oracle test test_train_distributed holds that to one
rank with twice the batch): the same weights bit for bit; rank 0 returns the TrainOutput, rank
1 None."""
import json
import subprocess
import sys
import textwrap

import pytest
import torch

from conftest import PACKAGE_PARENT
from process_support import ENV, MPIRUN
from train_support import make_job, train, weights

pytestmark = pytest.mark.skipif(MPIRUN is None, reason="mpirun (openmpi-bin) is not installed")

# Each rank writes what precis.train returned to a file of its own: mpirun's forwarding of the
# ranks' stdout dropped both lines once in CI on a loaded machine (exit status 0, no output).
SCRIPT = """
import json, os, pathlib, sys
sys.path.insert(0, {package!r})
import precis
out = precis.train(json.loads({job!r}), progress=False)
rank = int(os.environ["OMPI_COMM_WORLD_RANK"])
pathlib.Path({results!r}, f"result-{{rank}}.json").write_text(
    json.dumps({{"rank": rank, "out": None if out is None else out._asdict()}}))
"""


def test_python_under_mpirun_equals_precis_train_under_mpirun(tmp_path):
    make_job(tmp_path)
    train(tmp_path, tmp_path / "cli", 2, per_device_train_batch_size=2)
    job = json.loads((tmp_path / "job-cli.json").read_text())
    job["output_dir"] = str(tmp_path / "py")
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent(SCRIPT.format(package=PACKAGE_PARENT, job=json.dumps(job),
                                                    results=str(tmp_path))))
    cmd = [MPIRUN, "--allow-run-as-root", "--oversubscribe", "-np", "2", "-x", "OMP_NUM_THREADS", sys.executable,
           str(script)]
    r = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    results = sorted((json.loads(f.read_text()) for f in tmp_path.glob("result-*.json")),
                     key=lambda e: e["rank"])
    assert [e["rank"] for e in results] == [0, 1]
    assert results[1]["out"] is None
    out = results[0]["out"]
    assert out["global_step"] == 5 and out["training_loss"] == out["metrics"]["train_loss"]

    cli, ours = weights(tmp_path / "cli"), weights(tmp_path / "py")
    assert set(ours) == set(cli) and all(torch.equal(ours[k], cli[k]) for k in ours)
    summary = json.loads((tmp_path / "py" / "job_summary.json").read_text())
    assert summary["world_size"] == 2
