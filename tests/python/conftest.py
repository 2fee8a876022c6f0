"""The Python package's tests: precis (the package built in PRECIS_BUILD_DIR/python, or the
one installed) beside Hugging Face run live, on the oracle tests' tiny checkpoints. The oracle
tests' fixtures and helpers (tests/oracle) are shared: this conftest re-exports theirs, so
their `from conftest import ...` finds them here too."""
import importlib.util
import os
import pathlib
import sys

ORACLE_DIR = pathlib.Path(__file__).resolve().parents[1] / "oracle"
sys.path.insert(0, str(ORACLE_DIR))
_spec = importlib.util.spec_from_file_location("oracle_conftest", ORACLE_DIR / "conftest.py")
_oracle = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_oracle)
globals().update({k: v for k, v in vars(_oracle).items() if not k.startswith("_")})

# One OpenBLAS core for every side of a comparison: Debian's torch links the same OpenBLAS and
# loads it before precis can choose its kernels (python/precis/_blas.py then says so), while the
# command line chooses for itself. So the core the command line would choose is set for the whole
# session before torch loads, and precis.train and `precis train` compute the same bits.
if "OPENBLAS_CORETYPE" not in os.environ:
    import re
    import subprocess
    _info = subprocess.run([_oracle.precis_binary(), "info"], capture_output=True, text=True).stdout
    _core = re.search(r"^BLAS core: (\w+)", _info, re.M)
    if _core:
        os.environ["OPENBLAS_CORETYPE"] = _core.group(1)

# The package as the build made it (build/python/precis: the module beside links to
# python/precis/*.py); PRECIS_PYTHON_PATH="" leaves the interpreter's own (an installed one).
PACKAGE_PARENT = os.environ.get("PRECIS_PYTHON_PATH", str(_oracle.BUILD_DIR / "python"))
if PACKAGE_PARENT:
    sys.path.insert(0, PACKAGE_PARENT)
