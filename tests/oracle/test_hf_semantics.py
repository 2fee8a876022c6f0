"""--hf_semantics 5|4.44 against both oracles: transformers 4.44.2 (Debian's torch, in this
process) and 5.23.0 (PyPI's torch, .venv-hf5, through hf5_oracle). For each behaviour where the
two releases compute differently (docs/hf-semantics.md), precis under each setting equals that
release, and the test asserts that the two releases differ on its input, so that it can tell
them apart; without --hf_semantics (and PRECIS_HF_SEMANTICS) precis follows 5."""
import json
import os
import subprocess

import pytest
import torch
from safetensors.torch import load_file, save_file
from transformers import AutoTokenizer

from bart_models import CNN, TEXTS, save_model
from conftest import json_lines, precis_binary, run_precis
from hf5_oracle import run_hf5, run_torchrun
from t5_models import make_t5, random_batch, spread_weights as spread_t5
from train_support import (BART_NOT_SAVED, make_predict_job, BART_WEIGHT_LIMIT, GRAD_NORM_RTOL, LOSS_RTOL, MAX_SOURCE_LENGTH,
                           MAX_TARGET_LENGTH, compare_weights, hf_trainer, make_job, precis_train, train)

SEMANTICS = ("4.44", "5")
MAX_SOURCE = 40


def env_for(semantics):
    """precis's environment: PRECIS_HF_SEMANTICS as given, or unset (None: the default)."""
    env = {k: v for k, v in os.environ.items() if k != "PRECIS_HF_SEMANTICS"}
    if semantics is not None:
        env["PRECIS_HF_SEMANTICS"] = semantics
    env["OMP_NUM_THREADS"] = "1"
    return env


def test_second_oracle_is_transformers_5():
    versions = run_hf5("version.py", {})
    assert versions["transformers"] == "5.23.0" and versions["torch"].startswith("2.15.0"), versions


# ---- beam search: 5.x's early-stop bound divides the best candidate still running ----------

# silu-positions (seed 0, EOS bias 6) finishes beams by EOS early and often: with
# early_stopping=False, 5.x stops the search on 6 of the 7 texts before 4.44 does.
BEAM_CASES = {
    "early-stopping-false": dict(early_stopping=False),
    "return-3-false": dict(num_return_sequences=3, early_stopping=False, length_penalty=1.0),
    "cnn-beam": {},
    "cnn-greedy": dict(num_beams=1),
}
DIFFERING_CASES = ("early-stopping-false", "return-3-false")


@pytest.fixture(scope="module")
def beam_model(tmp_path_factory, tiny_bpe_dir):
    out = tmp_path_factory.mktemp("silu")
    model, tok = save_model(tiny_bpe_dir, out, "silu-positions", 0, 6.0, **CNN)
    inputs = out / "inputs.jsonl"
    inputs.write_text("".join(json.dumps({"text": t}) + "\n" for t in TEXTS))
    v4 = {}
    for case, kwargs in BEAM_CASES.items():
        rows = []
        for begin in range(0, len(TEXTS), 4):
            enc = tok(TEXTS[begin:begin + 4], padding=True, truncation=True, max_length=MAX_SOURCE,
                      return_tensors="pt")
            with torch.no_grad():
                rows += model.generate(**enc, **kwargs).tolist()
        v4[case] = {"ids": rows, "texts": [tok.decode(r, skip_special_tokens=True) for r in rows]}
    v5 = run_hf5("generate.py", dict(model_dir=str(out), texts=TEXTS, max_source=MAX_SOURCE, batch_size=4,
                                     cases=BEAM_CASES))
    return out, inputs, {"4.44": v4, "5": v5}


def precis_rows(model_dir, inputs, kwargs, semantics, *flags):
    args = []
    for key, value in kwargs.items():
        args += [f"--{key}", str(value).lower() if isinstance(value, bool) else str(value)]
    result = run_precis("generate", "--model", model_dir, "--input", inputs, "--text_column", "text",
                        "--per_device_eval_batch_size", 4, "--max_source_length", MAX_SOURCE, *args, *flags,
                        env=env_for(semantics))
    return json_lines(result.stdout)


def test_the_releases_search_differently_on_these_inputs(beam_model):
    _, _, ref = beam_model
    for case in DIFFERING_CASES:
        differ = sum(a != b for a, b in zip(ref["4.44"][case]["ids"], ref["5"][case]["ids"]))
        assert differ > 0, f"{case}: 4.44 and 5.x give the same ids: the input cannot tell them apart"
    for case in set(BEAM_CASES) - set(DIFFERING_CASES):
        assert ref["4.44"][case]["ids"] == ref["5"][case]["ids"], case


