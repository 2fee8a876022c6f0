"""precis's byte-level BPE tokenizer against Hugging Face, live: transformers' AutoTokenizer
(BartTokenizerFast) and the `tokenizers` library. Every assertion compares with what HF
returns in this run; nothing is a number committed once."""
import copy
import json
import pathlib
import shutil
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from conftest import UNICODE_CORPUS, run_precis  # noqa: E402
from tokenizer_support import assert_ids_equal, json_lines, write_lines  # noqa: E402

# Cases beyond the shared corpus that exercise each branch of the pre-split and of the
# added-token matcher.
EXTRA_CASES = [
    "Hello world",
    "don't 's 't 're 've 'm 'll 'd 'S 'T 'RE 'x ''s '",
    "a\u00a0 b  \u00a0c\t \nd \u3000e",
    "x  \n  y \n\n z",
    "trailing newline\n",
    " \t ",
    "!!!'s ...'ll ?!?",
    "1st 2nd 3.14 ¹²³ ⅷ ١٢٣ 𝟘𝟙 ᛮ",
    "<mask><mask> <mask>  <mask>\t<mask>\u00a0<mask>",
    "<s></s><pad><unk><mask>",
    "<s <mask <mas k> </s",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𐍈 𠜎𠜱 \U0001F600\U0001F601",
    "\u0085NEL\u2028LS\u2029PS\u001cFS\u001dGS\u001eRS\u001fUS\u000bVT\u000cFF",
    "\u180eMVS\u200bZWSP\ufeffBOM",
    "é" * 50 + " " + "ab" * 200,
    "A" * 3000,
    "  ".join(["word"] * 100),
    "Ĵ ğ Ġ Ċ ĉ Ń ń",
    "日本語の文章です。これはテストです。",
    "Ну что, пойдём завтра в кино? Давай!",
    "العربية: مرحبا بالعالم ١٢٣",
    "हिन्दी में लिखा गया पाठ",
    "mixed123numbers456and_letters",
    "\x00\x01\x7f controls \x1b[0m",
]
CORPUS = UNICODE_CORPUS + EXTRA_CASES


def hf_fast(directory):
    from transformers import AutoTokenizer, BartTokenizerFast

    if (pathlib.Path(directory) / "tokenizer_config.json").exists():
        tok = AutoTokenizer.from_pretrained(str(directory))
    else:  # the bare vocab.json + merges.txt of roberta-base / bart-large
        tok = BartTokenizerFast.from_pretrained(str(directory))
    assert tok.is_fast
    return tok


def precis_encode(model_dir, texts, tmp_path, *extra):
    inp = write_lines(tmp_path / "texts.jsonl", texts)
    out = json_lines(run_precis("tokenize", "--model", model_dir, "--input", inp, *extra).stdout)
    assert len(out) == len(texts)
    return [row["ids"] for row in out]


def precis_decode(model_dir, id_lists, tmp_path, *extra):
    inp = write_lines(tmp_path / "ids.jsonl", [{"ids": ids} for ids in id_lists])
    out = json_lines(run_precis("tokenize", "--model", model_dir, "--input", inp, *extra).stdout)
    assert len(out) == len(id_lists)
    return [row["text"] for row in out]


@pytest.fixture(params=["roberta", "tiny"])
def model_dir(request):
    return request.getfixturevalue(f"{request.param}_bpe_dir")


def test_hello_world_real_vocabulary(roberta_bpe_dir):
    out = json_lines(run_precis("tokenize", "--model", roberta_bpe_dir, "--text", "Hello world").stdout)
    assert out == [{"ids": hf_fast(roberta_bpe_dir)("Hello world").input_ids}]
    assert out[0]["ids"] == [0, 31414, 232, 2]


@pytest.mark.parametrize("special", [True, False])
def test_ids_equal_hf(model_dir, tmp_path, special):
    hf = hf_fast(model_dir)
    extra = [] if special else ["--no_special_tokens"]
    ours = precis_encode(model_dir, CORPUS, tmp_path, *extra)
    theirs = [hf(t, add_special_tokens=special).input_ids for t in CORPUS]
    assert_ids_equal(ours, theirs, CORPUS)


def test_ids_equal_tokenizers_library(tiny_bpe_dir, tmp_path):
    from tokenizers import Tokenizer

    rust = Tokenizer.from_file(str(tiny_bpe_dir / "tokenizer.json"))
    ours = precis_encode(tiny_bpe_dir, CORPUS, tmp_path)
    assert_ids_equal(ours, [e.ids for e in rust.encode_batch(CORPUS)], CORPUS)


