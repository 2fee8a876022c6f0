"""`import precis` chooses OpenBLAS's kernels for the CPU before the library loads
(python/precis/_blas.py), as the command line does by restarting itself; where OpenBLAS was
loaded first by another module, it says so. OPENBLAS_CORETYPE=Prescott with
PRECIS_BLAS_CHECK=force fakes an OpenBLAS older than the CPU on any CPU with AVX2."""
import json
import os
import subprocess
import sys

import pytest

from conftest import NO_CPU_FEATURE, PACKAGE_PARENT

REPORT = "import json, precis; print(json.dumps(precis.blas_report()))"
# Loads the same OpenBLAS before precis, as a module linking it would.
PRELOADED = ("import ctypes, ctypes.util; ctypes.CDLL(ctypes.util.find_library('openblas') or 'libopenblas.so.0'); "
             + REPORT)


def python(code, **env):
    base = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "PRECIS_BLAS_CHECK",
                                                             "PRECIS_BLAS_TRIED")}
    base["PYTHONPATH"] = os.pathsep.join(p for p in (PACKAGE_PARENT, base.get("PYTHONPATH", "")) if p)
    result = subprocess.run([sys.executable, "-c", code], env=dict(base, **env), capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1]), result.stderr


def test_import_runs_the_cpus_best_core_where_openblas_would_not():
    faked, _ = python(REPORT, OPENBLAS_CORETYPE="Prescott", PRECIS_BLAS_CHECK="force")
    if not faked["candidates"]:
        pytest.skip(f"this CPU has no AVX2+FMA ({faked['cpu']}), so no OpenBLAS core beats Prescott and the check "
                    f"{NO_CPU_FEATURE}")
    assert faked["chosen_by"] == "precis", faked
    # precis asked for the first candidate, which this OpenBLAS may run as an older core (0.3.21
    # runs SapphireRapids as Cooperlake): the core it gives when asked for that one directly.
    direct, _ = python(REPORT, OPENBLAS_CORETYPE=faked["candidates"][0], PRECIS_BLAS_CHECK="off")
    assert faked["core"] == direct["core"] != "Prescott", (faked, direct)
    assert "OpenBLAS chose its Prescott kernels" in faked["note"], faked
    # The user's own OPENBLAS_CORETYPE stands.
    mine, _ = python(REPORT, OPENBLAS_CORETYPE="Prescott")
    assert mine["core"] == "Prescott" and mine["chosen_by"] == "OPENBLAS_CORETYPE", mine


def test_an_openblas_loaded_first_is_named_with_what_to_set():
    faked, stderr = python(PRELOADED, OPENBLAS_CORETYPE="Prescott", PRECIS_BLAS_CHECK="force")
    if not faked["candidates"]:
        pytest.skip(f"this CPU has no AVX2+FMA ({faked['cpu']}), so the check {NO_CPU_FEATURE}")
    assert faked["core"] == "Prescott", faked
    assert "OpenBLAS was loaded before precis" in stderr and f"OPENBLAS_CORETYPE={faked['candidates'][0]}" in stderr, \
        stderr
