"""Load and abuse test of `precis serve` on a tiny model, loopback only, bounded (< 30 s):

1. 64 concurrent clients for 20 s against a small queue: every request gets 200, except
   deliberate 503s (queue full, with Retry-After); p50/p99 latency and requests/s are
   printed; RSS after the load stays within a bound of RSS after warm-up.
2. 200 malformed or hostile requests (bad JSON, huge body, invalid UTF-8, wrong types,
   unknown parameters, path traversal, wrong methods, chunked bodies, oversized headers,
   deep nesting) each get the right 4xx or a closed connection, while slow clients that send
   half a request and stall are dropped; then the server still answers /health.
Summaries' equality with transformers is test_serve.py's job; here they only need to exist.
"""
import json
import os
import random
import statistics
import threading
import time

import pytest

from serve_support import Server, raw_exchange, request, start_stalled_clients
from bart_models import CNN, TEXTS, save_model

CLIENTS = 64
SECONDS = 20  # the issue: 64 clients for 20 s
MAX_QUEUE = 16
MAX_BODY = 64 * 1024


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    from conftest import train_tiny_bpe
    tok_dir = tmp_path_factory.mktemp("load_tokenizer")
    train_tiny_bpe(tok_dir)
    out = tmp_path_factory.mktemp("load_model") / "model"
    save_model(tok_dir, out, "narrow-gelu", 0, **CNN)
    return out


def client_loop(port, deadline, seed, results):
    import http.client
    rng = random.Random(seed)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    reused = False  # whether conn already carried a request
    while time.monotonic() < deadline:
        # Two parameter sets, so batches of each key form side by side.
        parameters = {"num_beams": 1, "max_length": 16} if rng.random() < 0.5 else {"num_beams": 2, "max_length": 12}
        inputs = rng.choice(TEXTS) if rng.random() < 0.8 else rng.sample(TEXTS, 2)
        body = json.dumps({"inputs": inputs, "parameters": parameters})
        started = time.monotonic()
        try:
            conn.request("POST", "/", body=body, headers={"Content-Type": "application/json"})
            res = conn.getresponse()
            payload = res.read()
            elapsed = time.monotonic() - started
        except (ConnectionError, http.client.HTTPException) as e:
            # The server may close a keep-alive connection once it has been idle for its
            # keep-alive timeout (2 s), and a request sent as it closes is reset unanswered:
            # a client sends it again on a new connection, as urllib3 does for a pooled one.
            # (On a loaded machine, or under a sanitizer, 64 client threads can leave one idle
            # that long.) A failure on a fresh connection is the server's.
            results.append(("stale keep-alive" if reused else "error", repr(e), 0.0))
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            reused = False
            continue
        reused = True
        if res.status == 200:
            out = json.loads(payload)
            ok = len(out) == (len(inputs) if isinstance(inputs, list) else 1) and all("summary_text" in o for o in out)
            results.append((200 if ok else "bad body", payload[:200], elapsed))
        elif res.status == 503:
            results.append((503, res.getheader("Retry-After"), elapsed))
            time.sleep(0.01)
        else:
            results.append((res.status, payload[:200], elapsed))
    conn.close()


