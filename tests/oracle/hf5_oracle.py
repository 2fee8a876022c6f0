"""The second oracle: transformers 5.23.0 on PyPI's torch, in its own venv (.venv-hf5, made by
scripts/setup.sh from requirements-hf5.txt), run as a subprocess beside the first (4.44.2 on
Debian's torch, in this process). A script of hf5/ reads a JSON request on stdin and writes its
JSON answer as the last line of its stdout."""
import json
import os
import pathlib
import subprocess

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
