"""T5's tokenizer from tokenizer.json alone (precis UnigramTokenizer: Precompiled charsmap,
Metaspace, Unigram Viterbi) against transformers' T5TokenizerFast: ids, decoding, normalizer
output, vocabulary size and save -> AutoTokenizer, on the Unicode corpus of the BART tokenizer
tests plus sentinel and special-token texts.

The fast tokenizer is made the way Hub checkpoints got theirs: transformers' conversion of a
(tiny, trained here) spiece.model, saved with save_pretrained. precis then reads a directory
holding only tokenizer.json and the configs. Three files are checked: the current converter's
(prepend_scheme "always", legacy=True), legacy=False's (prepend_scheme "first") and the older
converter's layout (Replace " {2,}" -> " ", Sequence[WhitespaceSplit, Metaspace(add_prefix_space)]).
"""
import json
import shutil
import subprocess

import pytest

from conftest import UNICODE_CORPUS, precis_binary
from t5_models import SPECIAL_TEXTS, train_tiny_spiece
from tokenizer_support import tiny_spiece_corpus

pytest.importorskip("sentencepiece")

EXTRA = SPECIAL_TEXTS + [
    "<extra_id_3>starts with a sentinel",
    "</s>starts with eos",
    "  <pad>  spaces around a special  ",
]
TEXTS = UNICODE_CORPUS + EXTRA
# Characters the nmt_nfkc charsmap rewrites, alone and inside grapheme clusters.
CHARSMAP_TEXTS = [
    "ﬁne ﬂow ｆｕｌｌｗｉｄｔｈ ①②③ ㍻ ™ Ⅻ ﹏ …",
    "e\u0301 a\u0308 A\u030a\u0301 \u1100\u1161\u11a8 각",
    "line\r\nbreak\rcarriage\u2028sep\u0085next",
    "👨\u200d👩\u200d👧 🏳\ufe0f\u200d🌈 🇯🇵🇺🇸🇫",
    "\u00adsoft\u200ehyphen\ufeffbom \x07bell\x00nul",
    "Ａ\u0301 ｶﾞ ﾊﾟ ガ",
]


def tokenizer_json_only(src, dst, edit=None):
    """dst gets src's tokenizer.json (edited by `edit`) and configs, and no spiece.model. The
    config loses add_prefix_space, which the slow tokenizer writes and which would make
    T5TokenizerFast convert from spiece.model again (Hub files such as flan-t5's lack it)."""
    dst.mkdir(parents=True)
    tok = json.loads((src / "tokenizer.json").read_text())
    if edit:
        edit(tok)
    (dst / "tokenizer.json").write_text(json.dumps(tok, ensure_ascii=False))
    config = json.loads((src / "tokenizer_config.json").read_text())
    config.pop("add_prefix_space", None)
    (dst / "tokenizer_config.json").write_text(json.dumps(config, indent=2))
    shutil.copy(src / "special_tokens_map.json", dst / "special_tokens_map.json")
    return dst