@pytest.mark.parametrize("case", sorted(BEAM_CASES))
@pytest.mark.parametrize("semantics", SEMANTICS)
def test_beam_search_equals_each_release(beam_model, case, semantics):
    model_dir, inputs, ref = beam_model
    ours = precis_rows(model_dir, inputs, BEAM_CASES[case], None, "--hf_semantics", semantics)
    assert [o["ids"] for o in ours] == ref[semantics][case]["ids"]
    assert [o["summary_text"] for o in ours] == ref[semantics][case]["texts"]


def test_the_default_is_5_and_the_environment_can_change_it(beam_model):
    model_dir, inputs, ref = beam_model
    case = "early-stopping-false"
    assert [o["ids"] for o in precis_rows(model_dir, inputs, BEAM_CASES[case], None)] == ref["5"][case]["ids"]
    assert [o["ids"] for o in precis_rows(model_dir, inputs, BEAM_CASES[case], "4.44")] == ref["4.44"][case]["ids"]
    # The flag wins over the environment.
    assert [o["ids"] for o in precis_rows(model_dir, inputs, BEAM_CASES[case], "4.44", "--hf_semantics", "5")] \
        == ref["5"][case]["ids"]
    bad = run_precis("generate", "--model", model_dir, "--text", "x", "--hf_semantics", "4.45", check=False)
    assert bad.returncode != 0 and "should be 5 or 4.44" in bad.stderr


# ---- beam search: 5.x fills finished rows with `pad or eos`, EOS where pad is 0 (T5) ---------

T5_VOCAB = 89
T5_BEAM = dict(num_beams=4, max_length=20, eos_token_id=34, num_return_sequences=3)


def test_t5_beam_rows_are_filled_as_each_release_fills_them(tmp_path):
    # Equal encoder and decoder depths: 5.23's T5 sizes its cache by the encoder's num_layers,
    # and generate() fails (IndexError) with a deeper decoder (docs/hf-semantics.md).
    model = spread_t5(make_t5("kv-16-gated-gelu", T5_VOCAB), seed=3)
    model.save_pretrained(tmp_path / "model")
    batch = random_batch(T5_VOCAB, batch=3, source_len=13, seed=5)
    inputs = {k: batch[k] for k in ("input_ids", "attention_mask")}
    with torch.no_grad():
        v4 = model.generate(**inputs, **T5_BEAM, do_sample=False).tolist()
    v5 = run_hf5("generate_ids.py", dict(model_dir=str(tmp_path / "model"), cases={"beam": T5_BEAM},
                                         **{k: v.tolist() for k, v in inputs.items()}))["beam"]
    # Rows that end early: 4.44 pads them with 0, 5.x with EOS (34).
    assert v4 != v5 and any(row[-1] == 0 for row in v4), (v4, v5)
    save_file({k: v.contiguous() for k, v in inputs.items()}, str(tmp_path / "batch.safetensors"))
    (tmp_path / "settings.json").write_text(json.dumps(T5_BEAM))
    for semantics, ref in (("4.44", v4), ("5", v5)):
        result = subprocess.run([precis_binary("t5_probe"), "generate", tmp_path / "model",
                                 tmp_path / "batch.safetensors", tmp_path / "settings.json",
                                 tmp_path / "out.safetensors"], capture_output=True, text=True,
                                env=env_for(semantics))
        assert result.returncode == 0, result.stderr
        assert load_file(str(tmp_path / "out.safetensors"))["sequences"].long().tolist() == ref, semantics


# ---- decoding: 5.x skips clean_up_tokenization_spaces for BPE tokenizers --------------------

SPACED = ["Hello , world ! I 'm sure , is n't it ?", "They 've done it . We 're here ; you 'll see ."]


def precis_decode(tokenizer_dir, ids, semantics, *flags):
    path = tokenizer_dir.parent / f"ids-{semantics}.jsonl"
    path.write_text("".join(json.dumps({"ids": row}) + "\n" for row in ids))
    result = run_precis("tokenize", "--model", tokenizer_dir, "--input", path, "--decode", "--skip_special_tokens",
                        "--hf_semantics", semantics, *flags)
    return [row["text"] for row in json_lines(result.stdout)]


