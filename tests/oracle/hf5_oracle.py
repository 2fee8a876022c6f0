"""The second oracle: transformers 5.23.0 on PyPI's torch, in its own venv (.venv-hf5, made by
scripts/setup.sh from requirements-hf5.txt), run as a subprocess beside the first (4.44.2 on
Debian's torch, in this process). A script of hf5/ reads a JSON request on stdin and writes its
JSON answer as the last line of its stdout."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

from conftest import SOURCE_DIR

HF5_PYTHON = SOURCE_DIR / ".venv-hf5" / "bin" / "python"
SCRIPTS = pathlib.Path(__file__).parent / "hf5"


def run_hf5(script, request):
    if not HF5_PYTHON.exists():
        pytest.skip(f"no transformers 5.x oracle at {HF5_PYTHON.parent.parent}; scripts/setup.sh makes it")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(OMP_NUM_THREADS="1", TRANSFORMERS_VERBOSITY="error", HF_HUB_OFFLINE="1")
    result = subprocess.run([str(HF5_PYTHON), str(SCRIPTS / script)], input=json.dumps(request),
                            capture_output=True, text=True, env=env)
    if result.returncode != 0:
        raise AssertionError(f"hf5/{script} failed ({result.returncode}):\n{result.stderr[-4000:]}")
    # The answer is the last line: the Trainer prints its logs to stdout before it.
    return json.loads(result.stdout.strip().splitlines()[-1])


def hf5_version():
    return run_hf5("version.py", {})


def oracle_python(release):
    """The Python of either oracle: "4.44" (this one's venv) or "5"."""
    if release == "5":
        if not HF5_PYTHON.exists():
            pytest.skip(f"no transformers 5.x oracle at {HF5_PYTHON.parent.parent}; scripts/setup.sh makes it")
        return str(HF5_PYTHON)
    return sys.executable


def run_torchrun(release, script, request, ranks=2):
    """hf5/`script` under `torchrun --nproc_per_node ranks` in either oracle's Python, one thread a
    rank; the request goes in a file beside the output directory; rank 0's answer."""
    path = pathlib.Path(request["output_dir"] + ".request.json")
    path.write_text(json.dumps(request))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(OMP_NUM_THREADS="1", TRANSFORMERS_VERBOSITY="error", HF_HUB_OFFLINE="1")
    cmd = [oracle_python(release), "-m", "torch.distributed.run", "--nproc_per_node", str(ranks),
           "--master_port", str(29500 + os.getpid() % 1000), "--redirects", "2", "--tee", "2", str(SCRIPTS / script), str(path)]
    result = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    if result.returncode != 0:
        raise AssertionError(f"torchrun hf5/{script} ({release}) failed ({result.returncode}):\n{result.stderr[-4000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])
