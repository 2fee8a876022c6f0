"""`precis publish` end to end with real git and git-lfs: a tiny model directory (made by
transformers' save_pretrained and a tokenizer trained by HF tokenizers, plus a TensorBoard event
file) is pushed to a local bare repository over git-lfs's standalone file transfer, cloned back
and compared byte for byte; the weights and event file are LFS objects (pointers in the git tree,
contents in the remote's LFS store); the access token given through the environment appears in
no file under either .git and in nothing precis prints, even when the remote echoes it. A
Hub-like HTTP server (Basic auth, git http-backend, an LFS endpoint) checks that git and git-lfs
both receive the token, and that the user's own credential store never sees it. The model card
is `precis card`'s with a non-ASCII line added; as pushed, huggingface_hub's own card parser (what
the Hub runs on a pushed README.md, refusing metadata it cannot read) reads its metadata and
evaluation results."""
import base64
import hashlib
import http.server
import os
import pathlib
import subprocess
import threading

import pytest
from huggingface_hub import ModelCard
from huggingface_hub.repocard import metadata_load

from bart_models import make_bart
from conftest import run_precis, train_tiny_bpe

TOKEN = "hf_PrecisTestTokenDoNotLeak" + hashlib.sha256(b"precis").hexdigest()[:12]
EXCLUDED = ["checkpoint-2/model.safetensors", "_private/notes.txt", ".model.safetensors.tmp-abc123"]