def hostile_requests():
    """(description, raw request bytes, allowed outcomes: status codes, None = closed)."""
    def post(body, path="/", extra=b""):
        if isinstance(body, str):
            body = body.encode()
        return (b"POST " + path.encode() + b" HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: " + str(len(body)).encode() + b"\r\nConnection: close\r\n" + extra + b"\r\n" + body)

    def get(path, method=b"GET"):
        return method + b" " + path + b" HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"

    huge = json.dumps({"inputs": "x" * (MAX_BODY + 10)})
    cases = [
        ("bad JSON", post('{"inputs": "x",'), {400}),
        ("bad JSON 2", post("inputs=hello"), {400}),
        ("not an object", post('["x"]'), {400}),
        ("empty body", post(""), {400}),
        ("huge body", post(huge), {413, None}),
        ("invalid UTF-8", post(b'{"inputs": "caf\xe9 \xff\xfe"}'), {400}),
        ("overlong UTF-8", post(b'{"inputs": "\xc0\xaf"}'), {400}),
        ("wrong inputs type", post('{"inputs": 42}'), {400}),
        ("wrong list item", post('{"inputs": ["a", {"b": 1}]}'), {400}),
        ("wrong parameter type", post('{"inputs": "x", "parameters": {"num_beams": "4"}}'), {400}),
        ("negative parameter", post('{"inputs": "x", "parameters": {"max_length": -3}}'), {400}),
        ("unknown parameter", post('{"inputs": "x", "parameters": {"max_tokens": 3}}'), {400}),
        ("parameters not an object", post('{"inputs": "x", "parameters": "fast"}'), {400}),
        ("deep nesting", post('{"inputs": ' + "[" * 5000 + "]" * 5000 + "}"), {400}),
        ("too many beams", post('{"inputs": "x", "parameters": {"num_beams": 1000}}'), {400}),
        ("too long summary", post('{"inputs": "x", "parameters": {"max_new_tokens": 100000}}'), {400}),
        ("traversal in model name", post('{"inputs": "x"}', path="/models/../../etc/passwd"), {400, 404}),
        ("encoded traversal", get(b"/%2e%2e/%2e%2e/etc/passwd"), {400, 404}),
        ("encoded slash traversal", get(b"/models/..%2f..%2fetc%2fpasswd"), {400, 404, 405}),
        ("plain traversal", get(b"/../../../../etc/passwd"), {400, 404}),
        ("NUL in path", get(b"/health%00.txt"), {400, 404}),
        ("unknown route", get(b"/admin"), {404}),
        ("wrong method on /", get(b"/", b"DELETE"), {405}),
        ("wrong method on /health", get(b"/health", b"PUT"), {405}),
        ("GET on a model", get(b"/models/user/tiny"), {405}),
        ("chunked body", b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                         b"5\r\n{\"inp\r\n0\r\n\r\n", {411, 400}),
        ("oversized header", b"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 20000 + b"\r\n\r\n", {400, 431, None}),
        ("garbage request line", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 64 + b"\r\n\r\n", {400, None}),
        ("overlong URI", get(b"/" + b"a" * 20000), {414, 400, None}),
    ]
    return cases


def test_load_then_hostile_requests(model_dir, capsys):
    with Server(model_dir, "--max_queue", MAX_QUEUE, "--max_batch_size", 8, "--batch_wait_ms", 5,
                "--max_body_bytes", MAX_BODY, "--read_timeout_s", 2, "--http_threads", 96) as server:
        port = server.port
        # Warm-up: the first batches allocate the model's working memory.
        for parameters in ({"num_beams": 1, "max_length": 16}, {"num_beams": 2, "max_length": 12}):
            assert request(port, "POST", "/", json.dumps({"inputs": TEXTS, "parameters": parameters}))[0] == 200
        rss_start = server.rss_kib()

        results = []
        deadline = time.monotonic() + SECONDS
        started = time.monotonic()
        threads = [threading.Thread(target=client_loop, args=(port, deadline, i, results)) for i in range(CLIENTS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.monotonic() - started
        rss_end = server.rss_kib()

        ok = [r for r in results if r[0] == 200]
        busy = [r for r in results if r[0] == 503]
        stale = [r for r in results if r[0] == "stale keep-alive"]
        failed = [r for r in results if r[0] not in (200, 503, "stale keep-alive")]
        latencies = sorted(r[2] for r in ok)
        p50 = statistics.median(latencies)
        p99 = latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))]
        with capsys.disabled():  # shown in ctest's log even when the test passes
            print(f"\nload: {CLIENTS} clients, {wall:.1f} s: {len(ok)} ok, {len(busy)} busy (503), {len(failed)} failed, {len(stale)} retried (idle keep-alive closed); "
                  f"{len(ok) / wall:.1f} requests/s; latency p50 {p50 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms; "
                  f"RSS {rss_start / 1024:.1f} MiB after warm-up, {rss_end / 1024:.1f} MiB after load")
        assert not failed, failed[:5]
        # Idle closes are the exception even then, not the server dropping connections.
        assert len(stale) <= max(3, len(ok) // 20), stale[:5]
        assert ok, "no request succeeded"
        assert all(r[1] == "1" for r in busy), "a 503 without Retry-After"
        # Bounded memory: nothing per request is kept (a leak of even 1 KiB per request
        # would pass 64 MiB over the thousands of requests above only if they were 65,000+).
        # Under a sanitizer (scripts/sanitize.sh) RSS grows by design (ASan's quarantine and
        # shadow memory, TSan's history); LeakSanitizer checks for leaks there instead.
        if not os.environ.get("PRECIS_SANITIZER"):
            assert rss_end - rss_start < 64 * 1024, f"RSS grew from {rss_start} KiB to {rss_end} KiB"

        status, _, body = request(port, "GET", "/metrics")
        metrics = body.decode()
        assert 'precis_requests_total{route="/",code="200"}' in metrics
        if busy:
            assert 'precis_requests_total{route="/",code="503"}' in metrics

        # Abuse: slow clients stall in the background while 200 hostile requests go in.
        stalled, stalled_results = start_stalled_clients(port, [
            b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"inputs\": ",
            b"GET /hea",
            b"POST / HTTP/1.1\r\nHost: x\r\n",
            # Declares a body far over the limit and never sends it.
            b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999\r\n\r\n{",
        ])
        cases = hostile_requests()
        outcomes = []
        for i in range(200):
            name, data, allowed = cases[i % len(cases)]
            got = raw_exchange(port, data)
            outcomes.append((name, got, allowed))
        wrong = [(n, g, a) for n, g, a in outcomes if g not in a]
        assert not wrong, wrong[:10]
        for t in stalled:
            t.join()
        # Each stalled client is cut off by the server (its read timeout is 2 s), with a 4xx
        # or a closed connection, never left hanging until the client's own 30 s timeout.
        assert len(stalled_results) == 4
        for status, closed_by_server, _ in stalled_results:
            assert closed_by_server and (status is None or 400 <= status < 500), stalled_results

        assert request(port, "GET", "/health")[0] == 200
        status, _, body = request(port, "POST", "/", json.dumps({"inputs": "Hello world", "parameters": {"num_beams": 1}}))
        assert status == 200 and json.loads(body)[0]["summary_text"] is not None
        assert server.stop() == 0
