"""scripts/gpu-check.sh, run here as the GPU machine would run it, against stand-ins.

The GPU machine is lent rarely and briefly, and only 8 files come back from it, so the script
must leave its findings whatever stops it. Here every tool it calls on a GPU machine
(nvidia-smi, nvcc, compute-sanitizer, the carried pack's binaries, the peer) is a stand-in that
answers at once or after a short sleep, so a whole run takes seconds and goes through every
phase. Then the run is killed (SIGKILL, as a lost machine; SIGTERM, as the tool's timeout) at
phases drawn at random, and what it left is checked: summary.md names the phases done and the
one it was in, at most 8 files are there, the logs of the phases done are packed.
"""
import os
import pathlib
import random
import re
import shutil
import signal
import stat
import subprocess
import sys
import tarfile
import time

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("PRECIS_SOURCE_DIR", pathlib.Path(__file__).parents[2]))
PHASES = ["probe", "build", "device", "op tests", "carried", "peer", "precis", "sanitizers"]


def executable(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


@pytest.fixture
def repo(tmp_path):
    """A copy of the script and what it reads, with stand-ins for the GPU machine's tools."""
    root = tmp_path / "repo"
    (root / "scripts/gpu").mkdir(parents=True)
    shutil.copy(SOURCE_DIR / "scripts/gpu-check.sh", root / "scripts/gpu-check.sh")
    shutil.copy(SOURCE_DIR / "scripts/gpu/libraries.sh", root / "scripts/gpu/libraries.sh")
    (root / "bench/gpu").mkdir(parents=True)
    for name in ("compare.py", "model_flops.py"):
        shutil.copy(SOURCE_DIR / "bench/gpu" / name, root / "bench/gpu" / name)
    nap = "sleep 0.4\n"
    (root / "bench/gpu/hf_peer.py").write_text(
        "import time\ntime.sleep(0.4)\n"
        'print(\'{"what": "gemm", "dtype": "bfloat16", "tflops": 790.0}\')\n')
    tools = tmp_path / "tools"
    executable(tools / "nvidia-smi", "#!/bin/sh\n"
               'case "$*" in *noheader*) echo "NVIDIA H200" ;;\n'
               '*) echo "name, memory.total"; echo "NVIDIA H200, 143771 MiB" ;; esac\n')
    # nvcc writes a program that sleeps and passes where the real one writes the device test.
    executable(tools / "nvcc", "#!/bin/sh\n"
               '[ "$1" = --version ] && { echo "Cuda compilation tools, release 13.0, V13.0.88"; exit 0; }\n'
               + nap + 'while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done\n'
               'printf "#!/bin/sh\\nsleep 0.4\\necho passed\\n" > "$out"; chmod +x "$out"\n')
    executable(tools / "compute-sanitizer", "#!/bin/sh\n"
               '[ "$1" = --version ] && { echo "Version 2025.3.0"; exit 0; }\n'
               'while [ "${1#--}" != "$1" ]; do shift 2; done\n"$@"\n'
               'echo "========= ERROR SUMMARY: 0 errors"\n')
    # The carried pack: the op tests, the benches and the smoke job.
    pack = tmp_path / "pack"
    executable(pack / "bin/precis_gpu_op_tests", "#!/bin/sh\n" + nap +
               'echo "[==========] 12 tests from 3 test suites ran. (400 ms total)"\n')
    executable(pack / "bin/precis_gpu_train_bench", "#!/bin/sh\n" + nap +
               'echo \'{"what": "train", "dtype": "\'$1\'", "batch": \'$2\', "source": \'$3\', "target": \'$4\', '
               '"step_ms": 100.0, "tokens_per_s": 1000, "peak_gib": 1.0}\'\n')
    executable(pack / "bin/precis_gpu_generate_bench", "#!/bin/sh\n" + nap +
               'echo \'{"what": "generate", "dtype": "fp32", "batch": \'$1\', "source": \'$2\', "seconds": 1.5}\'\n')
    executable(pack / "carried_smoke.sh", "#!/bin/sh\n" + nap + "echo 5.975847362390634\n")
    shutil.copy(SOURCE_DIR / "scripts/gpu/libraries.sh", pack / "libraries.sh")
    (pack / "smoke").mkdir()
    (pack / "smoke/expected_train_loss").write_text("5.975847362390634\n")
    (pack / "BUILD_INFO").write_text("commit test\nneeds glibc >= 2.34\n")
    (root / ".gpu-carry").mkdir()
    with tarfile.open(root / ".gpu-carry/precis-cpu.tar.xz", "w:xz") as tar:
        tar.add(pack, arcname=".")
    env = dict(os.environ, PATH=f"{tools}:{os.environ['PATH']}", OUT=str(tmp_path / "out"))
    return root, env, tmp_path / "out"


def start(repo):
    root, env, _ = repo
    return subprocess.Popen(["bash", str(root / "scripts/gpu-check.sh")], cwd=root, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)


def summary_rows(out):
    text = (out / "summary.md").read_text()
    return text, re.findall(r"^\| phase (\d) [^|]*\| (\w+) \|", text, re.M)


def check_left_behind(out, killed_in):
    """What a run killed in phase `killed_in` (1-based) must have left."""
    files = sorted(p.name for p in out.iterdir())
    assert len(files) <= 8, files
    assert "summary.md" in files
    text, rows = summary_rows(out)
    ended = [int(n) for n, state in rows if state == "ended"]
    started = [int(n) for n, state in rows if state == "started"]
    assert ended == list(range(1, killed_in)), text
    assert started[-1] == killed_in, text
    if killed_in > 1:  # the logs of the phases done were packed as each ended
        with tarfile.open(out / "logs.tar.gz") as tar:
            names = tar.getnames()
        assert "logs/probe.log" in names, names
    return text


def run_until_phase(repo, phase, signal_number):
    process = start(repo)
    for line in process.stdout:
        if line.startswith(f"=== phase {phase} "):
            time.sleep(random.uniform(0.05, 0.3))  # somewhere inside the phase's first step
            os.killpg(process.pid, signal_number)
            break
    process.stdout.read()
    return process.wait(timeout=60)


def test_a_whole_run_ends_with_every_phase_and_at_most_8_files(repo):
    process = start(repo)
    output = process.communicate(timeout=300)[0]
    assert process.returncode == 0, output
    out = repo[2]
    files = sorted(p.name for p in out.iterdir())
    assert files == ["logs.tar.gz", "peer.jsonl", "precis.jsonl", "summary.md", "tables.md"], files
    text, rows = summary_rows(out)
    assert [int(n) for n, state in rows if state == "ended"] == list(range(1, 9)), text
    assert "| end | finished |" in text
    assert "kind H200" in text
    # The op tests' filter covers the cuda0 cases and the tiny models' training and generation.
    with tarfile.open(out / "logs.tar.gz") as tar:
        names = tar.getnames()
    for log in ("op_tests.log", "tiny_models.log", "sanitizer_memcheck.log", "sanitizer_initcheck.log"):
        assert f"logs/{log}" in names, names
    # Measurements before sanitizers.
    assert output.index("=== phase 7 precis") < output.index("=== phase 8 sanitizers")


def test_killed_at_three_random_phases_it_names_the_phases_done(repo):
    seed = int(time.time())
    print(f"seed {seed}")
    phases = random.Random(seed).sample(range(2, 9), 3)
    for phase in phases:
        shutil.rmtree(repo[2], ignore_errors=True)
        run_until_phase(repo, phase, signal.SIGKILL)
        text = check_left_behind(repo[2], phase)
        print(f"killed (SIGKILL) in phase {phase} {PHASES[phase - 1]}:\n{text}")


def test_terminated_it_says_where(repo):
    shutil.rmtree(repo[2], ignore_errors=True)
    run_until_phase(repo, 5, signal.SIGTERM)
    text = check_left_behind(repo[2], 5)
    assert "| end | INTERRUPTED in phase 5 carried |" in text, text


def test_no_step_outlives_the_deadline(repo):
    root, env, out = repo
    # 6 s for everything: the phases that cannot get their minimum say so, and the run ends.
    started = time.monotonic()
    process = subprocess.run(["bash", str(root / "scripts/gpu-check.sh")], cwd=root,
                             env=dict(env, GPU_CHECK_SECONDS="6"), capture_output=True, text=True,
                             timeout=120)
    took = time.monotonic() - started
    text, rows = summary_rows(out)
    assert process.returncode == 0, process.stdout + process.stderr
    assert took < 6 + 10, f"{took:.1f} s"
    assert "skipped" in [state for _, state in rows], text
    assert "| end | finished |" in text
    assert len(list(out.iterdir())) <= 8


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-v"]))


def libraries_sh(code, tmp_path, **env):
    """Runs `code` in bash after sourcing scripts/gpu/libraries.sh; its standard output."""
    result = subprocess.run(["bash", "-c", f"source {SOURCE_DIR / 'scripts/gpu/libraries.sh'}; {code}"],
                            env=dict(os.environ, **env), capture_output=True, text=True, timeout=60, check=True)
    return result.stdout.strip()


def test_the_cuda_libraries_of_torchs_wheels_are_found_and_the_callers_path_kept(tmp_path):
    # torch's layout: the namespace package nvidia, one folder a library (nvidia/cu13/lib in CUDA 13).
    site = tmp_path / "site"
    lib = site / "nvidia/cu13/lib"
    lib.mkdir(parents=True)
    (lib / "libcudart.so.13").write_bytes(b"")
    (site / "nvidia/other/lib").mkdir(parents=True)  # holds none of them: not listed
    dirs = libraries_sh("gpu_library_dirs", tmp_path, PYTHONPATH=str(site)).splitlines()
    assert str(lib) in dirs and str(site / "nvidia/other/lib") not in dirs, dirs
    pack = tmp_path / "pack"
    (pack / "bin").mkdir(parents=True)
    path = libraries_sh(f"carried_library_path {pack}", tmp_path, PYTHONPATH=str(site),
                        LD_LIBRARY_PATH="/the/callers:/own/path").split(":")
    # The pack first, the caller's folders kept in their order, the machine's CUDA folders after.
    assert path[:3] == [str(pack / "lib"), "/the/callers", "/own/path"] and str(lib) in path[3:], path


def test_the_fallback_libstdcxx_is_used_only_where_the_systems_is_too_old(tmp_path):
    pack = tmp_path / "pack"
    (pack / "bin").mkdir(parents=True)
    (pack / "bin/precis").write_text("")
    (pack / "lib/fallback").mkdir(parents=True)
    tools = tmp_path / "tools"
    # ldd as it answers where the system's libstdc++ is older than the build's GCC.
    executable(tools / "ldd", "#!/bin/sh\necho \"$1: /lib/x86_64-linux-gnu/libstdc++.so.6: version "
               "\\`GLIBCXX_3.4.30' not found (required by $1)\"\n")
    old = libraries_sh(f"carried_library_path {pack}", tmp_path, PATH=f"{tools}:{os.environ['PATH']}",
                       LD_LIBRARY_PATH="")
    assert old.split(":")[-1] == str(pack / "lib/fallback"), old
    executable(tools / "ldd", "#!/bin/sh\necho \"\tlibstdc++.so.6 => /lib/x86_64-linux-gnu/libstdc++.so.6\"\n")
    new = libraries_sh(f"carried_library_path {pack}", tmp_path, PATH=f"{tools}:{os.environ['PATH']}",
                       LD_LIBRARY_PATH="")
    assert str(pack / "lib/fallback") not in new.split(":"), new
