"""`pip install .` from a fresh clone into a fresh venv (scikit-build-core over the project's
CMake, unity build, no CUDA, no tests) and `import precis` from outside the source tree: its
tokenizer and ROUGE equal transformers' and rouge_score's. The build's time is printed (pytest -s shows it) and written to
PRECIS_BUILD_DIR/python_pip_install_seconds.txt. The type stubs are installed with it."""
import json
import os
import subprocess
import sys
import time

from rouge_score import rouge_scorer
from transformers import AutoTokenizer

from conftest import BUILD_DIR, SOURCE_DIR, UNICODE_CORPUS

# --config-settings (Debian 12's pip 23.0 has no -C).
OPTIONS = ["--config-settings=cmake.define.PRECIS_UNITY_BUILD=ON", "--config-settings=cmake.define.PRECIS_CUDA=OFF",
           "--config-settings=cmake.define.PRECIS_TESTS=OFF"]


def run(cmd, **kwargs):
    result = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kwargs)
    assert result.returncode == 0, f"{cmd} failed:\n{result.stdout[-3000:]}\n{result.stderr[-5000:]}"
    return result


def test_pip_install_from_a_fresh_clone_and_import_outside(tmp_path, tiny_bpe_dir):
    clone, venv = tmp_path / "clone", tmp_path / "venv"
    head = run(["git", "-C", SOURCE_DIR, "rev-parse", "HEAD"]).stdout.strip()
    run(["git", "clone", "-q", SOURCE_DIR, clone])
    run(["git", "-C", clone, "checkout", "-q", head])
    run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", venv])
    pip = [venv / "bin" / "python", "-m", "pip", "--disable-pip-version-check"]
    env = dict(os.environ)
    env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
    start = time.monotonic()
    run([*pip, "install", "-q", clone, *OPTIONS], env=env, timeout=1800)
    seconds = time.monotonic() - start
    print(f"pip install . built and installed precis in {seconds:.0f} s")
    (BUILD_DIR / "python_pip_install_seconds.txt").write_text(f"{seconds:.0f}\n")
    texts = UNICODE_CORPUS + ["The quick brown fox jumps over the lazy dog."]
    probe = f"""
import json, precis
tok = precis.AutoTokenizer.from_pretrained({str(tiny_bpe_dir)!r})
texts = json.loads({json.dumps(texts)!r})
import pathlib
typing_files = sorted(p.name for p in pathlib.Path(precis.__file__).parent.iterdir() if p.suffix in (".pyi", ".typed"))
print(json.dumps(dict(file=precis.__file__, typing_files=typing_files, ids=tok(texts)["input_ids"],
                      rouge=precis.rouge(["the fox jumps"], ["a quick fox jumped"], use_stemmer=True,
                                         use_aggregator=False))))
"""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PRECIS_PYTHON_PATH")}
    out = json.loads(run([venv / "bin" / "python", "-c", probe], cwd=tmp_path, env=env).stdout)
    assert out["file"].startswith(str(venv)), out["file"]
    assert out["typing_files"] == ["__init__.pyi", "py.typed"]  # the stubs ship with the package
    assert out["ids"] == AutoTokenizer.from_pretrained(tiny_bpe_dir)(texts)["input_ids"]
    score = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], use_stemmer=True).score(
        "a quick fox jumped", "the fox jumps")
    assert out["rouge"] == {k: [v.fmeasure] for k, v in score.items()}
