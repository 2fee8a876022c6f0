"""`precis serve` against transformers: the summaries the server returns equal
model.generate() + tokenizer.decode(skip_special_tokens=True) for the same parameters
(greedy and beam, one string and a list), also when concurrent requests with different
parameters share one batching window, inputs past the limit are truncated as the tokenizer
truncates or refused as asked, the bearer token is enforced and never printed, and SIGTERM
lets a request in flight finish before the server exits 0.

Requests are placed in the batching window by PRECIS_TEST_HOLD_FIRST_BATCH (a test hook of
the server: its first batch waits until that many requests are queued), not by sleeping.
"""
import json
import threading

import pytest
import torch

from serve_support import Server, metric, post_json, request, wait_for_queue_depth
from bart_models import CNN, TEXTS, save_model
from conftest import run_precis

# A limit below the model's 128 positions, so that the longest TEXTS are cut.
MAX_INPUT_TOKENS = 24


@pytest.fixture(scope="module")
def model(tmp_path_factory, tiny_bpe_dir):
    out = tmp_path_factory.mktemp("serve_model") / "model"
    hf, tok = save_model(tiny_bpe_dir, out, "narrow-gelu", 0, **CNN)
    return out, hf, tok


@pytest.fixture(scope="module")
def server(model):
    with Server(model[0], "--max_input_tokens", MAX_INPUT_TOKENS, "--batch_wait_ms", 2) as s:
        yield s
        assert s.stop() == 0


def hf_summaries(hf, tok, texts, parameters):
    enc = tok(texts, padding=True, truncation=True, max_length=MAX_INPUT_TOKENS, return_tensors="pt")
    with torch.no_grad():
        out = hf.generate(**enc, **parameters)
    return [tok.decode(row, skip_special_tokens=True) for row in out]


CASES = {
    "checkpoint-defaults-beam": {},
    "greedy": dict(num_beams=1),
    "greedy-max-length": dict(num_beams=1, max_length=12, min_length=0),
    "beam-3-length-penalty": dict(num_beams=3, length_penalty=0.5, no_repeat_ngram_size=2, min_length=4),
    "beam-repetition-penalty": dict(num_beams=2, repetition_penalty=1.4, max_new_tokens=10, min_length=0),
    "sampling-top-k-1-is-greedy": dict(do_sample=True, top_k=1, num_beams=1),
}


def test_run_summarization_lengths_set_the_default_max_length(model):
    """--val_max_target_length (or generation_max_length) is the max_length of the requests that
    set none, as run_summarization's predict; a request's own max_length still wins."""
    _, hf, tok = model
    with Server(model[0], "--max_source_length", MAX_INPUT_TOKENS, "--max_target_length", 64,
                "--val_max_target_length", 9) as s:
        for parameters, hf_parameters in [({}, {"max_length": 9}), ({"max_length": 12}, {"max_length": 12})]:
            status, body, _ = post_json(s.port, {"inputs": TEXTS[0], "parameters": parameters})
            assert status == 200, body
            assert body == [{"summary_text": t} for t in hf_summaries(hf, tok, [TEXTS[0]], hf_parameters)]
        assert s.stop() == 0
    assert hf_summaries(hf, tok, [TEXTS[0]], {"max_length": 9}) != hf_summaries(hf, tok, [TEXTS[0]], {})


@pytest.mark.parametrize("case", sorted(CASES))
def test_one_string_equals_transformers(server, model, case):
    _, hf, tok = model
    parameters = CASES[case]
    for text in TEXTS[:3]:
        status, body, _ = post_json(server.port, {"inputs": text, "parameters": parameters})
        assert status == 200, body
        assert body == [{"summary_text": s} for s in hf_summaries(hf, tok, [text], parameters)]


@pytest.mark.parametrize("case", sorted(CASES))
def test_list_equals_transformers_batch(server, model, case):
    """A list is generated as one batch (padded together), as generate() on the list is."""
    _, hf, tok = model
    parameters = CASES[case]
    status, body, _ = post_json(server.port, {"inputs": TEXTS, "parameters": parameters}, path="/models/user/tiny")
    assert status == 200, body
    assert body == [{"summary_text": s} for s in hf_summaries(hf, tok, TEXTS, parameters)]


