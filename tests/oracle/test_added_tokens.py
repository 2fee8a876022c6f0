"""Tokens a user adds (tokenizer.add_tokens([AddedToken(...)]) then save_pretrained) against
transformers, on the tiny byte-level BPE (from tokenizer.json and from the slow files) and
on a T5 tokenizer.json: precis tokenize encodes and decodes as the reloaded HF tokenizer does.

Each case adds a token with one flag (single_word, lstrip, rstrip, normalized=False,
special=False) and, as its control, the same token without it; texts are chosen where the
flag matters, and the test asserts that HF's output does change with the flag, so that a
precis that ignored it would fail.

The rules are those of tokenizers 0.19.1's AddedVocabulary (tokenizers/src/tokenizer/
added_vocabulary.rs): find_matches walks an aho-corasick LeftmostLongest automaton, each
search starting where the last match ended (so the whitespace an rstrip took can start the
next match), single_word tests `\\w$` / `^\\w` (regex crate, Unicode 15.0) beside the match,
and refresh_added_tokens runs the normalizer over the content of normalized tokens (special
tokens first, then the others, so the first of two equal patterns in that order wins)."""
import itertools
import json

import pytest
from tokenizers import AddedToken

from conftest import UNICODE_CORPUS, run_precis
from tokenizer_support import assert_ids_equal, json_lines, write_lines

