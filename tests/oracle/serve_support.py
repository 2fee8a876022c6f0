"""Starting and stopping `precis serve` for the server's oracle tests, and raw HTTP on loopback."""
import json
import os
import re
import signal
import socket
import subprocess
import threading
import time

from conftest import precis_binary


class Server:
    """`precis serve --port 0 ...` (or `binary serve ...`) in the background; the port is read
    from its first line."""

    def __init__(self, model_dir, *args, env=None, binary="precis"):
        cmd = [precis_binary(binary), "serve", "--model", str(model_dir), "--port", "0", *map(str, args)]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env={**os.environ, **(env or {})})
        line = self.proc.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        if not match:
            self.proc.kill()
            raise AssertionError(f"precis serve did not start: {line}{self.proc.stderr.read()}")
        self.port = int(match.group(1))
        self.stdout_lines = [line]
        self.stderr = ""

    def rss_kib(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            return int(next(line for line in f if line.startswith("VmRSS:")).split()[1])

    def stop(self, timeout=30):
        """SIGTERM, then the exit code (the test asserts on it) and everything it printed."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            out, err = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, err = self.proc.communicate()
            raise AssertionError(f"precis serve did not stop within {timeout} s after SIGTERM:\n{err}")
        self.stdout_lines.append(out)
        self.stderr = err
        return self.proc.returncode

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.stop()


def request(port, method, path, body=None, headers=None, timeout=60):
    """One HTTP/1.1 request on a fresh connection: (status, headers dict, body bytes)."""
    import http.client
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
        if isinstance(body, str):
            body = body.encode()
        conn.request(method, path, body=body, headers=headers or {})
        res = conn.getresponse()
        return res.status, {k.lower(): v for k, v in res.getheaders()}, res.read()
    finally:
        conn.close()


def post_json(port, payload, path="/", headers=None, timeout=60):
    status, hdrs, body = request(port, "POST", path, payload, {"Content-Type": "application/json", **(headers or {})},
                                 timeout=timeout)
    return status, json.loads(body) if body else None, hdrs


def metric(port, name):
    """The value of one unlabelled sample on /metrics (a gauge, or a histogram's _sum / _count)."""
    status, _, body = request(port, "GET", "/metrics")
    assert status == 200, body
    for line in body.decode().splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"{name} not on /metrics:\n{body.decode()}")


def wait_for_queue_depth(port, depth, proc, timeout=60):
    """Polls /metrics until `depth` requests wait in the batcher (with the server started under
    PRECIS_TEST_HOLD_FIRST_BATCH they stay there until it has enough, or stops)."""
    deadline = time.monotonic() + timeout
    while metric(port, "precis_queue_depth") < depth:
        assert proc.poll() is None and time.monotonic() < deadline, f"the queue never held {depth} requests"
        time.sleep(0.01)


def raw_exchange(port, data, timeout=10, read_limit=1 << 16):
    """Sends raw bytes, then reads until the server closes or `timeout`: the status code of the
    first response, or None when the connection was closed with no response."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        try:
            s.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass
        received = b""
        try:
            while len(received) < read_limit and b"\r\n\r\n" not in received:
                chunk = s.recv(4096)
                if not chunk:
                    break
                received += chunk
        except (ConnectionResetError, socket.timeout):
            pass
    match = re.match(rb"HTTP/1\.[01] (\d{3})", received)
    return int(match.group(1)) if match else None


def stalled_client(port, partial, results, timeout=30):
    """Sends part of a request and stalls; records how the server ends it (status or None)
    and whether it did so before `timeout`."""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(partial)
        try:
            data = s.recv(4096)
        except (ConnectionResetError, socket.timeout):
            data = None
    match = re.match(rb"HTTP/1\.[01] (\d{3})", data or b"")
    results.append((int(match.group(1)) if match else None, data is not None, time.monotonic() - started))


def start_stalled_clients(port, partials):
    results = []
    threads = [threading.Thread(target=stalled_client, args=(port, p, results)) for p in partials]
    for t in threads:
        t.start()
    return threads, results
