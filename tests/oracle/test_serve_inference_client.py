"""Today's official client against `precis serve`: huggingface_hub's InferenceClient.summarization
(2.4.0, in the transformers 5.x oracle's venv, run through hf5_oracle), whose requests carry the
task spec's three parameters: generate_parameters (GenerationConfig's keys), truncation and
clean_up_tokenization_spaces. Each summary equals transformers 4.44.2's generate() + decode() with
the same settings (the server runs --hf_semantics 4.44, where decode cleans up a BPE tokenizer's
text when asked: under 5 it would ignore the request), and the settings change the answers here,
so a server that dropped one would fail."""
import pytest
import torch

from bart_models import CNN, TEXTS, save_model
from hf5_oracle import run_hf5
from serve_support import Server

MAX_INPUT_TOKENS = 24
GENERATION = dict(num_beams=2, max_length=20, min_length=6, no_repeat_ngram_size=2)


@pytest.fixture(scope="module")
def model(tmp_path_factory, tiny_bpe_dir):
    """A tiny BART whose final_logits_bias favours a lone space, "." and ",": its summaries hold
    " ." and " ,", which decode's clean-up joins (a random tiny model's seldom do)."""
    out = tmp_path_factory.mktemp("client_model") / "model"
    hf, tok = save_model(tiny_bpe_dir, out, "narrow-gelu", 0, **CNN)
    with torch.no_grad():
        hf.final_logits_bias[0, tok.convert_tokens_to_ids(["Ġ", ".", ","])] += 12.0
    hf.save_pretrained(out)
    return out, hf, tok


def hf_summary(hf, tok, text, generation, clean_up):
    enc = tok([text], truncation=True, max_length=MAX_INPUT_TOKENS, return_tensors="pt")
    with torch.no_grad():
        out = hf.generate(**enc, **generation)
    return tok.decode(out[0], skip_special_tokens=True, clean_up_tokenization_spaces=clean_up)


def test_inference_client_summarization_with_the_task_spec_parameters(model):
    model_dir, hf, tok = model
    cases = {
        "defaults": {},
        "generate_parameters": {"generate_parameters": GENERATION},
        "clean_up": {"generate_parameters": GENERATION, "clean_up_tokenization_spaces": True},
        "no_clean_up": {"generate_parameters": GENERATION, "clean_up_tokenization_spaces": False},
        "do_not_truncate": {"truncation": "do_not_truncate"},
        "unknown": {"generate_parameters": {"num_beam": 2}},
    }
    with Server(model_dir, "--hf_semantics", "4.44", "--max_input_tokens", MAX_INPUT_TOKENS) as s:
        answers = run_hf5("inference_client.py", {"url": f"http://127.0.0.1:{s.port}", "texts": TEXTS, "cases": cases})
        assert s.stop() == 0

    defaults = {k: v for k, v in hf.generation_config.to_dict().items() if k in CNN}
    expected = {
        "defaults": [hf_summary(hf, tok, t, defaults, None) for t in TEXTS],
        "generate_parameters": [hf_summary(hf, tok, t, GENERATION, None) for t in TEXTS],
        "clean_up": [hf_summary(hf, tok, t, GENERATION, True) for t in TEXTS],
        "no_clean_up": [hf_summary(hf, tok, t, GENERATION, False) for t in TEXTS],
    }
    for name, texts in expected.items():
        assert [a.get("summary") for a in answers[name]] == texts, (name, answers[name])
    # The settings matter on these inputs: a server that ignored one would answer otherwise.
    assert expected["generate_parameters"] != expected["defaults"]
    assert expected["clean_up"] != expected["no_clean_up"], expected["clean_up"]

    # Past the input limit, do_not_truncate is refused naming the limit; the shorter texts pass.
    lengths = [len(tok(t)["input_ids"]) for t in TEXTS]
    for length, answer in zip(lengths, answers["do_not_truncate"]):
        if length > MAX_INPUT_TOKENS:
            assert answer["status"] == 400 and str(MAX_INPUT_TOKENS) in answer["error"], answer
        else:
            assert "summary" in answer, answer
    assert any(length > MAX_INPUT_TOKENS for length in lengths)
    assert all(a["status"] == 400 and "parameters.generate_parameters" in a["error"] for a in answers["unknown"])