# name: (tokens with the flag, the same tokens without it, texts where the flag matters)
CASES = {
    "single_word": (
        [AddedToken("zq", single_word=True)], [AddedToken("zq")],
        ["zq", "zq cd zq", "czq zqc", "x zq,zq. zq!", "(zq)\tzq-zq 1zq2", "ézq zqé", "٣zq zqⅧ"]),
    # Word characters are those of the regex \w (tokenizers' single_word check): letters,
    # marks, decimal digits, connector punctuation (_), joiners; not other numbers (², ½).
    # Other_Alphabetic symbols (ⓐ) count; the Unicode is the regex crate's 15.0: Kawi (15.0)
    # is a word character, CJK Extension I (15.1) not yet. test_single_word_every_code_point
    # checks all of Unicode.
    "single_word-\\w": (
        [AddedToken("zq", single_word=True)], [AddedToken("zq")],
        ["zq_ _zq zq", "zq\u0301 \u0301zq", "zq\u200d", "zq² ½zq", "zq\u203f", "ⓐzq zqⓐ",
         "zq\U00011F04 \U00011F04zq", "zq\U0002EBF0 \U0002EBF0zq"]),
    "lstrip": (
        [AddedToken("<L>", lstrip=True)], [AddedToken("<L>")],
        ["a <L>b", "a   <L>  b", "<L>", " \t<L>x", "a\n<L>\n"]),
    "rstrip": (
        [AddedToken("<R>", rstrip=True)], [AddedToken("<R>")],
        ["a<R> b", "a <R>   b", "<R>", "x<R> \t\ny", "<R><R> "]),
    "lstrip-rstrip-single_word": (
        [AddedToken("cd", lstrip=True, rstrip=True, single_word=True)], [AddedToken("cd")],
        ["a cd b", "acd cd", "cd  cde  cd", " cd "]),
    # Tokens that are not normalized are cut out of the raw text first, then the normalized
    # ones from what is left: "bc" (raw) wins over "ab" (normalized) in "abc", whereas two
    # normalized tokens match leftmost first.
    "normalized=False": (
        [AddedToken("bc", normalized=False), AddedToken("ab")], [AddedToken("bc"), AddedToken("ab")],
        ["abc", "xabcx ab bc", "abcabc"]),
    # The whitespace an rstrip swallows is searched again: " x" matches there too, and its
    # space is in both tokens.
    "rstrip-then-match": (
        [AddedToken("<R>", rstrip=True, normalized=False), AddedToken(" x", normalized=False)],
        [AddedToken("<R>", normalized=False), AddedToken(" x", normalized=False)],
        ["<R> x", "<R>  x", "a<R> xb", "<R>\tx <R>"]),
    # lstrip never reaches back into what rstrip took: a "\t" there is dropped (or, wholly
    # inside it with more after, makes tokenizers panic: test_where_tokenizers_panics).
    "rstrip-then-lstrip": (
        [AddedToken("<R>", rstrip=True, normalized=False), AddedToken("\t", lstrip=True, normalized=False)],
        [AddedToken("<R>", rstrip=True, normalized=False), AddedToken("\t", normalized=False)],
        ["<R> \t", "a \tb", "<R> \tx \t"]),
    # An added token that is not special stays in decode(skip_special_tokens=True).
    "special=False": (
        [AddedToken("<sp>", special=False, normalized=False)], [AddedToken("<sp>", special=True, normalized=False)],
        ["a <sp> b", "<sp><sp>", "x<sp>"]),
}
# T5 (legacy Metaspace, "▁" put before every piece): rstrip alone cannot change the output,
# since the piece after the token gets its "▁" whether or not its space was kept; it is
# tested together with lstrip and single_word. T5's normalizer (nmt_nfkc, runs of spaces to
# one) changes the text: a token that is not normalized is looked for in the raw text, a
# normalized one in the normalized text, and tokenizers normalizes the token's own content
# too before looking for it (Precompiled: "ｆｕｌｌ" -> "full"; Replace: "x  y" -> "x▁y";
# Strip right: "zq " -> "zq").
T5_CASES = dict({k: v for k, v in CASES.items() if not k.startswith("rstrip")}, **{
    "normalized=False-t5": (
        [AddedToken("qz", normalized=False)], [AddedToken("qz")],
        ["ｑｚ", "a ｑｚ b qz", "qzｑｚ"]),
    "normalized-content-t5": (
        [AddedToken("x  y"), AddedToken("ｆｕｌｌ"), AddedToken("zq ")],
        [AddedToken("x  y", normalized=False), AddedToken("ｆｕｌｌ", normalized=False),
         AddedToken("zq ", normalized=False)],
        ["x  y z", "a ｆｕｌｌ b full", "x y ｆｕｌｌｆｕｌｌ", "a zq b zqzq"]),
    # "qzq" and "ｑｚｑ" both look for "qzq": the special one is looked for first and wins,
    # though added later; between two that are not special, the first added wins.
    "normalized-special-first-t5": (
        [AddedToken("qzq"), AddedToken("ｑｚｑ", special=True, normalized=True)],
        [AddedToken("qzq"), AddedToken("ｑｚｑ")],
        ["a qzq b", "ｑｚｑ", "qzqｑｚｑ"]),
})
# A normalized token whose content T5's normalizer removes ("\u200b") is an empty pattern,
# which matches at every byte of the normalized text where no other token does: it splits
# the text into characters, single_word keeps only the splits between two non-word
# characters, lstrip / rstrip make tokens of the spaces. tokenizers panics where the
# normalized text is not ASCII then (test_where_tokenizers_panics), so these texts
# are ASCII, and without runs of spaces (which the normalizer makes "▁").
EMPTY_PATTERN_CASES = {
    "empty-pattern": ([AddedToken("\u200b")], [AddedToken("\u200b", normalized=False)],
                      ["ab", "a b", "x y, z!", " a "]),
    "empty-pattern-single_word": ([AddedToken("\u200b", single_word=True)], [AddedToken("\u200b")],
                                  ["ab", "a b", "x y, z!", "(a)"]),
    "empty-pattern-lstrip-rstrip": ([AddedToken("\u200b", lstrip=True, rstrip=True)], [AddedToken("\u200b")],
                                    ["a b", "x y, z!", " a  "]),
}
ALL_TOKENS_TEXT = "zq czq <L> a<R> b cd bc abc <sp> qz ｑｚ x  y ｆｕｌｌ ｑｚｑ qzq " + UNICODE_CORPUS[3]


def add_tokens(hf, tokens):
    for t in tokens:
        hf.add_tokens([t], special_tokens=t.special)


def hf_outputs(hf, texts):
    """What precis must reproduce: ids with and without specials, and the decoded ids."""
    ids = [hf(t).input_ids for t in texts]
    return dict(ids=ids, plain_ids=[hf(t, add_special_tokens=False).input_ids for t in texts],
                text=[hf.decode(i) for i in ids], skip=[hf.decode(i, skip_special_tokens=True) for i in ids])


