"""`precis tokenizer train` against HF `tokenizers`' ByteLevelBPETokenizer trainer, live.

Both sides train on the same texts with the same settings (4 specials first, <mask> appended
last as BART/RoBERTa have it; precis's --vocab_size counts every token, so HF trains with
vocab_size - 1 before <mask> is added). vocab.json and merges.txt must be equal as data, and
transformers' AutoTokenizer on precis's directory must give the ids of HF's trained tokenizer.

Corpora: a small Unicode one (JSON lines of bare strings), this machine's licence texts (plain
text, read line by line as HF's train(files) reads them) and, where apt's Translation-en lists
exist, the Debian package descriptions of `precis data debian` (a subsample of the train split
for the files; ids on the whole validation split).
"""
import json
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from conftest import UNICODE_CORPUS, run_precis  # noqa: E402

SPECIALS = ["<s>", "<pad>", "</s>", "<unk>"]
LISTS = pathlib.Path("/var/lib/apt/lists")
DEBIAN_TRAIN_RECORDS = 20000  # of ~55k: keeps the module under a minute on 2 cores


def hf_train(out_dir, vocab_size, min_frequency, texts=None, files=None):
    """HF's trainer as ByteLevelBPETokenizer runs it, saved as a BART tokenizer directory."""
    from tokenizers import ByteLevelBPETokenizer
    from transformers import BartTokenizerFast

    out_dir.mkdir(parents=True, exist_ok=True)
    bpe = ByteLevelBPETokenizer()
    settings = dict(vocab_size=vocab_size - 1, min_frequency=min_frequency,
                    special_tokens=SPECIALS, show_progress=False)
    if files is not None:
        bpe.train([str(f) for f in files], **settings)
    else:
        bpe.train_from_iterator(texts, **settings)
    bpe.save_model(str(out_dir))
    vocab = json.loads((out_dir / "vocab.json").read_text(encoding="utf-8"))
    vocab["<mask>"] = len(vocab)
    (out_dir / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    tok = BartTokenizerFast(vocab_file=str(out_dir / "vocab.json"),
                            merges_file=str(out_dir / "merges.txt"))
    return tok


def precis_train(out_dir, files, vocab_size, min_frequency, *extra):
    return run_precis("tokenizer", "train", "--files", *files, "--output", out_dir,
                      "--vocab_size", vocab_size, "--min_frequency", min_frequency, *extra)


def read_merges(path):
    lines = path.read_text(encoding="utf-8").split("\n")
    assert lines[0].startswith("#version")
    return [tuple(line.split(" ")) for line in lines[1:] if line]


def assert_same_files(ours, hf):
    ours_vocab = json.loads((ours / "vocab.json").read_text(encoding="utf-8"))
    hf_vocab = json.loads((hf / "vocab.json").read_text(encoding="utf-8"))
    assert len(ours_vocab) == len(hf_vocab)
    assert ours_vocab == hf_vocab
    ours_merges, hf_merges = read_merges(ours / "merges.txt"), read_merges(hf / "merges.txt")
    first_diff = next((i for i, (a, b) in enumerate(zip(ours_merges, hf_merges)) if a != b), None)
    assert first_diff is None, (first_diff, ours_merges[first_diff], hf_merges[first_diff])
    assert ours_merges == hf_merges


def assert_same_ids(ours_dir, hf_tok, texts):
    from transformers import AutoTokenizer

    ours = AutoTokenizer.from_pretrained(str(ours_dir))
    assert type(ours).__name__ == "BartTokenizerFast"
    assert len(ours) == len(hf_tok)
    for add_special_tokens in (True, False):
        a = ours(texts, add_special_tokens=add_special_tokens)["input_ids"]
        b = hf_tok(texts, add_special_tokens=add_special_tokens)["input_ids"]
        bad = [i for i in range(len(texts)) if a[i] != b[i]]
        assert not bad, (len(bad), texts[bad[0]][:200], a[bad[0]][:50], b[bad[0]][:50])


# --- a small corpus: JSON lines of bare strings, min_frequency 1 -------------------------

SMALL = UNICODE_CORPUS * 4 + [
    "The quick brown fox jumps over the lazy dog.",
    "Summaries are short; dialogues are long and have many turns between speakers.",
    "precis fine-tunes sequence-to-sequence transformers for summarization.",
    "aaaa aaa aa a abab ababab ba baba",
] * 20


@pytest.mark.parametrize("vocab_size,min_frequency", [(600, 1), (1000, 1), (400, 3)])
def test_small_corpus_files_equal(tmp_path, vocab_size, min_frequency):
    corpus = tmp_path / "small.jsonl"
    corpus.write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in SMALL),
                      encoding="utf-8")
    hf_tok = hf_train(tmp_path / "hf", vocab_size, min_frequency, texts=SMALL)
    precis_train(tmp_path / "ours", [corpus], vocab_size, min_frequency)
    assert_same_files(tmp_path / "ours", tmp_path / "hf")
    assert_same_ids(tmp_path / "ours", hf_tok, UNICODE_CORPUS + SMALL[-4:])


def test_saved_directory_loads_in_precis_too(tmp_path):
    corpus = tmp_path / "small.jsonl"
    corpus.write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in SMALL),
                      encoding="utf-8")
    hf_tok = hf_train(tmp_path / "hf", 600, 1, texts=SMALL)
    precis_train(tmp_path / "ours", [corpus], 600, 1)
    inp = tmp_path / "texts.jsonl"
    inp.write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in UNICODE_CORPUS),
                   encoding="utf-8")
    out = run_precis("tokenize", "--model", tmp_path / "ours", "--input", inp).stdout
    ids = [json.loads(line)["ids"] for line in out.split("\n") if line.strip()]
    assert ids == hf_tok(UNICODE_CORPUS)["input_ids"]
    config = json.loads((tmp_path / "ours" / "tokenizer_config.json").read_text())
    assert config["tokenizer_class"] in ("BartTokenizer", "BartTokenizerFast")