def test_on_cuda_equals_transformers(model):
    """--device cuda in precis_emulated, the CLI whose CUDA backend is the kernel emulator
    (device memory guarded, so any host access to it crashes the server): the weights, the KV
    cache, the logits processors and beam search on the device give HF's summaries."""
    _, hf, tok = model
    with Server(model[0], "--max_input_tokens", MAX_INPUT_TOKENS, "--device", "cuda", binary="precis_emulated") as s:
        assert "on cuda:0" in s.stdout_lines[0], s.stdout_lines[0]
        # Short summaries, and time to spare: the emulator runs every CUDA thread on one core,
        # slow on a loaded CI machine and slower under the sanitizers (the test is of results).
        for case in ("greedy-max-length", "beam-repetition-penalty", "beam-3-length-penalty"):
            parameters = dict(CASES[case], max_length=14) if case == "beam-3-length-penalty" else CASES[case]
            status, body, _ = post_json(s.port, {"inputs": TEXTS[:3], "parameters": parameters}, timeout=600)
            assert status == 200, body
            assert body == [{"summary_text": t} for t in hf_summaries(hf, tok, TEXTS[:3], parameters)], case
        assert s.stop(timeout=600) == 0


def test_truncation_or_refusal_past_the_input_limit(server, model):
    _, hf, tok = model
    long_text = " ".join(TEXTS)
    assert len(tok(long_text).input_ids) > MAX_INPUT_TOKENS
    for truncation in (True, "longest_first", None):
        status, body, _ = post_json(server.port, {"inputs": long_text, "parameters": {"truncation": truncation, "num_beams": 1}})
        assert status == 200, body
        assert body == [{"summary_text": hf_summaries(hf, tok, [long_text], dict(num_beams=1))[0]}]
    for truncation in (False, "do_not_truncate"):
        status, body, _ = post_json(server.port, {"inputs": ["short", long_text], "parameters": {"truncation": truncation}})
        assert status == 400
        assert "inputs[1]" in body["error"] and f"at most {MAX_INPUT_TOKENS}" in body["error"]


def test_generation_errors_are_400_with_generates_message(server):
    status, body, _ = post_json(server.port, {"inputs": "x", "parameters": {"num_beams": 64}})
    assert status == 400 and "num_beams" in body["error"]
    status, body, _ = post_json(server.port, {"inputs": "x", "parameters": {"max_length": 1000}})
    assert status == 400 and "decoder positions" in body["error"]


def test_health_page_and_metrics(server):
    status, _, body = request(server.port, "GET", "/health")
    assert status == 200 and b"ok" in body
    status, headers, body = request(server.port, "GET", "/")
    assert status == 200 and headers["content-type"].startswith("text/html") and b"<textarea" in body
    status, headers, body = request(server.port, "GET", "/metrics")
    text = body.decode()
    assert status == 200 and headers["content-type"].startswith("text/plain")
    for name in ("precis_requests_total{", "precis_request_duration_seconds_bucket{", "precis_batch_size_bucket{",
                 "precis_queue_depth "):
        assert name in text


def test_bearer_token_required_and_never_printed(model):
    token = "s3cret-token-value-1234"
    with Server(model[0], "--token_env", "PRECIS_TEST_TOKEN", env={"PRECIS_TEST_TOKEN": token}) as s:
        status, body, headers = post_json(s.port, {"inputs": "x"})
        assert status == 401 and headers.get("www-authenticate") == "Bearer"
        status, body, _ = post_json(s.port, {"inputs": "x"}, headers={"Authorization": "Bearer wrong"})
        assert status == 401
        assert request(s.port, "GET", "/metrics")[0] == 401
        status, body, _ = post_json(s.port, {"inputs": "x", "parameters": {"num_beams": 1}},
                                    headers={"Authorization": f"Bearer {token}"})
        assert status == 200 and "summary_text" in body[0]
        assert request(s.port, "GET", "/health")[0] == 200
        assert s.stop() == 0
        assert token not in "".join(s.stdout_lines) + s.stderr


def test_missing_token_variable_is_an_error(model):
    from conftest import run_precis
    result = run_precis("serve", "--model", model[0], "--port", "0", "--token_env", "PRECIS_UNSET_VARIABLE_X",
                        check=False, timeout=60)
    assert result.returncode != 0 and "PRECIS_UNSET_VARIABLE_X" in result.stderr


def test_sigterm_finishes_the_request_in_flight(model):
    """The request is queued in the batcher (held there by the test hook) when SIGTERM
    arrives: it is still answered, and the server exits 0."""
    _, hf, tok = model
    with Server(model[0], "--max_input_tokens", MAX_INPUT_TOKENS, env={"PRECIS_TEST_HOLD_FIRST_BATCH": "2"}) as s:
        result = {}
        t = threading.Thread(target=lambda: result.update(r=post_json(s.port, {"inputs": TEXTS[0], "parameters": {"num_beams": 1}})))
        t.start()
        wait_for_queue_depth(s.port, 1, s.proc)
        assert s.stop() == 0
        t.join()
        status, body, _ = result["r"]
        assert status == 200 and body == [{"summary_text": hf_summaries(hf, tok, [TEXTS[0]], dict(num_beams=1))[0]}]
        assert "SIGTERM" in s.stderr