def precis_outputs(model_dir, texts, tmp_path):
    inp = write_lines(tmp_path / "texts.jsonl", texts)
    with_specials = json_lines(run_precis("tokenize", "--model", model_dir, "--input", inp, "--decode",
                                          "--skip_special_tokens").stdout)
    plain = json_lines(run_precis("tokenize", "--model", model_dir, "--input", inp, "--no_special_tokens").stdout)
    ids = write_lines(tmp_path / "ids.jsonl", [{"ids": o["ids"]} for o in with_specials])
    decoded = json_lines(run_precis("tokenize", "--model", model_dir, "--input", ids).stdout)
    return dict(ids=[o["ids"] for o in with_specials], plain_ids=[o["ids"] for o in plain],
                text=[o["text"] for o in decoded], skip=[o["text"] for o in with_specials])


def assert_outputs_equal(ours, theirs, texts):
    for key in ("ids", "plain_ids"):
        assert_ids_equal(ours[key], theirs[key], [f"{t!r} ({key})" for t in texts])
    for key in ("text", "skip"):
        for text, a, b in zip(texts, ours[key], theirs[key]):
            assert a == b, f"decode ({key}) differs for {text!r}:\n precis {a!r}\n HF     {b!r}"


def check_case(base, make_hf, tokens, control, texts, tmp_path, drop=()):
    """Adds `tokens` (and, apart, `control`) to the tokenizer in `base`, saves both, and
    compares precis with the reloaded HF tokenizer; HF must tell the two apart."""
    results = []
    for name, added in (("flag", tokens), ("control", control)):
        hf = make_hf(base)
        add_tokens(hf, added)
        d = tmp_path / name
        hf.save_pretrained(d)
        for f in drop:
            (d / f).unlink()
        reloaded = make_hf(d)
        saved = {t.content: t for t in reloaded.added_tokens_decoder.values()}
        for t in added:  # the flags survive save_pretrained
            s = saved[t.content]
            assert (s.single_word, s.lstrip, s.rstrip, s.normalized, s.special) == \
                (t.single_word, t.lstrip, t.rstrip, t.normalized, t.special), t
        theirs = hf_outputs(reloaded, texts)
        assert_outputs_equal(precis_outputs(d, texts, tmp_path), theirs, texts)
        results.append(theirs)
    assert results[0] != results[1], "HF gives the same output with and without the flag: the texts do not test it"


def bart_fast(directory):
    from transformers import AutoTokenizer
    return AutoTokenizer.from_pretrained(str(directory))