@pytest.mark.parametrize("asked", [None, "true", "false"])
def test_bpe_decoding_cleans_up_as_each_release(tiny_bpe_dir, tmp_path, asked):
    tok_dir = tmp_path / "tok"
    tok_dir.mkdir()
    for f in tiny_bpe_dir.iterdir():
        (tok_dir / f.name).write_bytes(f.read_bytes())
    tok = AutoTokenizer.from_pretrained(tok_dir)
    config = json.loads((tok_dir / "tokenizer_config.json").read_text())
    assert config["clean_up_tokenization_spaces"] is True  # as 4.44 saves a BartTokenizerFast
    ids = tok(SPACED)["input_ids"]
    kwargs = {"skip_special_tokens": True}
    flags = ()
    if asked is not None:
        kwargs["clean_up_tokenization_spaces"] = asked == "true"
        flags = ("--clean_up_tokenization_spaces", asked)
    v4 = [tok.decode(row, **kwargs) for row in ids]
    v5 = run_hf5("decode.py", dict(tokenizer_dir=str(tok_dir), ids=ids, cases={"c": kwargs}))["c"]
    if asked != "false":
        assert v4 != v5, "the releases decode alike: the texts cannot tell them apart"
    assert precis_decode(tok_dir, ids, "4.44", *flags) == v4
    assert precis_decode(tok_dir, ids, "5", *flags) == v5
    # The flag 5.x reads to clean up a BPE tokenizer anyway.
    config["clean_up_tokenization_spaces_for_bpe_even_though_it_will_corrupt_output"] = True
    (tok_dir / "tokenizer_config.json").write_text(json.dumps(config))
    forced = run_hf5("decode.py", dict(tokenizer_dir=str(tok_dir), ids=ids, cases={"c": kwargs}))["c"]
    assert precis_decode(tok_dir, ids, "5", *flags) == forced
    if asked != "false":
        assert forced == v4


# ---- training: the loss under gradient accumulation, the logged learning rate ----------------

# Two records of different summary lengths, one per micro-batch, two micro-batches per step: each
# step is a whole epoch, so the order (precis's sampler is not torch's) does not matter, while
# 4.44's mean of the two micro-batch means differs from 5.x's mean over the step's label tokens.
# No clipping, so that the weights tell the two apart as well.
GA_RUN = dict(gradient_accumulation_steps=2, per_device_train_batch_size=1, max_grad_norm=0.0)