# Requests queued in this order within one batching window: (parameters, inputs).
GREEDY_SHORT = dict(num_beams=1, max_length=8)
BEAM_NO_REPEAT = dict(num_beams=3, no_repeat_ngram_size=2, min_length=4)
BEAM_PENALTY = dict(num_beams=2, repetition_penalty=1.4, max_new_tokens=10, min_length=0)
MIXED_WINDOW = [
    (GREEDY_SHORT, TEXTS[0]),
    (BEAM_NO_REPEAT, [TEXTS[1], TEXTS[2]]),
    (GREEDY_SHORT, TEXTS[3]),
    (BEAM_PENALTY, TEXTS[4]),
    (BEAM_NO_REPEAT, TEXTS[5]),
]


def test_concurrent_requests_with_different_parameters_are_batched_apart(model):
    """Five requests with three parameter sets wait in one batching window. The batcher runs
    one batch per parameter set (its requests' inputs padded together, in queue order), so
    each answer equals generate() with its own parameters on that batch: nothing of another
    parameter set leaks in."""
    _, hf, tok = model
    groups = {}  # parameter set -> its requests' texts in queue order, as the batcher joins them
    parameter_sets = {}
    for parameters, inputs in MIXED_WINDOW:
        groups.setdefault(repr(parameters), []).extend(inputs if isinstance(inputs, list) else [inputs])
        parameter_sets[repr(parameters)] = parameters
    # generate() on each parameter set's batch under each parameter set, once.
    summaries = {(key, q): hf_summaries(hf, tok, texts, parameter_sets[q]) for key, texts in groups.items()
                 for q in parameter_sets}
    expected = []
    taken = {key: 0 for key in groups}
    for parameters, inputs in MIXED_WINDOW:
        key, n = repr(parameters), len(inputs) if isinstance(inputs, list) else 1
        mine = summaries[key, key][taken[key]:taken[key] + n]
        expected.append([{"summary_text": s} for s in mine])
        # Sensitivity: the same batch under any other parameter set gives other summaries.
        for q in parameter_sets:
            if q != key:
                assert summaries[key, q][taken[key]:taken[key] + n] != mine, (parameters, parameter_sets[q])
        taken[key] += n

    with Server(model[0], "--max_input_tokens", MAX_INPUT_TOKENS,
                env={"PRECIS_TEST_HOLD_FIRST_BATCH": str(len(MIXED_WINDOW))}) as s:
        results = [None] * len(MIXED_WINDOW)

        def send(i, parameters, inputs):
            results[i] = post_json(s.port, {"inputs": inputs, "parameters": parameters})

        threads = []
        for i, (parameters, inputs) in enumerate(MIXED_WINDOW):
            threads.append(threading.Thread(target=send, args=(i, parameters, inputs)))
            threads[-1].start()
            if i + 1 < len(MIXED_WINDOW):  # the last one releases the batch
                wait_for_queue_depth(s.port, i + 1, s.proc)
        for t in threads:
            t.join()
        for (status, body, _), want, case in zip(results, expected, MIXED_WINDOW):
            assert status == 200, body
            assert body == want, case
        # One batch per parameter set, holding every input of that set.
        assert metric(s.port, "precis_batch_size_count") == len(groups)
        assert metric(s.port, "precis_batch_size_sum") == sum(len(texts) for texts in groups.values())
        assert s.stop() == 0


def test_int8_server_equals_int8_generate(tmp_path, model):
    """`precis serve --quantization int8` answers what `precis generate --quantization int8`
    writes for the same inputs (one scope keeps the int8 weights across requests, and a batch of
    several gives each input its own row's quantization), its log says which path runs, and on a
    CPU with AVX2 or AVX512-VNNI the summaries differ from fp32's somewhere (int8 ran)."""
    texts = TEXTS[:6]
    inputs = tmp_path / "inputs.jsonl"
    inputs.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts))

    def generated(quantization):
        result = run_precis("generate", "--model", model[0], "--input", inputs, "--text_column", "text",
                            "--max_source_length", MAX_INPUT_TOKENS, "--batch_size", 6, "--num_beams", 1,
                            "--quantization", quantization)
        return [json.loads(line)["summary_text"] for line in result.stdout.splitlines()], result.stderr

    int8, log = generated("int8")
    with Server(model[0], "--max_input_tokens", MAX_INPUT_TOKENS, "--quantization", "int8") as s:
        for _ in range(2):  # the second request runs on the kept copies
            status, body, _ = post_json(s.port, {"inputs": texts, "parameters": {"num_beams": 1}})
            assert status == 200, body
            assert body == [{"summary_text": t} for t in int8]
        assert s.stop() == 0
    fp32, _ = generated("none")
    if "neither AVX512-VNNI nor AVX2" in log:
        assert int8 == fp32, "without AVX2 or VNNI the int8 option runs fp32"
    else:
        assert "int8 weights" in log and int8 != fp32