@pytest.mark.parametrize("special", [True, False])
def test_truncation(model_dir, tmp_path, special):
    hf = hf_fast(model_dir)
    for max_length in [0, 1, 2, 3, 5, 8, 17, 64]:
        extra = ["--max_length", max_length] + ([] if special else ["--no_special_tokens"])
        ours = precis_encode(model_dir, CORPUS, tmp_path, *extra)
        theirs = [hf(t, max_length=max_length, truncation=True, add_special_tokens=special).input_ids
                  for t in CORPUS]
        assert_ids_equal(ours, theirs, [f"{t!r} max_length={max_length}" for t in CORPUS])


def test_every_code_point_class(tiny_bpe_dir, tmp_path):
    """Each code point after a letter, a digit, a symbol, a space and a tab: the pre-split
    (so \\p{L}, \\p{N}, \\s) must agree with Oniguruma's for all of Unicode."""
    from tokenizers import Tokenizer

    rust = Tokenizer.from_file(str(tiny_bpe_dir / "tokenizer.json"))
    texts, chunk = [], []
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        c = chr(cp)
        chunk.append(f"a{c}1{c}!{c} {c}\t{c}")
        if len(chunk) == 2048:
            texts.append("".join(chunk))
            chunk = []
    texts.append("".join(chunk))
    ours = precis_encode(tiny_bpe_dir, texts, tmp_path, "--no_special_tokens")
    theirs = [e.ids for e in rust.encode_batch(texts, add_special_tokens=False)]
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert a == b, f"code points from U+{i * 2048:04X}: ids differ"


def decode_cases(hf, texts):
    """Ids from real text, every special, ids past the vocabulary, and byte tokens that form
    invalid UTF-8 (truncated, overlong, surrogate, out of range, stray continuation)."""
    byte_token = {}
    from transformers.models.gpt2.tokenization_gpt2 import bytes_to_unicode

    vocab = hf.get_vocab()
    for b, ch in bytes_to_unicode().items():
        byte_token[b] = vocab[ch]
    bad_bytes = [[0xE2, 0x82], [0xE2, 0x82, 0x41], [0xF0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xC0, 0xAF],
                 [0xF4, 0x90, 0x80, 0x80], [0xFF], [0x80, 0x80], [0xF0, 0x9F, 0x98], [0xC3]]
    cases = [hf(t).input_ids for t in texts]
    cases += [[byte_token[b] for b in seq] for seq in bad_bytes]
    cases += [[byte_token[0x41]] + [byte_token[b] for b in seq] + [hf.eos_token_id, byte_token[0x20],
                                                                   byte_token[0x2E]] for seq in bad_bytes]
    cases += [sorted(set(hf.all_special_ids)) + [len(hf) + 5, 10**6] + hf("a , b . c ' d n't").input_ids]
    return cases


@pytest.mark.parametrize("skip", [True, False])
@pytest.mark.parametrize("clean_up", [True, False, None])
def test_decode_equal_hf(model_dir, tmp_path, skip, clean_up):
    hf = hf_fast(model_dir)
    cases = decode_cases(hf, CORPUS)
    extra = ["--skip_special_tokens"] if skip else []
    if clean_up is not None:
        extra += ["--clean_up_tokenization_spaces", str(clean_up).lower()]
    ours = precis_decode(model_dir, cases, tmp_path, *extra)
    for ids, text in zip(cases, ours):
        want = hf.decode(ids, skip_special_tokens=skip, clean_up_tokenization_spaces=clean_up)
        assert text == want, f"decode({ids}) differs"


def test_merges_in_both_formats(tiny_bpe_dir, tmp_path):
    """tokenizer.json merges as "a b" strings (tokenizers < 0.20) and as ["a", "b"] pairs
    (>= 0.20). The installed tokenizers reads only strings, so HF runs on the string file and
    precis on both."""
    hf = hf_fast(tiny_bpe_dir)
    theirs = [hf(t).input_ids for t in CORPUS]
    spec = json.loads((tiny_bpe_dir / "tokenizer.json").read_text(encoding="utf-8"))
    assert all(isinstance(m, str) for m in spec["model"]["merges"])
    for form in ["strings", "pairs"]:
        d = tmp_path / form
        shutil.copytree(tiny_bpe_dir, d)
        j = copy.deepcopy(spec)
        if form == "pairs":
            j["model"]["merges"] = [m.split(" ") for m in j["model"]["merges"]]
        (d / "tokenizer.json").write_text(json.dumps(j, ensure_ascii=False), encoding="utf-8")
        (d / "vocab.json").unlink()  # make sure tokenizer.json is what is read
        (d / "merges.txt").unlink()
        assert_ids_equal(precis_encode(d, CORPUS, tmp_path), theirs, CORPUS)


