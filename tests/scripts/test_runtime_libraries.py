"""scripts/container/runtime_libraries.py: the Dockerfile's runtime stage provides every shared
library `precis` loads, checked from the Debian package database (dpkg -S, apt-cache depends)
without a container runtime. A runtime stage that lacks a package (the image's first command
would fail with "error while loading shared libraries") is refused with the package's name."""
import os
import pathlib
import subprocess
import sys

SOURCE_DIR = pathlib.Path(os.environ.get("PRECIS_SOURCE_DIR", pathlib.Path(__file__).parents[2]))
BUILD_DIR = pathlib.Path(os.environ.get("PRECIS_BUILD_DIR", SOURCE_DIR / "build"))
CHECK = SOURCE_DIR / "scripts/container/runtime_libraries.py"


def check(dockerfile):
    return subprocess.run([sys.executable, str(CHECK), "--dockerfile", str(dockerfile), str(BUILD_DIR / "precis")],
                          capture_output=True, text=True, timeout=300)


def test_the_runtime_stage_provides_every_library_precis_loads():
    result = check(SOURCE_DIR / "Dockerfile")
    print(result.stdout)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "libcpp-httplib.so.0.11: libcpp-httplib0.11" in result.stdout


def test_a_runtime_stage_without_a_package_is_refused_by_name(tmp_path):
    # The runtime stage as it was: cpp-httplib (precis serve) and, through it, brotli missing.
    text = (SOURCE_DIR / "Dockerfile").read_text()
    assert " libcpp-httplib0.11 " in text
    dockerfile = tmp_path / "Dockerfile"
    dockerfile.write_text(text.replace(" libcpp-httplib0.11 ", " "))
    result = check(dockerfile)
    assert result.returncode == 1, result.stdout
    assert "libcpp-httplib0.11 (for libcpp-httplib.so.0.11)" in result.stderr, result.stderr
    assert "libbrotli1 (for libbrotlidec.so.1" in result.stderr, result.stderr