def git(*args, cwd=None, env=None, check=True):
    r = subprocess.run(["git", *map(str, args)], cwd=cwd, env=env, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise AssertionError(f"git {' '.join(map(str, args))} failed:\n{r.stdout}{r.stderr}")
    return r


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("models") / "bart-tiny-samsum"
    tok = train_tiny_bpe(d)
    make_bart("narrow-gelu", len(tok)).save_pretrained(d, safe_serialization=True)
    (d / "trainer_state.json").write_text('{"global_step": 2, "log_history": []}\n')
    (d / "eval_results.json").write_text('{"eval_loss": 2.5, "eval_rouge1": 30.1, "eval_rougeLsum": 28.4}\n')
    run_precis("card", "--model", d, "--dataset", "samsum")  # README.md
    with open(d / "README.md", "ab") as f:  # non-ASCII text must arrive byte for byte
        f.write("\n# bart-tiny-samsum ✓ — déjà vu\n".encode())
    runs = d / "runs" / "May31_12-00-00_testhost"
    runs.mkdir(parents=True)
    # A stand-in event file: LFS must carry it whatever its bytes are.
    (runs / "events.out.tfevents.1717171717.testhost.4242.0").write_bytes(os.urandom(3000) + b"\0\r\n\xff")
    for rel in EXCLUDED:
        (d / rel).parent.mkdir(parents=True, exist_ok=True)
        (d / rel).write_bytes(b"not published")
    return d


@pytest.fixture
def home(tmp_path):
    """An isolated HOME whose git config asks for git-lfs's standalone file transfer (what file://
    remotes need: no LFS server) and stores credentials in ~/.git-credentials (which must stay
    free of the token)."""
    h = tmp_path / "home"
    h.mkdir()
    (h / ".gitconfig").write_text("[lfs]\n\tstandalonetransferagent = lfs-standalone-file\n"
                                  "[credential]\n\thelper = store\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(HOME=str(h), XDG_CONFIG_HOME=str(h / ".config"), GIT_CONFIG_NOSYSTEM="1", HF_TOKEN=TOKEN)
    return env


@pytest.fixture
def bare_remote(tmp_path):
    remote = tmp_path / "remote.git"
    git("init", "-q", "--bare", "--initial-branch=main", remote)
    return remote


def publish(model, repo, env, *args, check=True):
    return run_precis("publish", "--model", model, "--repo", repo, *args, env=env, check=check)


def clone(remote, dest, env, branch="main"):
    lfs_env = dict(env)
    git("lfs", "install", "--skip-repo", env=lfs_env)  # smudge filter in the test HOME, for the clone
    git("clone", "-q", "--branch", branch, f"file://{remote}", dest, env=lfs_env)
    return dest


def files_under(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and ".git" not in p.relative_to(root).parts[:1])


def assert_token_absent(*roots):
    for root in roots:
        for p in pathlib.Path(root).rglob("*"):
            if p.is_file():
                assert TOKEN.encode() not in p.read_bytes(), f"token written to {p}"


def test_round_trip_through_lfs(model_dir, bare_remote, home, tmp_path):
    message = "Add tiny BART fine-tuned on SAMSum ✓ (\"quotes\" and $HOME stay literal)"
    r = publish(model_dir, f"file://{bare_remote}", home, "--commit_message", message)
    remote_url, branch, commit = r.stdout.split()
    assert (remote_url, branch) == (f"file://{bare_remote}", "main")
    assert TOKEN not in r.stdout + r.stderr

    back = clone(bare_remote, tmp_path / "back", home)
    expected = sorted(set(files_under(model_dir)) - set(EXCLUDED)) + [".gitattributes"]
    assert files_under(back) == sorted(expected)
    for rel in files_under(model_dir):
        if rel not in EXCLUDED:
            assert (back / rel).read_bytes() == (model_dir / rel).read_bytes(), rel
    assert "✓".encode() in (back / "README.md").read_bytes()
    assert git("rev-parse", "HEAD", cwd=back).stdout.strip() == commit
    assert git("log", "-1", "--format=%B", cwd=back).stdout.strip() == message

    # The pushed card as the Hub reads it: huggingface_hub's parser (strict: a model-index it
    # cannot turn into EvalResults is a ValueError) finds the metadata precis wrote, and the
    # evaluation results.
    pushed = ModelCard((back / "README.md").read_text(encoding="utf-8"))
    assert pushed.data.to_dict() == metadata_load(model_dir / "README.md")
    assert {e.metric_name: e.metric_value for e in pushed.data.eval_results} == {
        "Rouge1": 30.1, "Rougelsum": 28.4, "Loss": 2.5}

    # Weights and event file are LFS objects: pointers in git, contents in the remote's LFS store.
    event_file = "runs/May31_12-00-00_testhost/events.out.tfevents.1717171717.testhost.4242.0"
    lfs_files = sorted(git("lfs", "ls-files", "--name-only", cwd=back).stdout.split())
    assert lfs_files == sorted(["model.safetensors", event_file])
    for rel in lfs_files:
        data = (model_dir / rel).read_bytes()
        oid = hashlib.sha256(data).hexdigest()
        pointer = git("cat-file", "-p", f"HEAD:{rel}", cwd=back).stdout
        assert pointer == f"version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize {len(data)}\n"
        assert (bare_remote / "lfs" / "objects" / oid[:2] / oid[2:4] / oid).read_bytes() == data
    assert git("cat-file", "-p", "HEAD:config.json", cwd=back).stdout == (model_dir / "config.json").read_text()

    # The Hub's patterns: weights, archives and event files through LFS; text files in git.
    names = ["pytorch_model.bin", "a.pt", "a.pth", "a.ckpt", "tf_model.h5", "flax_model.msgpack", "model.onnx",
             "a.tar.gz", "a.zip", "spiece.model", "events.out.tfevents.1.host", "saved_model/variables/x"]
    text = ["config.json", "README.md", "tokenizer.json", "vocab.json", "merges.txt", "train_log.jsonl"]
    attrs = git("check-attr", "filter", "--", *names, *text, cwd=back).stdout.splitlines()
    assert attrs == [f"{n}: filter: lfs" for n in names] + [f"{n}: filter: unspecified" for n in text]

    assert_token_absent(back / ".git", bare_remote, home["HOME"])


def test_republish_and_new_branch(model_dir, bare_remote, home, tmp_path):
    first = publish(model_dir, str(bare_remote), home).stdout.split()[2]
    again = publish(model_dir, str(bare_remote), home)
    assert again.stdout.split()[2] == first and "nothing to push" in again.stderr

    changed = tmp_path / "changed"
    subprocess.run(["cp", "-r", model_dir, changed], check=True)
    (changed / "README.md").write_text("# changed card\n")
    second = publish(changed, f"file://{bare_remote}", home, "--branch", "v2").stdout.split()[2]
    heads = git("ls-remote", "--heads", bare_remote).stdout
    assert f"{first}\trefs/heads/main" in heads and f"{second}\trefs/heads/v2" in heads
    # A new branch starts from the default branch's head.
    assert git("rev-parse", f"{second}^", cwd=bare_remote).stdout.strip() == first
    back = clone(bare_remote, tmp_path / "back-v2", home, branch="v2")
    assert (back / "README.md").read_text() == "# changed card\n"
    assert (back / "model.safetensors").read_bytes() == (model_dir / "model.safetensors").read_bytes()


def test_rejected_push_shows_git_message_without_token(model_dir, bare_remote, home):
    hook = bare_remote / "hooks" / "pre-receive"
    hook.write_text('#!/bin/sh\necho "refusing this push; I was given $HF_TOKEN" >&2\nexit 1\n')
    hook.chmod(0o755)
    r = publish(model_dir, f"file://{bare_remote}", home, check=False)
    assert r.returncode != 0
    assert "rejected" in r.stderr and "refusing this push; I was given ***" in r.stderr
    assert TOKEN not in r.stdout + r.stderr


def test_clear_errors(model_dir, tmp_path, home):
    r = publish(model_dir, f"file://{tmp_path}/no-such-repo.git", home, check=False)
    assert r.returncode != 0 and "cannot reach" in r.stderr and "no-such-repo.git" in r.stderr

    incomplete = tmp_path / "incomplete"
    incomplete.mkdir()
    (incomplete / "model.safetensors").write_bytes(b"x")
    r = publish(incomplete, tmp_path, home, check=False)
    assert r.returncode != 0 and "config.json is missing" in r.stderr
    (incomplete / "config.json").write_text("{}")
    (incomplete / "model.safetensors").unlink()
    r = publish(incomplete, tmp_path, home, check=False)
    assert r.returncode != 0 and "no weights" in r.stderr

    no_git = dict(home, PATH=str(tmp_path / "empty-bin"))
    r = publish(model_dir, tmp_path, no_git, check=False)
    assert r.returncode != 0 and "apt-get install git)" in r.stderr
    git_only = tmp_path / "git-only-bin"
    git_only.mkdir()
    (git_only / "git").symlink_to(subprocess.run(["which", "git"], capture_output=True, text=True).stdout.strip())
    r = publish(model_dir, tmp_path, dict(home, PATH=str(git_only)), check=False)
    assert r.returncode != 0 and "apt-get install git-lfs" in r.stderr

    r = publish(model_dir, tmp_path, dict(home, PATH=os.environ["PATH"]), "--token_env", "NOT A NAME", check=False)
    assert r.returncode != 0 and "--token_env" in r.stderr


class HubLikeServer(http.server.BaseHTTPRequestHandler):
    """A git server at /<user>/<repo> as the Hub has them: HTTP Basic auth on every request, git's
    smart protocol by `git http-backend` over a bare repository, and an LFS batch endpoint at
    <repo>.git/info/lfs that takes no uploads (so the push fails after git-lfs has authenticated).
    Records each request's path and Authorization header."""
    seen = []
    repo_root = None

    def _handle(self):
        self.seen.append((self.path, self.headers.get("Authorization")))
        body = self._body()
        if self.headers.get("Authorization") is None:
            self._reply(401, {"WWW-Authenticate": 'Basic realm="hub"', "LFS-Authenticate": 'Basic realm="hub"'})
        elif "/info/lfs/" in self.path:
            self._reply(403, {"Content-Type": "application/vnd.git-lfs+json"}, b'{"message": "no uploads here"}')
        else:
            self._git_http_backend(body)

    def _body(self):
        if self.headers.get("Transfer-Encoding") != "chunked":
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = b""
        while True:
            size = int(self.rfile.readline().split(b";")[0], 16)
            chunk = self.rfile.read(size + 2)[:size]  # each chunk ends with CRLF
            if size == 0:
                return body
            body += chunk

    def _git_http_backend(self, body):
        path, _, query = self.path.partition("?")
        env = dict(os.environ, GIT_PROJECT_ROOT=str(self.repo_root), GIT_HTTP_EXPORT_ALL="1", PATH_INFO=path,
                   QUERY_STRING=query, REQUEST_METHOD=self.command, REMOTE_USER="hf_user",
                   CONTENT_TYPE=self.headers.get("Content-Type", ""), CONTENT_LENGTH=str(len(body)),
                   HTTP_CONTENT_ENCODING=self.headers.get("Content-Encoding", ""),
                   GIT_PROTOCOL=self.headers.get("Git-Protocol", ""))
        out = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True).stdout
        head, _, payload = out.partition(b"\r\n\r\n")
        headers = dict(line.split(": ", 1) for line in head.decode().split("\r\n") if line)
        status = int(headers.pop("Status", "200").split()[0])
        self._reply(status, headers, payload)

    def _reply(self, status, headers, payload=b""):
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = _handle

    def log_message(self, *args):
        pass


def test_token_reaches_git_and_git_lfs_over_http_and_is_stored_nowhere(model_dir, home, tmp_path):
    HubLikeServer.seen, HubLikeServer.repo_root = [], tmp_path / "srv"
    # LFS over HTTP here: the file-transfer setting of the other tests would divert it.
    (pathlib.Path(home["HOME"]) / ".gitconfig").write_text("[credential]\n\thelper = store\n")
    git("init", "-q", "--bare", "--initial-branch=main", tmp_path / "srv" / "me" / "bart-tiny")
    git("config", "http.receivepack", "true", cwd=tmp_path / "srv" / "me" / "bart-tiny")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), HubLikeServer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        env = dict(home, MY_WRITE_TOKEN=TOKEN)
        del env["HF_TOKEN"]
        url = f"http://127.0.0.1:{server.server_address[1]}/me/bart-tiny"
        r = publish(model_dir, url, env, "--token_env", "MY_WRITE_TOKEN", check=False)
    finally:
        server.shutdown()
        server.server_close()
    assert r.returncode != 0 and "rejected" in r.stderr  # the LFS endpoint takes no uploads
    assert TOKEN not in r.stdout + r.stderr
    expected = "Basic " + base64.b64encode(f"hf_user:{TOKEN}".encode()).decode()
    authorized = [(path, auth) for path, auth in HubLikeServer.seen if auth is not None]
    assert authorized and all(auth == expected for _, auth in authorized)
    assert any("/info/refs?service=git-upload-pack" in path for path, _ in authorized)  # git
    assert any(path.endswith("/bart-tiny.git/info/lfs/objects/batch") for path, _ in authorized)  # git-lfs
    # The user's credential store (helper = store in the test HOME) was bypassed.
    assert not (pathlib.Path(home["HOME"]) / ".git-credentials").exists()
    assert_token_absent(home["HOME"], tmp_path / "srv")