def test_slow_files_only(tiny_bpe_dir, tmp_path):
    """vocab.json + merges.txt (+ configs), no tokenizer.json: transformers converts the slow
    tokenizer; precis must build the same one."""
    d = tmp_path / "slow"
    shutil.copytree(tiny_bpe_dir, d)
    (d / "tokenizer.json").unlink()
    hf = hf_fast(d)
    ours = precis_encode(d, CORPUS, tmp_path)
    assert_ids_equal(ours, [hf(t).input_ids for t in CORPUS], CORPUS)


def test_add_prefix_space(tiny_bpe_dir, tmp_path):
    d = tmp_path / "prefix"
    shutil.copytree(tiny_bpe_dir, d)
    config = json.loads((d / "tokenizer_config.json").read_text())
    config["add_prefix_space"] = True
    (d / "tokenizer_config.json").write_text(json.dumps(config))
    hf = hf_fast(d)
    ours = precis_encode(d, CORPUS, tmp_path)
    assert_ids_equal(ours, [hf(t).input_ids for t in CORPUS], CORPUS)


def test_saved_files_load_in_hf(model_dir, tmp_path):
    from transformers import AutoTokenizer

    out = tmp_path / "saved"
    run_precis("tokenize", "--model", model_dir, "--save", out)
    hf_original = hf_fast(model_dir)
    theirs = [hf_original(t).input_ids for t in CORPUS]
    fast = AutoTokenizer.from_pretrained(str(out))
    slow = AutoTokenizer.from_pretrained(str(out), use_fast=False)
    assert type(fast).__name__ == "BartTokenizerFast" and len(fast) == len(hf_original)
    assert_ids_equal([fast(t).input_ids for t in CORPUS], theirs, CORPUS)
    # The slow tokenizer differs from the fast one on some odd whitespace by design; it must
    # load our vocab.json/merges.txt and agree on ordinary text.
    plain = ["Hello world", "The capital of France is <mask>.", UNICODE_CORPUS[5], UNICODE_CORPUS[10]]
    assert [slow(t).input_ids for t in plain] == [hf_original(t).input_ids for t in plain]
    assert fast.pad_token_id == hf_original.pad_token_id and fast.mask_token_id == hf_original.mask_token_id
    # And precis reads back what it wrote.
    assert_ids_equal(precis_encode(out, CORPUS, tmp_path), theirs, CORPUS)


@pytest.mark.parametrize("break_it,message", [
    (lambda d: (d / "tokenizer.json").write_text("{not json"), "tokenizer.json: not valid JSON"),
    (lambda d: (d / "tokenizer.json").write_text('{"model": {"type": "WordPiece"}}'), "should be a BPE model"),
    (lambda d: (d / "tokenizer.json").write_text(
        (d / "tokenizer.json").read_text().replace('"merges": [', '"merges": ["zzz qqq", ')),
     "not in the vocabulary"),
    (lambda d: ((d / "tokenizer.json").unlink(), (d / "merges.txt").write_text("#version: 0.2\na b c\n")),
     "merges.txt:2: expected two tokens"),
    (lambda d: ((d / "tokenizer.json").unlink(), (d / "vocab.json").unlink()), "no tokenizer.json"),
    (lambda d: (d / "tokenizer_config.json").write_text('{"add_prefix_space": "yes"}'),
     "tokenizer_config.json: \"add_prefix_space\" should be true or false"),
])
def test_bad_files_give_one_line_errors(tiny_bpe_dir, tmp_path, break_it, message):
    d = tmp_path / "broken"
    shutil.copytree(tiny_bpe_dir, d)
    break_it(d)
    result = run_precis("tokenize", "--model", d, "--text", "x", check=False)
    assert result.returncode == 1, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("precis: error: ") and message in lines[0], lines


def test_bad_input_line_names_file_and_line(tiny_bpe_dir, tmp_path):
    inp = tmp_path / "in.jsonl"
    inp.write_text('"fine"\n\n{"text": 3}\n')
    result = run_precis("tokenize", "--model", tiny_bpe_dir, "--input", inp, check=False)
    assert result.returncode == 1
    assert f"{inp}:3: expected a JSON string or an object" in result.stderr
