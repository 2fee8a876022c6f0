"""`precis generate` against transformers' model.generate() on tiny random checkpoints.

Every case runs batches of inputs of unequal length (right-padded, with the encoder key
mask) and requires the generated ids to be EQUAL to Hugging Face's, row for row, padding
included. The models are make_bart's configurations with weights re-drawn with more spread
(unit-gain projections, embeddings that give logits of a few units, an EOS bias), so that
outputs depend on the input, beams finish by EOS as well as at max_length, and near-ties
between candidates are rare.
"""
import json

import pytest
import torch
from safetensors.torch import load_file
from transformers import BartForConditionalGeneration, GenerationConfig

from bart_models import CNN, TEXTS, save_model
from conftest import run_precis
from probe_support import OUTPUT_TOL, scaled_error

# Inputs are truncated as run_summarization's max_source_length does (silu-positions has 40
# positions; the longest text is 42 tokens).
MAX_SOURCE = 40

# (make_bart configuration, seed, EOS bias): models whose outputs mix EOS-finished and
# max-length rows. A larger EOS bias makes beams finish early, where early_stopping,
# length_penalty and min_length decide (with 4.0 wide-relu-scaled's rows all but one ran to
# max_length and none of those settings changed its output).
MODELS = [("narrow-gelu", 0, 4.0), ("narrow-gelu", 1, 4.0), ("deep-gelunew-untied", 0, 4.0),
          ("silu-positions", 0, 6.0), ("wide-relu-scaled", 1, 6.0), ("heads-of-16", 0, 4.0)]


@pytest.fixture(scope="module")
def input_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("generate_inputs") / "inputs.jsonl"
    with open(path, "w") as f:
        for text in TEXTS:
            f.write(json.dumps({"text": text}) + "\n")
    return path


@pytest.fixture(scope="module")
def cnn_model(tmp_path_factory, tiny_bpe_dir):
    """cnn_model(name, seed, eos_bias) -> (directory, HF model, tokenizer): each of MODELS with
    the CNN settings, saved once for the module (the tests only read the directory)."""
    saved = {}

    def get(name, seed, eos_bias=4.0):
        key = (name, seed, eos_bias)
        if key not in saved:
            out_dir = tmp_path_factory.mktemp(f"{name}-{seed}")
            saved[key] = (out_dir, *save_model(tiny_bpe_dir, out_dir, name, seed, eos_bias, **CNN))
        return saved[key]
    return get


def cli_args(kwargs):
    args = []
    for key, value in kwargs.items():
        if key == "do_sample":
            args.append("--do_sample" if value else "--do_sample=false")
        elif isinstance(value, bool):
            args.extend([f"--{key}", str(value).lower()])
        elif isinstance(value, list):
            args.extend([f"--{key}", json.dumps(value)])
        else:
            args.extend([f"--{key}", str(value)])
    return args


def precis_generate(model_dir, input_file, batch_size, kwargs, *extra):
    result = run_precis("generate", "--model", model_dir, "--input", input_file, "--text_column", "text",
                        "--per_device_eval_batch_size", batch_size, "--max_source_length", MAX_SOURCE, *cli_args(kwargs), *extra)
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


def hf_generate(model, tok, batch_size, kwargs, **extra):
    rows = []
    for begin in range(0, len(TEXTS), batch_size):
        enc = tok(TEXTS[begin:begin + batch_size], padding=True, truncation=True, max_length=MAX_SOURCE,
                  return_tensors="pt")
        with torch.no_grad():
            out = model.generate(**enc, **kwargs, **extra)
        rows.append(out)
    return rows


_hf_ids = {}


def hf_ids(model, tok, batch_size, kwargs):
    """hf_generate's batches, memoised per model (cnn_model's) and settings: cases share neighbours."""
    key = (model, batch_size, json.dumps(kwargs, sort_keys=True))
    if key not in _hf_ids:
        _hf_ids[key] = hf_generate(model, tok, batch_size, kwargs)
    return _hf_ids[key]