# --- licence texts: plain text files, read line by line ---------------------------------

def licence_files(limit_bytes=3_000_000):
    paths = sorted(pathlib.Path("/usr/share/common-licenses").glob("*"))
    paths += sorted(pathlib.Path("/usr/share/doc").glob("*/copyright"))
    chosen, total = [], 0
    for p in paths:
        try:
            data = p.read_bytes()
            data.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # HF's reader would stop on invalid UTF-8; so would precis
        if not data or p.is_symlink():
            continue
        chosen.append(p)
        total += len(data)
        if total >= limit_bytes:
            break
    return chosen


@pytest.fixture(scope="module")
def licences(tmp_path_factory):
    files = licence_files()
    if len(files) < 5:
        pytest.skip("no licence texts under /usr/share/common-licenses and /usr/share/doc")
    # One file per corpus keeps the command line short; lines (with their "\n") are the texts
    # either way.
    d = tmp_path_factory.mktemp("licences")
    corpus = d / "licences.txt"
    with corpus.open("wb") as out:
        for f in files:
            data = f.read_bytes()
            out.write(data if data.endswith(b"\n") else data + b"\n")
    return corpus


@pytest.mark.parametrize("vocab_size,min_frequency", [(5000, 2)])
def test_licences_plain_text_files_equal(tmp_path, licences, vocab_size, min_frequency):
    hf_tok = hf_train(tmp_path / "hf", vocab_size, min_frequency, files=[licences])
    precis_train(tmp_path / "ours", [licences], vocab_size, min_frequency)
    assert_same_files(tmp_path / "ours", tmp_path / "hf")
    held_out = UNICODE_CORPUS + licences.read_text(encoding="utf-8").split("\n\n")[-300:]
    assert_same_ids(tmp_path / "ours", hf_tok, held_out)


def test_two_files_count_as_one_corpus(tmp_path, licences):
    lines = licences.read_text(encoding="utf-8").splitlines(keepends=True)
    half = len(lines) // 2
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("".join(lines[:half]), encoding="utf-8")
    b.write_text("".join(lines[half:]), encoding="utf-8")
    hf_train(tmp_path / "hf", 3000, 2, files=[a, b])
    precis_train(tmp_path / "ours", [a, b], 3000, 2)
    assert_same_files(tmp_path / "ours", tmp_path / "hf")


# --- Debian package descriptions -----------------------------------------------------------

@pytest.fixture(scope="module")
def debian(tmp_path_factory):
    if not LISTS.is_dir() or not any(p.name.endswith(("_i18n_Translation-en", "_i18n_Translation-en.lz4"))
                                     for p in LISTS.iterdir()):
        pytest.skip(f"no *_i18n_Translation-en lists in {LISTS}; fetch them with "
                    "`apt-get -o Acquire::Languages=en update` (as root)")
    d = tmp_path_factory.mktemp("debian")
    run_precis("data", "debian", "--output", d)
    train = (d / "train.jsonl").read_text(encoding="utf-8").split("\n")[:DEBIAN_TRAIN_RECORDS]
    (d / "train_subsample.jsonl").write_text("\n".join(train) + "\n", encoding="utf-8")
    return d


def records(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line]


def test_debian_trained_tokenizer_matches_hf_on_validation(tmp_path, debian):
    """The issue's check: our trained tokenizer loads in HF and gives identical ids on the
    validation split."""
    train = records(debian / "train_subsample.jsonl")
    texts = [t for r in train for t in (r["description"], r["synopsis"])]
    hf_tok = hf_train(tmp_path / "hf", 8000, 2, texts=texts)
    precis_train(tmp_path / "ours", [debian / "train_subsample.jsonl"], 8000, 2,
                 "--text_field", "description", "--text_field", "synopsis")
    assert_same_files(tmp_path / "ours", tmp_path / "hf")
    validation = records(debian / "validation.jsonl")
    held_out = [t for r in validation for t in (r["description"], r["synopsis"])]
    assert_same_ids(tmp_path / "ours", hf_tok, held_out + UNICODE_CORPUS)


def test_default_text_fields_are_every_string(tmp_path, debian):
    sample = records(debian / "validation.jsonl")
    texts = [t for r in sample for t in r.values() if isinstance(t, str)]
    hf_train(tmp_path / "hf", 2000, 2, texts=texts)
    precis_train(tmp_path / "ours", [debian / "validation.jsonl"], 2000, 2)
    assert_same_files(tmp_path / "ours", tmp_path / "hf")


# --- the command line's errors ----------------------------------------------------------

def test_errors_name_file_and_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"description": "fine"}\n{"synopsis": "no description"}\n', encoding="utf-8")
    result = run_precis("tokenizer", "train", "--files", bad, "--output", tmp_path / "o",
                        "--text_field", "description", check=False)
    assert result.returncode != 0
    assert f"{bad}:2: no string field \"description\"" in result.stderr
    result = run_precis("tokenizer", "train", "--files", bad, "--output", tmp_path / "o",
                        "--vocab_size", "100", check=False)
    assert result.returncode != 0 and "vocab_size 100" in result.stderr