def older_converter_layout(tok):
    """tokenizer.json as transformers' T5 conversion wrote it before the Strip/prepend_scheme era."""
    precompiled = tok["normalizer"]["normalizers"][0]
    assert precompiled["type"] == "Precompiled"
    tok["normalizer"] = {"type": "Sequence", "normalizers": [
        precompiled, {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "}]}
    metaspace = {"type": "Metaspace", "replacement": "\u2581", "add_prefix_space": True}
    tok["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, metaspace]}
    tok["decoder"] = dict(metaspace)


@pytest.fixture(scope="module")
def spiece_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("t5_unigram")
    slow = train_tiny_spiece(d, tiny_spiece_corpus())  # test_t5_tokenizer's
    slow.save_pretrained(str(d / "slow"))
    return d


@pytest.fixture(scope="module", params=["always", "first", "older-converter"])
def t5_fast(request, spiece_dir):
    """(directory with only tokenizer.json + configs, the T5TokenizerFast oracle)."""
    from transformers import T5TokenizerFast

    variant = request.param
    legacy = variant != "first"
    fast = T5TokenizerFast.from_pretrained(str(spiece_dir / "slow"), from_slow=True, legacy=legacy)
    saved = spiece_dir / f"fast-{variant}"
    if not saved.exists():
        fast.save_pretrained(str(saved))
    only = spiece_dir / f"only-{variant}"
    if not only.exists():
        tokenizer_json_only(saved, only, older_converter_layout if variant == "older-converter" else None)
    pre = json.loads((only / "tokenizer.json").read_text())["pre_tokenizer"]
    if variant == "older-converter":
        # The oracle is transformers reading the edited file.
        fast = T5TokenizerFast.from_pretrained(str(only))
    else:
        assert pre["prepend_scheme"] == variant
        # Reading the file back gives the converted tokenizer (a check on the directory itself).
        reread = T5TokenizerFast.from_pretrained(str(only))
        assert [reread(t).input_ids for t in TEXTS] == [fast(t).input_ids for t in TEXTS]
    assert not (only / "spiece.model").exists()
    return only, fast


def probe(cmd, tok_dir, items, tmp_path, *extra):
    (tmp_path / "in.json").write_text(json.dumps(items))
    result = subprocess.run([precis_binary("unigram_probe"), cmd, tok_dir, tmp_path / "in.json", *extra],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    # One JSON value per "\n" (not splitlines(): U+2028 inside a value is not a line end).
    return [json.loads(line) for line in result.stdout.split("\n") if line]


def run_probe(*args):
    return subprocess.run([precis_binary("unigram_probe"), *map(str, args)], capture_output=True, text=True)


def assert_ids_equal(tok_dir, fast, texts, tmp_path):
    ours = probe("encode", tok_dir, texts, tmp_path)
    plain = probe("encode", tok_dir, texts, tmp_path, "plain")
    assert len(ours) == len(plain) == len(texts)
    for text, ids, ids_plain in zip(texts, ours, plain):
        ref = fast(text).input_ids
        assert ids == ref, f"{text!r}: ours {ids} vs T5TokenizerFast {ref} ({fast.convert_ids_to_tokens(ref)})"
        ref_plain = fast(text, add_special_tokens=False).input_ids
        assert ids_plain == ref_plain, f"{text!r} without specials: ours {ids_plain} vs {ref_plain}"
    return ours


def test_ids_equal_t5tokenizerfast(t5_fast, tmp_path):
    tok_dir, fast = t5_fast
    ours = assert_ids_equal(tok_dir, fast, TEXTS + CHARSMAP_TEXTS, tmp_path)
    print(f"ids equal on {len(ours)}/{len(ours)} texts")
    assert any(2 in ids for ids in ours), "the corpus should exercise <unk>"
    assert any(len(ids) > 1 and ids[-2:] == [1, 1] for ids in ours), "a text ending in </s> keeps both"


@pytest.mark.parametrize("skip", [True, False])
def test_decode_equals_t5tokenizerfast(t5_fast, tmp_path, skip):
    tok_dir, fast = t5_fast
    # Encoded texts, and generated-like rows: decoder start (pad) first, pad after </s>;
    # sentinels inside; a row starting with a piece that begins with "▁".
    rows = [fast(t).input_ids for t in TEXTS + CHARSMAP_TEXTS]
    rows += [[0] + r + [0, 0] for r in rows[:6]]
    rows += [[0, len(fast) - 1, 5, 6, len(fast) - 2, 1], [3, 3, 7, 3], list(range(len(fast)))]
    ours = probe("decode", tok_dir, rows, tmp_path, *([] if skip else ["keep"]))
    assert len(ours) == len(rows)
    for ids, text in zip(rows, ours):
        ref = fast.decode(ids, skip_special_tokens=skip)
        assert text == ref, f"{ids}: ours {text!r} vs T5TokenizerFast {ref!r}"


def test_normalizer_equals_tokenizers(t5_fast, tmp_path):
    tok_dir, fast = t5_fast
    texts = TEXTS + CHARSMAP_TEXTS
    ours = probe("normalize", tok_dir, texts, tmp_path)
    normalizer = fast.backend_tokenizer.normalizer
    for text, got in zip(texts, ours):
        assert got == normalizer.normalize_str(text), f"{text!r}: ours {got!r}"


def test_size_and_special_ids(t5_fast):
    tok_dir, fast = t5_fast
    result = run_probe("info", tok_dir)
    assert result.returncode == 0, result.stderr
    info = json.loads(result.stdout)
    assert info == {"size": len(fast), "eos_id": fast.eos_token_id, "pad_id": fast.pad_token_id}


def test_save_round_trips_through_autotokenizer(t5_fast, tmp_path):
    from transformers import AutoTokenizer, T5TokenizerFast

    tok_dir, fast = t5_fast
    # From the directory as read, and from a bare tokenizer.json (save writes the configs).
    bare = tmp_path / "bare"
    bare.mkdir()
    shutil.copy(tok_dir / "tokenizer.json", bare / "tokenizer.json")
    for source in (tok_dir, bare):
        out = tmp_path / f"saved-{source.name}"
        result = run_probe("save", source, out)
        assert result.returncode == 0, result.stderr
        assert (out / "tokenizer.json").read_bytes() == (tok_dir / "tokenizer.json").read_bytes()
        loaded = AutoTokenizer.from_pretrained(str(out))
        assert isinstance(loaded, T5TokenizerFast)
        assert len(loaded) == len(fast)
        assert loaded.eos_token_id == fast.eos_token_id and loaded.pad_token_id == fast.pad_token_id
        for text in TEXTS:
            assert loaded(text).input_ids == fast(text).input_ids, text
            ids = fast(text).input_ids
            assert loaded.decode(ids) == fast.decode(ids), text
        # precis reads its own save back the same.
        assert probe("encode", out, TEXTS, tmp_path) == [fast(t).input_ids for t in TEXTS]


def test_grapheme_clusters_equal_regex(tmp_path):
    regex = pytest.importorskip("regex")
    texts = TEXTS + CHARSMAP_TEXTS + ["\u0600\u0661 x\u0903 \U0001f469\U0001f3fd\u200d\U0001f4bb \u200d\U0001f600"]
    ours = probe("graphemes", "-", texts, tmp_path)
    for text, clusters in zip(texts, ours):
        assert clusters == regex.findall(r"\X", text), repr(text)


def test_bad_files_name_file_and_field(t5_fast, tmp_path):
    tok_dir, _ = t5_fast
    tok = json.loads((tok_dir / "tokenizer.json").read_text())

    def error_for(edit, name):
        d = tmp_path / name
        d.mkdir()
        broken = json.loads(json.dumps(tok))
        edit(broken)
        (d / "tokenizer.json").write_text(json.dumps(broken))
        result = run_probe("info", d)
        assert result.returncode == 1
        assert str(d / "tokenizer.json") in result.stderr
        return result.stderr

    def set_model_type(t):
        t["model"]["type"] = "BPE"

    def break_charsmap(t):
        for n in t["normalizer"]["normalizers"]:
            if n["type"] == "Precompiled":
                n["precompiled_charsmap"] = "AAAA!!"

    def truncate_charsmap(t):
        for n in t["normalizer"]["normalizers"]:
            if n["type"] == "Precompiled":
                n["precompiled_charsmap"] = n["precompiled_charsmap"][:8]

    def bad_vocab(t):
        t["model"]["vocab"][5] = ["x"]

    def bad_normalizer(t):
        t["normalizer"] = {"type": "Lowercase"}

    assert "model.type" in error_for(set_model_type, "model")
    assert "precompiled_charsmap" in error_for(break_charsmap, "base64")
    assert "precompiled_charsmap trie size" in error_for(truncate_charsmap, "trie")
    assert "model.vocab[5]" in error_for(bad_vocab, "vocab")
    assert "normalizer type 'Lowercase'" in error_for(bad_normalizer, "normalizer")
    missing = run_probe("info", tmp_path / "nowhere")
    assert missing.returncode == 1 and "tokenizer.json" in missing.stderr