def assert_equal_ids(ours, theirs, tok):
    hf_rows = [row for batch in theirs for row in batch.tolist()]
    assert len(ours) == len(hf_rows)
    for i, (o, h) in enumerate(zip(ours, hf_rows)):
        assert o["ids"] == h, f"row {i}:\n ours {o['ids']}\n hf   {h}"
        assert o["summary_text"] == tok.decode(h, skip_special_tokens=True)


# MODELS by name, for the cases' lists of the models that tell a setting apart.
NARROW_0, NARROW_1, DEEP, SILU, WIDE, HEADS_16 = MODELS
# The models each case is known to tell apart; HEADS_16 runs every case for its kernels, not
# for a setting's sensitivity.
EVERY_MODEL = (NARROW_0, NARROW_1, DEEP, SILU, WIDE)

# case: (settings over CNN's, neighbour, sensitive_on). The neighbour is the same settings with
# the one under test at its neighbouring value; on each model of sensitive_on HF's ids differ
# between the two, which the test asserts, so every case is known to exercise its setting.
# (early_stopping "never" differs from False only when length_penalty > 0 -- HF's is_done then
# bounds the best attainable score with max_length instead of the current length -- so
# never-negative-length-penalty is told apart by its length_penalty.)
CASES = {
    # bart-large-cnn's settings; told apart from the same without its min_length.
    "cnn-beam": ({}, dict(min_length=0), EVERY_MODEL),
    "cnn-greedy": (dict(num_beams=1), {}, EVERY_MODEL),
    "early-stopping-false": (dict(early_stopping=False), {}, EVERY_MODEL),
    "early-stopping-never": (dict(early_stopping="never"), dict(early_stopping=False), (SILU,)),
    "never-negative-length-penalty": (dict(early_stopping="never", length_penalty=-0.5),
                                      dict(early_stopping="never"), EVERY_MODEL),
    # Three rows per input instead of one: told apart by the row count.
    "return-3-of-4": (dict(num_return_sequences=3), None, ()),
    "return-3-never": (dict(num_return_sequences=3, early_stopping="never", length_penalty=1.0),
                       dict(num_return_sequences=3, early_stopping=False, length_penalty=1.0),
                       (NARROW_0, NARROW_1, DEEP, WIDE)),
    "min-new-tokens": (dict(min_length=0, min_new_tokens=8), dict(min_length=0), EVERY_MODEL),
    "max-new-tokens": (dict(max_new_tokens=12, min_length=0), dict(min_length=0), EVERY_MODEL),
    "repetition-penalty-beam": (dict(repetition_penalty=1.5, no_repeat_ngram_size=0),
                                dict(no_repeat_ngram_size=0), EVERY_MODEL),
    "repetition-penalty-greedy": (dict(num_beams=1, repetition_penalty=1.3, no_repeat_ngram_size=0),
                                  dict(num_beams=1, no_repeat_ngram_size=0), EVERY_MODEL),
    "no-repeat-2": (dict(no_repeat_ngram_size=2, min_length=0), dict(min_length=0), EVERY_MODEL),
    # forced_bos_token_id shows in every row; the neighbour keeps it and tells forced EOS apart.
    "forced-bos-7-eos-9": (dict(forced_bos_token_id=7, forced_eos_token_id=9), dict(forced_bos_token_id=7),
                           (NARROW_0, NARROW_1, DEEP, WIDE)),
    "six-beams-no-min": (dict(num_beams=6, min_length=0, length_penalty=1.0, early_stopping=False),
                         dict(min_length=0, length_penalty=1.0, early_stopping=False),
                         (NARROW_0, NARROW_1, WIDE)),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("name,seed,eos_bias", MODELS)
def test_generate_equals_transformers(input_file, cnn_model, name, seed, eos_bias, case):
    model_dir, model, tok = cnn_model(name, seed, eos_bias)
    kwargs, neighbour, sensitive_on = CASES[case]
    batch_size = 3
    theirs = hf_ids(model, tok, batch_size, kwargs)
    if (name, seed, eos_bias) in sensitive_on:
        flat = lambda batches: [row for batch in batches for row in batch.tolist()]
        assert flat(theirs) != flat(hf_ids(model, tok, batch_size, neighbour)), \
            f"HF's ids are the same with {neighbour}: this model does not tell the setting apart"
    ours = precis_generate(model_dir, input_file, batch_size, kwargs)
    assert_equal_ids(ours, theirs, tok)


@pytest.mark.parametrize("num_beams", [1, 4])
@pytest.mark.parametrize("name,seed,eos_bias", MODELS[:3])
def test_bad_words_equal_transformers(input_file, cnn_model, name, seed, eos_bias, num_beams):
    """Bans a token and a bigram the unconstrained run generates, so the ban changes the output."""
    model_dir, model, tok = cnn_model(name, seed, eos_bias)
    base = [row for batch in hf_generate(model, tok, 4, dict(num_beams=num_beams)) for row in batch.tolist()]
    content = [t for row in base for t in row[2:] if t > 3]
    frequent = max(set(content), key=content.count)
    row = next(r for r in base if len([t for t in r[2:] if t > 3 and t != frequent]) >= 2)
    rest = [t for t in row[2:] if t > 3 and t != frequent]
    i = row.index(rest[0])
    bigram = [row[i], row[i + 1]] if row[i + 1] != frequent else [row[i - 1], row[i]]
    kwargs = dict(num_beams=num_beams, bad_words_ids=[[frequent], bigram, [2]])
    ours = precis_generate(model_dir, input_file, 4, kwargs)
    theirs = hf_generate(model, tok, 4, kwargs)
    assert_equal_ids(ours, theirs, tok)
    flat = [r for batch in theirs for r in batch.tolist()]
    assert flat != base and all(frequent not in r for r in flat)


def test_generation_config_json_wins_over_legacy_keys(tmp_path, tiny_bpe_dir, input_file):
    """A generation_config.json written on purpose (not _from_model_config) overrides config.json."""
    model, tok = save_model(tiny_bpe_dir, tmp_path / "model", "narrow-gelu", 0, **CNN)
    GenerationConfig(num_beams=3, max_length=18, min_length=5, length_penalty=0.8, no_repeat_ngram_size=2,
                     bos_token_id=0, eos_token_id=2, pad_token_id=1, decoder_start_token_id=2,
                     forced_eos_token_id=2).save_pretrained(tmp_path / "model")
    model = BartForConditionalGeneration.from_pretrained(tmp_path / "model").eval()
    assert model.generation_config.num_beams == 3
    ours = precis_generate(tmp_path / "model", input_file, 4, {})
    assert_equal_ids(ours, hf_generate(model, tok, 4, {}), tok)


@pytest.mark.parametrize("name", ["deep-gelunew-untied", "heads-of-16"])
def test_step_logits_match_transformers_and_full_forward(tmp_path, cnn_model, input_file, name):
    """KV-cached step logits: against HF's output_logits (greedy and beam, so after cache
    reorders) and against the full forward over the generated ids (probe_support.OUTPUT_TOL
    of the logits' scale; measured <= 4.5e-7). heads-of-16: the CPU's decoding kernels."""
    model_dir, model, tok = cnn_model(name, 0)
    batch_size = 4
    for num_beams in (1, 4):
        kwargs = dict(num_beams=num_beams)
        ours_ids = precis_generate(model_dir, input_file, batch_size, kwargs,
                                   "--output_logits", tmp_path / "logits.safetensors")
        ours = load_file(str(tmp_path / "logits.safetensors"))
        theirs = hf_generate(model, tok, batch_size, kwargs, output_logits=True, return_dict_in_generate=True)
        assert_equal_ids(ours_ids, [t.sequences for t in theirs], tok)
        for b, t in enumerate(theirs):
            steps = ours[f"logits.{b}"]
            assert steps.shape[0] == len(t.logits)
            worst = max(scaled_error(steps[s], ref) for s, ref in enumerate(t.logits))
            print(f"beams {num_beams} batch {b}: step logits, max abs diff / max abs ref {worst:.2e}")
            assert worst <= OUTPUT_TOL, f"batch {b}: step logits max abs diff {worst:.2e} of their scale"
            if num_beams == 1:
                enc = tok(TEXTS[b * batch_size:(b + 1) * batch_size], padding=True, truncation=True,
                          max_length=MAX_SOURCE, return_tensors="pt")
                with torch.no_grad():
                    full = model(**enc, decoder_input_ids=t.sequences[:, :-1]).logits
                diff = scaled_error(steps.transpose(0, 1), full)
                print(f"batch {b}: cached vs full forward, max abs diff / max abs ref {diff:.2e}")
                assert diff <= OUTPUT_TOL, f"batch {b}: cached vs full forward max abs diff {diff:.2e} of their scale"


# Sampling settings, each over batches of 3 inputs that the generator runs through in turn.
SAMPLING = {
    "temperature": dict(num_beams=1, do_sample=True, top_k=0, temperature=1.5),
    "top-k-50": dict(num_beams=1, do_sample=True, top_k=50),
    "top-p-0.9": dict(num_beams=1, do_sample=True, top_k=0, top_p=0.9),
    "two-sequences": dict(num_beams=1, do_sample=True, top_k=50, temperature=1.2, num_return_sequences=2),
}


@pytest.mark.parametrize("case", SAMPLING)
def test_sampling_equals_hf_after_manual_seed(cnn_model, input_file, case):
    """`precis generate --do_sample --seed N` gives model.generate(do_sample=True)'s ids after
    torch.manual_seed(N), batch after batch (the generator goes on across generate() calls)."""
    model_dir, model, tok = cnn_model(*NARROW_0)
    sample = SAMPLING[case]
    for seed in (11, 1234):
        torch.manual_seed(seed)
        theirs = hf_generate(model, tok, 3, sample)
        assert_equal_ids(precis_generate(model_dir, input_file, 3, {**sample, "seed": seed}), theirs, tok)
    # The draws matter: the two seeds' ids differ, and differ from greedy search's.
    torch.manual_seed(11)
    first = [row for batch in hf_generate(model, tok, 3, sample) for row in batch.tolist()]
    assert first != [row for batch in theirs for row in batch.tolist()]
    greedy = [row for batch in hf_ids(model, tok, 3, dict(num_beams=1)) for row in batch.tolist()]
    assert first[::sample.get("num_return_sequences", 1)] != greedy


def test_sampling_is_deterministic_per_seed_and_top_k_1_is_greedy(cnn_model, input_file):
    model_dir, model, tok = cnn_model("narrow-gelu", 0)
    sample = dict(num_beams=1, do_sample=True, top_k=0, temperature=1.5, num_return_sequences=2)
    a = precis_generate(model_dir, input_file, 3, {**sample, "seed": 11})
    b = precis_generate(model_dir, input_file, 3, {**sample, "seed": 11})
    c = precis_generate(model_dir, input_file, 3, {**sample, "seed": 12})
    assert a == b and a != c and len(a) == 2 * len(TEXTS)
    # top_k = 1 keeps only the argmax (and ties with it): sampling is then greedy search.
    greedy = precis_generate(model_dir, input_file, 3, dict(num_beams=1, do_sample=True, top_k=1, seed=3))
    assert_equal_ids(greedy, hf_ids(model, tok, 3, dict(num_beams=1)), tok)


def test_text_option_and_errors(cnn_model):
    model_dir, model, tok = cnn_model("narrow-gelu", 0)
    result = run_precis("generate", "--model", model_dir, "--text", TEXTS[0], "--num_beams", 1)
    line = json.loads(result.stdout)
    enc = tok([TEXTS[0]], return_tensors="pt")
    with torch.no_grad():
        ref = model.generate(**enc, num_beams=1)
    assert line["ids"] == ref[0].tolist()
    bad = run_precis("generate", "--model", model_dir, "--text", "x", "--num_return_sequences", 5,
                     check=False)
    assert bad.returncode == 1 and "num_return_sequences" in bad.stderr
    bad = run_precis("generate", "--model", model_dir, "--text", "x", "--early_stopping", "maybe",
                     check=False)
    assert bad.returncode == 1 and "early_stopping" in bad.stderr


def test_run_summarization_lengths_give_max_length(cnn_model, input_file):
    """run_summarization's predict: max_length = generation_max_length, else
    val_max_target_length, else max_target_length (the default of val_max_target_length)."""
    model_dir, model, tok = cnn_model(*NARROW_0)
    cases = [(("--max_target_length", 64, "--val_max_target_length", 9), 9),
             (("--max_target_length", 11), 11),
             (("--val_max_target_length", 9, "--generation_max_length", 7), 7),
             (("--generation_max_length", 7, "--max_length", 12), 12)]  # generate's own name wins
    lengths = set()
    for extra, max_length in cases:
        ours = precis_generate(model_dir, input_file, 4, {"num_beams": 2}, *extra)
        assert_equal_ids(ours, hf_ids(model, tok, 4, {"num_beams": 2, "max_length": max_length}), tok)
        lengths.add(max(len(row["ids"]) for row in ours))
    assert len(lengths) == 4, lengths  # each case's max_length shows in its output


# --quantization's first step against HF's fp32: the step depends on the input alone, so its
# logits measure the quantization's error and nothing else. Measured 1.5e-2 to 2.1e-2 of the
# logits' scale for int8 on these models (per-channel int8 weights, per-row int8 activations
# through two encoder and two decoder layers and the LM head), 3.8e-3 to 6.1e-3 for bf16 (the
# linear layers' operands rounded to bf16); a scale missing from the int8 expression gives
# errors of order 1.
QUANTIZED_FIRST_STEP_TOL = {"int8": 5e-2, "bf16": 1.5e-2}
# What each asks for, and what the log says where the CPU cannot run it (precis runs fp32).
QUANTIZATIONS = {"int8": ("int8 weights (per output channel) and activations (per row)", "neither AVX512-VNNI nor AVX2"),
                 "bf16": ("bf16 linear layers (weights packed once for AMX tiles", "no usable AMX-BF16")}


@pytest.mark.parametrize("quantization", sorted(QUANTIZATIONS))
@pytest.mark.parametrize("name", ["narrow-gelu", "heads-of-16"])
def test_quantized_weights_keep_the_first_step_close_to_fp32(tmp_path, cnn_model, input_file, name,
                                                              quantization):
    """`precis generate --quantization int8|bf16`: the log says which path runs; where the CPU
    runs it the first step's logits are within QUANTIZED_FIRST_STEP_TOL of HF's fp32 logits'
    scale and not equal to them (the quantized path ran); where it cannot, precis runs fp32 and
    gives HF's ids."""
    model_dir, model, tok = cnn_model(name, 0)
    batch_size = 4
    kwargs = dict(num_beams=1)
    result = run_precis("generate", "--model", model_dir, "--input", input_file, "--text_column", "text",
                        "--per_device_eval_batch_size", batch_size, "--max_source_length", MAX_SOURCE,
                        *cli_args(kwargs), "--quantization", quantization,
                        "--output_logits", tmp_path / "logits.safetensors")
    ours_ids = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    theirs = hf_generate(model, tok, batch_size, kwargs, output_logits=True, return_dict_in_generate=True)
    runs, cannot = QUANTIZATIONS[quantization]
    if cannot in result.stderr:
        assert "fp32 weights" in result.stderr
        assert_equal_ids(ours_ids, [t.sequences for t in theirs], tok)
        return
    assert runs in result.stderr, result.stderr
    ours = load_file(str(tmp_path / "logits.safetensors"))
    for b, t in enumerate(theirs):
        error = scaled_error(ours[f"logits.{b}"][0], t.logits[0])
        print(f"{name} batch {b}: {quantization} first step, max abs diff / max abs fp32 {error:.2e}")
        assert 0 < error <= QUANTIZED_FIRST_STEP_TOL[quantization], f"batch {b}: {error:.2e} of the logits' scale"
    bad = run_precis("generate", "--model", model_dir, "--text", "x", "--quantization", "int4", check=False)
    assert bad.returncode != 0 and "--quantization: 'int4' is not a quantization; expected int8, bf16 or none" in bad.stderr