@pytest.mark.parametrize("files", ["tokenizer.json", "slow-files"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_added_token_flags_bpe(tiny_bpe_dir, tmp_path, case, files):
    tokens, control, texts = CASES[case]
    drop = ("tokenizer.json",) if files == "slow-files" else ()
    check_case(tiny_bpe_dir, bart_fast, tokens, control, texts + [ALL_TOKENS_TEXT], tmp_path, drop)


@pytest.fixture(scope="module")
def t5_fast_dir(tmp_path_factory):
    """A T5TokenizerFast checkpoint (tokenizer.json only, as on the Hub) on a tiny unigram model."""
    pytest.importorskip("sentencepiece")
    from t5_models import train_tiny_spiece
    from transformers import T5TokenizerFast
    tmp = tmp_path_factory.mktemp("t5_added")
    corpus = [t for t in UNICODE_CORPUS if t.strip()] * 3 + [" ".join(v[2]) for v in T5_CASES.values()] * 5
    slow = train_tiny_spiece(tmp / "spm", corpus, vocab_size=150)
    slow.save_pretrained(tmp / "slow")
    T5TokenizerFast.from_pretrained(tmp / "slow", from_slow=True, legacy=True).save_pretrained(tmp / "fast")
    (tmp / "fast" / "spiece.model").unlink(missing_ok=True)
    config = json.loads((tmp / "fast" / "tokenizer_config.json").read_text())
    config.pop("add_prefix_space", None)  # as Hub files: no re-conversion from spiece.model
    (tmp / "fast" / "tokenizer_config.json").write_text(json.dumps(config))
    return tmp / "fast"


def t5_fast(directory):
    from transformers import T5TokenizerFast
    return T5TokenizerFast.from_pretrained(str(directory))


@pytest.mark.parametrize("case", sorted(T5_CASES))
def test_added_token_flags_t5(t5_fast_dir, tmp_path, case):
    tokens, control, texts = T5_CASES[case]
    check_case(t5_fast_dir, t5_fast, tokens, control, texts + [ALL_TOKENS_TEXT], tmp_path)


@pytest.mark.parametrize("case", sorted(EMPTY_PATTERN_CASES))
def test_added_token_empty_pattern_t5(t5_fast_dir, tmp_path, case):
    tokens, control, texts = EMPTY_PATTERN_CASES[case]
    check_case(t5_fast_dir, t5_fast, tokens, control, texts, tmp_path)


# Where tokenizers panics: an empty pattern matched inside a multi-byte character ("x  y"
# is "x▁y" once normalized), and an lstrip token that lies wholly in the whitespace an
# earlier rstrip took (its start moves past its end). (model, tokens, a text that works,
# texts that panic)
PANICS = {
    "empty-pattern-non-ascii": ("t5", [AddedToken("\u200b")], "a b", ["aé", "x  y"]),
    "lstrip-inside-rstrip": ("bpe", [AddedToken("<R>", rstrip=True, normalized=False),
                                     AddedToken("\t", lstrip=True, normalized=False)], "<R> \t", ["<R>\t b"]),
}


@pytest.mark.parametrize("case", sorted(PANICS))
def test_where_tokenizers_panics(request, tmp_path, case):
    """precis tokenize fails there, with tokenizers' message, rather than making up ids."""
    model, tokens, fine, panics = PANICS[case]
    base, make_hf = ((request.getfixturevalue("t5_fast_dir"), t5_fast) if model == "t5"
                     else (request.getfixturevalue("tiny_bpe_dir"), bart_fast))
    hf = make_hf(base)
    add_tokens(hf, tokens)
    hf.save_pretrained(tmp_path / "model")
    hf = make_hf(tmp_path / "model")
    assert precis_outputs(tmp_path / "model", [fine], tmp_path)["ids"] == [hf(fine).input_ids]
    for text in panics:
        with pytest.raises(BaseException, match="AddedVocabulary bad split"):
            hf(text)
        inp = write_lines(tmp_path / "texts.jsonl", [text])
        result = run_precis("tokenize", "--model", tmp_path / "model", "--input", inp, check=False)
        assert result.returncode != 0 and "AddedVocabulary bad split" in result.stderr, (text, result.stderr)


def every_code_point_texts():
    """Each code point c as "zq{c} {c}zq ", 64 to a text: all of planes 0-3 and 14 (where the
    assigned characters are) and one in 251 of the others (unassigned, private use)."""
    texts, chunk = [], []
    for cp in range(0x110000):
        if 0xD800 <= cp <= 0xDFFF or ((0x40000 <= cp < 0xE0000 or cp >= 0xF0000) and cp % 251):
            continue
        chunk.append(f"zq{chr(cp)} {chr(cp)}zq ")
        if len(chunk) == 64:
            texts.append("".join(chunk))
            chunk = []
    return texts + ["".join(chunk)]


def test_single_word_every_code_point(tiny_bpe_dir, tmp_path):
    """single_word beside each code point: precis cuts "zq" out where tokenizers does. The
    reference is tokenizers' AddedVocabulary on a WordLevel model, which gives one [UNK] per
    piece between two added tokens, so its output is the pattern of matches itself (a BPE
    model would give the same matches, at many times the cost); precis's BPE ids are
    reduced to the same pattern (each run of ids that are not "zq" one piece)."""
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel

    texts = every_code_point_texts()
    rust = Tokenizer(WordLevel({"[UNK]": 0}, unk_token="[UNK]"))
    rust.add_tokens([AddedToken("zq", single_word=True)])
    theirs = [e.ids for e in rust.encode_batch(texts, add_special_tokens=False)]
    assert len({t.count(1) for t in theirs}) > 1, "the characters beside zq do not decide: no test"

    hf = bart_fast(tiny_bpe_dir)
    add_tokens(hf, [AddedToken("zq", single_word=True)])
    hf.save_pretrained(tmp_path / "model")
    zq = hf.convert_tokens_to_ids("zq")
    inp = write_lines(tmp_path / "texts.jsonl", texts)
    out = json_lines(run_precis("tokenize", "--model", tmp_path / "model", "--input", inp,
                                "--no_special_tokens").stdout)
    assert len(out) == len(texts)
    for text, o, t in zip(texts, out, theirs):
        pattern = []
        for is_zq, run in itertools.groupby(o["ids"], key=lambda i: i == zq):
            pattern += [1] * len(list(run)) if is_zq else [0]
        assert pattern == t, f"single_word matches differ in the text from U+{ord(text[2]):04X}: {text!r}"