@pytest.fixture(scope="module")
def ga_job(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ga")
    model, tokenizer, records = make_job(tmp)
    records = records[3:5]  # summaries of 13 and 6 label tokens
    (tmp / "train.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    micro = []
    trainer, losses = hf_trainer(model, tokenizer, records, tmp, micro_batches=micro, **GA_RUN)
    v4 = {"weights": {k: v.detach().clone() for k, v in model.state_dict().items()},
          "losses": [losses[i] + losses[i + 1] for i in range(0, len(losses), 2)],
          "log": [e for e in trainer.state.log_history if "loss" in e], "micro": micro}
    answer = run_hf5("train.py", dict(model_dir=str(tmp / "base"), records=records, args=GA_RUN, token_weighted=True,
                                      max_source_length=MAX_SOURCE_LENGTH, max_target_length=MAX_TARGET_LENGTH,
                                      weights_out=str(tmp / "hf5.safetensors"), output_dir=str(tmp / "hf5")))
    v5 = {"weights": load_file(str(tmp / "hf5.safetensors")), "losses": answer["step_losses"],
          "log": [e for e in answer["log_history"] if "loss" in e], "micro": answer["micro_batches"]}
    return tmp, {"4.44": v4, "5": v5}


def test_the_releases_train_differently_on_this_job(ga_job):
    _, ref = ga_job
    v4, v5 = ref["4.44"], ref["5"]
    assert len({tokens for _, tokens in v4["micro"]}) > 1  # micro-batches of different lengths
    for a, b in zip(v4["losses"], v5["losses"]):
        assert abs(a - b) > 100 * LOSS_RTOL * a, (a, b)
    assert max((v4["weights"][k] - v5["weights"][k]).abs().max().item() for k in v5["weights"]) > 100 * BART_WEIGHT_LIMIT
    # 4.44 logs the next step's learning rate, 5.x the one the step used (warmup 1: 0 at step 1);
    # 4.44 logs no gradient norm without clipping, 5.x does.
    assert [e["learning_rate"] for e in v4["log"]] != [e["learning_rate"] for e in v5["log"]]
    assert "grad_norm" not in v4["log"][0] and "grad_norm" in v5["log"][0]


@pytest.mark.parametrize("semantics", SEMANTICS)
def test_training_equals_each_release(ga_job, semantics):
    tmp, ref = ga_job
    ours, steps, state, _ = precis_train(tmp, tmp / f"out-{semantics}", hf_semantics=semantics, **GA_RUN)
    want = ref[semantics]
    worst = compare_weights(ours, want["weights"], BART_NOT_SAVED, BART_WEIGHT_LIMIT)
    print(f"{semantics}: worst weight diff {worst:.2e}")
    assert len(steps) == len(want["losses"]) == 3
    for step, loss in zip(steps, want["losses"]):
        assert abs(step["loss"] - loss) <= LOSS_RTOL * loss, (step, loss)
    logged = [e for e in state["log_history"] if "loss" in e]
    assert [e["learning_rate"] for e in logged] == [e["learning_rate"] for e in want["log"]]
    assert [("grad_norm" in e) for e in logged] == [("grad_norm" in e) for e in want["log"]]
    for ours_entry, hf_entry in zip(logged, want["log"]):
        if "grad_norm" in hf_entry:
            assert abs(ours_entry["grad_norm"] - hf_entry["grad_norm"]) <= GRAD_NORM_RTOL * hf_entry["grad_norm"]
        assert ours_entry["loss"] == pytest.approx(hf_entry["loss"], abs=1e-4)


# Three micro-batches an epoch in groups of two, two epochs: 4.44 makes floor(3 / 2) = 1 update
# an epoch (2 in all), its groups running across the epoch's end; 5.x ceil(3 / 2) = 2 (4 in
# all), the second group of each epoch one micro-batch. The steps and their epochs do not depend
# on the order of the examples.
EPOCH_RUN = dict(gradient_accumulation_steps=2, per_device_train_batch_size=1, max_steps=-1, num_train_epochs=2)


@pytest.mark.parametrize("semantics", SEMANTICS)
def test_steps_per_epoch_as_each_release(tmp_path, semantics):
    model, tokenizer, records = make_job(tmp_path)
    records = records[:3]
    (tmp_path / "train.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    if semantics == "4.44":
        trainer, _ = hf_trainer(model, tokenizer, records, tmp_path, **EPOCH_RUN)
        max_steps, log = trainer.state.max_steps, trainer.state.log_history
    else:
        answer = run_hf5("train.py", dict(model_dir=str(tmp_path / "base"), records=records, args=EPOCH_RUN,
                                          token_weighted=True, max_source_length=MAX_SOURCE_LENGTH,
                                          max_target_length=MAX_TARGET_LENGTH,
                                          weights_out=str(tmp_path / "hf5.safetensors"),
                                          output_dir=str(tmp_path / "hf5")))
        max_steps, log = answer["max_steps"], answer["log_history"]
    want = [(e["step"], e["epoch"]) for e in log if "loss" in e]
    assert max_steps == {"4.44": 2, "5": 4}[semantics] and len(want) == max_steps
    _, _, state, _ = precis_train(tmp_path, tmp_path / "out", hf_semantics=semantics, **EPOCH_RUN)
    assert state["max_steps"] == max_steps
    assert [(e["step"], e["epoch"]) for e in state["log_history"] if "loss" in e] == want


# Two ranks (torchrun on the CPU over gloo; mpirun for precis), one example per rank per
# micro-batch, two micro-batches per step: each step is a whole epoch of the four examples
# (summaries of 15, 13, 6 and 6 label tokens). 4.44 averages the ranks' means of their
# micro-batch means, which with one example per micro-batch is the mean of the examples' means
# whatever the order; 5.x divides the summed token losses by the label tokens of both ranks.
DDP_RUN = dict(gradient_accumulation_steps=2, per_device_train_batch_size=1, max_grad_norm=0.0, max_steps=3)
# BART_WEIGHT_LIMIT's premise (Adam moves a weight by up to lr times the relative rounding of its
# gradient) with each gradient the sum of two ranks' halves, added by gloo or by precis's
# all-reduce in another order: a near-zero gradient's rounding grows by the cancellation.
# Measured: 8.9e-7 (4.44) and 2.2e-6 (5, one LayerNorm bias element; the next 3.7e-7).
DDP_WEIGHT_LIMIT = 1e-5


@pytest.fixture(scope="module")
def ddp_job(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ddp")
    _, _, records = make_job(tmp)
    records = records[2:6]
    (tmp / "train.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    ref = {}
    for release in SEMANTICS:
        answer = run_torchrun(release, "train.py", dict(
            model_dir=str(tmp / "base"), records=records, args=DDP_RUN, token_weighted=release == "5",
            max_source_length=MAX_SOURCE_LENGTH, max_target_length=MAX_TARGET_LENGTH,
            weights_out=str(tmp / f"hf-{release}.safetensors"), output_dir=str(tmp / f"hf-{release}")))
        ref[release] = {"weights": load_file(str(tmp / f"hf-{release}.safetensors")),
                        "log": [e for e in answer["log_history"] if "loss" in e]}
    return tmp, ref


def test_the_releases_train_differently_on_two_ranks(ddp_job):
    _, ref = ddp_job
    v4, v5 = ref["4.44"], ref["5"]
    for a, b in zip(v4["log"], v5["log"]):
        assert abs(a["loss"] - b["loss"]) > 1e-3, (a, b)
    assert max((v4["weights"][k] - v5["weights"][k]).abs().max().item() for k in v5["weights"]) \
        > 100 * BART_WEIGHT_LIMIT


@pytest.mark.parametrize("semantics", SEMANTICS)
def test_two_ranks_equal_torchrun_of_each_release(ddp_job, semantics):
    tmp, ref = ddp_job
    out = tmp / f"out-{semantics}"
    train(tmp, out, 2, hf_semantics=semantics, **DDP_RUN)
    ours = load_file(str(out / "model.safetensors"))
    worst = compare_weights(ours, ref[semantics]["weights"], BART_NOT_SAVED, DDP_WEIGHT_LIMIT)
    print(f"{semantics}: 2 ranks, worst weight diff {worst:.2e}")
    logged = [e for e in json.loads((out / "trainer_state.json").read_text())["log_history"] if "loss" in e]
    want = ref[semantics]["log"]
    assert [e["learning_rate"] for e in logged] == [e["learning_rate"] for e in want]
    for ours_entry, hf_entry in zip(logged, want):
        assert ours_entry["loss"] == pytest.approx(hf_entry["loss"], abs=1e-4)  # 4.44 rounds to 4 places
        assert ("grad_norm" in ours_entry) == ("grad_norm" in hf_entry)
        if "grad_norm" in hf_entry:
            assert abs(ours_entry["grad_norm"] - hf_entry["grad_norm"]) <= GRAD_NORM_RTOL * hf_entry["grad_norm"]


# ---- checkpoints: what precis writes loads in both releases --------------------------------


def load_in_444(model_dir):
    """load.py's answer from this process's transformers 4.44.2."""
    import io
    import logging
    import warnings
    from transformers import AutoModelForSeq2SeqLM, GenerationConfig
    from transformers.utils import logging as hf_logging
    logged = io.StringIO()
    handler = logging.StreamHandler(logged)
    hf_logging.get_logger().addHandler(handler)
    try:
        with warnings.catch_warnings(record=True) as raised:
            warnings.simplefilter("always")
            _, info = AutoModelForSeq2SeqLM.from_pretrained(model_dir, output_loading_info=True)
            AutoTokenizer.from_pretrained(model_dir)
            GenerationConfig.from_pretrained(model_dir)
    finally:
        hf_logging.get_logger().removeHandler(handler)
    return {"missing": sorted(info["missing_keys"]), "unexpected": sorted(info["unexpected_keys"]),
            # 4.44's own notice about its future default, raised for every BART tokenizer
            "warnings": [str(w.message) for w in raised if "clean_up_tokenization_spaces" not in str(w.message)]
            + [l for l in logged.getvalue().splitlines() if l]}


def test_an_untied_bart_written_under_5_loads_in_both_releases(tmp_path):
    # make_predict_job's BART has its own LM head (tie_word_embeddings false): 5's BART ties the
    # input embeddings to model.shared only when tied, so it needs them under their own names.
    make_predict_job(tmp_path)
    answers = {}
    for semantics in SEMANTICS:
        out = tmp_path / f"out-{semantics}"
        precis_train(tmp_path, out, hf_semantics=semantics, train_file=str(tmp_path / "data.jsonl"), max_steps=1)
        config = json.loads((out / "config.json").read_text())
        assert config["tie_word_embeddings"] is False
        assert config["transformers_version"] == {"4.44": "4.44.2", "5": "5.23.0"}[semantics]
        answers[semantics] = (load_in_444(str(out)), run_hf5("load.py", {"model_dir": str(out)}))
    clean = {"missing": [], "unexpected": [], "warnings": []}
    assert answers["5"] == (clean, clean), answers["5"]
    # Under 4.44, as 4.44's own save_pretrained: 5 finds no input embeddings of their own.
    assert answers["4.44"][0] == clean
    assert answers["4.44"][1]["missing"] == ["model.decoder.embed_tokens.weight", "model.encoder.embed_tokens.weight"]
