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

# The package as the build made it (build/python/precis: the module beside links to
# python/precis/*.py); PRECIS_PYTHON_PATH="" leaves the interpreter's own (an installed one).
PACKAGE_PARENT = os.environ.get("PRECIS_PYTHON_PATH", str(_oracle.BUILD_DIR / "python"))
if PACKAGE_PARENT:
    sys.path.insert(0, PACKAGE_PARENT)
