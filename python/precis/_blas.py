"""OpenBLAS's kernels for this CPU, chosen before the library loads.

OpenBLAS picks its kernels (its "core") once, as it loads, by CPU model, and an OpenBLAS older
than the CPU falls back to its oldest x86-64 kernels (Prescott), 2.5-2.9x slower. The command
line restarts itself with OPENBLAS_CORETYPE set (src/precis/kernels/cpu/blas_core.h); Python
cannot restart the interpreter, so before the extension module (which links OpenBLAS) loads, a
short subprocess loads it and reports the core OpenBLAS takes and the ones the CPU could run,
and OPENBLAS_CORETYPE is set for this process when a better one exists. Where OpenBLAS is
already loaded (by another module that links the same library), its choice is made: precis
says so, and what to set before starting Python. PRECIS_BLAS_CHECK=off keeps OpenBLAS's choice;
a user's own OPENBLAS_CORETYPE always stands.
"""
import json
import os
import pathlib
import subprocess
import sys


def _openblas_loaded():
    try:
        return "libopenblas" in pathlib.Path("/proc/self/maps").read_text()
    except OSError:
        return False


def choose_before_load():
    """Sets OPENBLAS_CORETYPE when OpenBLAS would run a core below the CPU's; returns what the
    warning after the load must say, or None."""
    check = os.environ.get("PRECIS_BLAS_CHECK", "")
    if check == "off" or (os.environ.get("OPENBLAS_CORETYPE") and check != "force"):
        return None
    if _openblas_loaded():
        return "OpenBLAS was loaded before precis (by another module), so its kernels are chosen"
    # The folder the package was imported from (not resolved: a build links its .py files).
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.pathsep.join([package_parent] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    try:
        probe = subprocess.run([sys.executable, "-c", "import json, precis._precis as p; print(json.dumps(p.blas_report()))"],
                               env=dict(os.environ, PRECIS_BLAS_CHECK="off", PYTHONPATH=path), capture_output=True,
                               text=True, timeout=120)
        report = json.loads(probe.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        return "the check of OpenBLAS's kernels could not run (a subprocess of this Python failed)"
    if report["candidates"] and report["candidate_levels"][0] > report["core_level"]:
        best = report["candidates"][0]
        os.environ["OPENBLAS_CORETYPE"] = best
        os.environ["PRECIS_BLAS_TRIED"] = f"{report['core']}>{best}"  # blas_report: chosen by precis
    return None


def warn_after_load(why, report):
    """precis's line on stderr when OpenBLAS runs kernels below the CPU's and it could not help."""
    if why and report["candidates"] and report["core_level"] < report["candidate_levels"][0]:
        best = report["candidates"][0]
        print(f"precis: {why}: it runs its {report['core']} kernels, and this CPU ({report['cpu']}) can run "
              f"{best}'s: set OPENBLAS_CORETYPE={best} before starting Python", file=sys.stderr)
