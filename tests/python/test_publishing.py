"""precis.publish against `precis publish` (whose pushes the oracle test test_publish checks
through real git and git-lfs, without network: local bare repositories and git-lfs's standalone
file transfer): the same model directory pushed by each to its own bare repository gives the
same git tree and the same LFS objects; the result names what was pushed; the command's
messages arrive as precis.Error."""
import os

import pytest

import precis
from test_publish import TOKEN, bare_remote, git, home, model_dir, publish  # noqa: F401 (fixtures)


@pytest.fixture
def home_env(home, monkeypatch):
    """The oracle test's isolated HOME and HF_TOKEN as this process's environment, which the
    library's git processes inherit."""
    for name in list(os.environ):
        if name not in home:
            monkeypatch.delenv(name)
    for name, value in home.items():
        monkeypatch.setenv(name, value)
    return home


def lfs_store(remote):
    root = remote / "lfs" / "objects"
    return sorted((str(p.relative_to(root)), p.read_bytes()) for p in root.rglob("*") if p.is_file())


def test_publish_equals_precis_publish(model_dir, bare_remote, home_env, tmp_path):
    cli_remote = tmp_path / "cli.git"
    git("init", "-q", "--bare", "--initial-branch=main", cli_remote)
    publish(model_dir, f"file://{cli_remote}", home_env, "--commit_message", "tiny model")
    lines = []
    r = precis.publish(model_dir, f"file://{bare_remote}", commit_message="tiny model", progress=lines.append)
    assert (r.remote, r.branch, r.pushed) == (f"file://{bare_remote}", "main", True)
    assert r.commit == git("rev-parse", "main", cwd=bare_remote).stdout.strip()
    tree = "main^{tree}"
    assert git("rev-parse", tree, cwd=bare_remote).stdout == git("rev-parse", tree, cwd=cli_remote).stdout
    assert lfs_store(bare_remote) == lfs_store(cli_remote) and lfs_store(bare_remote)
    assert "model.safetensors" in r.files and "_private/notes.txt" not in r.files
    assert "model.safetensors" in r.lfs_files and "config.json" not in r.lfs_files
    assert all(TOKEN not in line for line in lines)

    again = precis.publish(model_dir, str(bare_remote), commit_message="tiny model", progress=None)
    assert (again.pushed, again.commit) == (False, r.commit)


def test_errors_are_the_commands(tmp_path, home_env):
    incomplete = tmp_path / "incomplete"
    incomplete.mkdir()
    (incomplete / "model.safetensors").write_bytes(b"x")
    cli = publish(incomplete, tmp_path, home_env, check=False)
    assert cli.returncode != 0
    with pytest.raises(precis.Error) as e:
        precis.publish(incomplete, tmp_path)
    assert str(e.value) == cli.stderr.strip().splitlines()[-1].removeprefix("precis: error: ")
    assert "config.json is missing" in str(e.value)
