"""Our dataset readers against what run_summarization gets from the real `datasets` loaders
(pinned in requirements-test.txt, run offline): `load_dataset("json" | "csv", data_files=FILE)`
reads the same file, then run_summarization keeps `select(range(max_samples))` and its
preprocess_function drops the rows whose text or summary is falsy (expected() below).
precis reads the same files through tests/probes/dataset_tool.cpp.

Where precis reads a file otherwise, the test says what `datasets` does and why precis differs:
- a top-level JSON object of column arrays: `datasets` takes it as one row whose values are the
  columns (pyarrow's JSON reader sees one JSON line), which run_summarization cannot tokenize;
  precis reads the columns, as `datasets` itself does when the same object is under `field`;
- a NUL character inside a CSV text or summary field: pandas' C parser (the CSV loader) drops
  the rest of the field, silently; precis refuses the record (file:line and field), or skips
  it with skip_bad_records, as it does a NUL byte in JSON.
"""
import csv
import itertools
import json
import random

import pytest

from conftest import UNICODE_CORPUS, run_precis

TRICKY = UNICODE_CORPUS + [
    'She said "hi", then left.',
    'a,b,c',
    '"fully quoted"',
    'line one\nline two\r\nline three\rline four',
    'tab\tseparated\tvalues',
    '""',
    ' , ',
    "NA",
    "null",
    "trailing newline\n",
    "[brackets] {braces} \\backslash\\ \u2028 \u0000 nul",
]


def records_of(path, *args):
    result = run_precis(path, *args, binary="dataset_tool")
    # Not splitlines(): records may hold U+2028, which it would split on.
    records = [json.loads(line) for line in result.stdout.split("\n") if line]
    stats = json.loads(result.stderr.strip().splitlines()[-1])
    return records, stats


def expected(rows, text="dialogue", summary="summary"):
    """run_summarization's preprocess_function keeps the pairs where both are truthy
    (`if examples[text_column][i] and examples[summary_column][i]`)."""
    pairs = [(r.get(text), r.get(summary)) for r in rows]
    kept = [(t, s) for t, s in pairs if t and s]
    return kept, len(rows) - len(kept)


def as_pairs(records):
    return [(r["text"], r["summary"]) for r in records]


def make_rows(n, seed, with_missing=True):
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        row = {"id": i, "dialogue": rng.choice(TRICKY) + f" #{i}", "summary": rng.choice(TRICKY)}
        if with_missing:
            roll = rng.random()
            if roll < 0.05:
                row["summary"] = None
            elif roll < 0.10:
                row["dialogue"] = ""
            elif roll < 0.13:
                del row["summary"]
        rows.append(row)
    return rows


@pytest.fixture(scope="module")
def load_dataset(tmp_path_factory):
    """The rows of load_dataset(builder, data_files=path)["train"], as run_summarization calls it
    (builder from the extension; .jsonl and .tsv, which the script's argument check refuses, as
    `datasets` reads them: "json", and "csv" with delimiter="\\t"). Each call has its own cache.
    Offline for this module only: the environment is restored after it."""
    def load(path, max_samples=None, **kwargs):
        builder = {".json": "json", ".jsonl": "json", ".csv": "csv", ".tsv": "csv"}[path.suffix]
        if path.suffix == ".tsv":
            kwargs.setdefault("delimiter", "\t")
        train = datasets.load_dataset(builder, data_files={"train": str(path)}, cache_dir=str(cache / str(next(n))),
                                      **kwargs)["train"]
        if max_samples is not None:  # run_summarization's max_train_samples
            train = train.select(range(min(len(train), max_samples)))
        return train.to_list()

    cache, n = tmp_path_factory.mktemp("datasets_cache"), itertools.count()
    with pytest.MonkeyPatch.context() as env:
        env.setenv("HF_DATASETS_OFFLINE", "1")  # read by datasets.config when it is imported
        import datasets
        env.setattr(datasets.config, "HF_HUB_OFFLINE", True)  # read by the loaders, should it be imported already
        datasets.disable_progress_bars()
        yield load


def python_csv_rows(path, delimiter=","):
    with open(path, newline="", encoding="utf-8-sig") as f:
        return list(csv.DictReader(f, delimiter=delimiter))


def without_nul_rows(csv_rows, hf_rows, text="dialogue", summary="summary"):
    """The CSV loader cuts a text or summary field at a NUL character, losing the rest; precis
    refuses those records (see the module docstring). Returns the loader's rows without them,
    and how many there were; checks that the loader did cut exactly there."""
    assert len(csv_rows) == len(hf_rows)
    kept, refused = [], 0
    for row, hf in zip(csv_rows, hf_rows):
        nul = [key for key in (text, summary) if row.get(key) and "\0" in row[key]]
        for key in nul:
            assert hf[key] == row[key][:row[key].index("\0")], (row[key], hf[key])
        if nul:
            refused += 1
        else:
            kept.append(hf)
    return kept, refused


@pytest.mark.parametrize("indent", [None, 2])
def test_json_array(tmp_path, load_dataset, indent):
    rows = make_rows(300, seed=1)
    path = tmp_path / "train.json"
    path.write_text(json.dumps(rows, indent=indent, ensure_ascii=indent is None), encoding="utf-8")
    records, stats = records_of(path)
    reference = load_dataset(path)
    kept, dropped = expected(reference)
    assert as_pairs(records) == kept
    assert stats["dropped_empty"] == dropped
    assert stats["rows"] == len(reference) == len(rows)


def test_json_lines(tmp_path, load_dataset):
    rows = make_rows(400, seed=2)
    path = tmp_path / "train.jsonl"
    lines = [json.dumps(r, ensure_ascii=i % 2 == 0) for i, r in enumerate(rows)]
    lines.insert(10, "")  # blank lines are skipped
    path.write_bytes(("\r\n".join(lines[:50]) + "\n" + "\n".join(lines[50:]) + "\n").encode())
    records, stats = records_of(path)
    reference = load_dataset(path)
    kept, dropped = expected(reference)
    assert as_pairs(records) == kept
    assert stats["dropped_empty"] == dropped
    # Line numbers of the kept records (precis's own: `datasets` has none), from the file's lines.
    text = path.read_bytes().decode("utf-8")
    numbered = [(n + 1, json.loads(line)) for n, line in enumerate(text.split("\n")) if line.strip()]
    assert len(numbered) == len(reference)
    assert [r["line"] for r in records] == [n for n, r in numbered if r.get("dialogue") and r.get("summary")]
    # The same content in a .json file is read as JSON lines, as datasets does.
    same = tmp_path / "train.json"
    same.write_bytes(path.read_bytes())
    assert load_dataset(same) == reference
    assert records_of(same)[0] == records


def test_json_object_of_columns_and_field(tmp_path, load_dataset):
    rows = make_rows(50, seed=3, with_missing=False)
    for r in rows[::7]:
        r["summary"] = None
    columns = {k: [r[k] for r in rows] for k in ("id", "dialogue", "summary")}

    # Records under a field, as an array of objects and as an object of columns.
    nested = tmp_path / "nested.json"
    nested.write_text(json.dumps({"version": 2, "data": rows}), encoding="utf-8")
    reference = load_dataset(nested, field="data")
    kept, dropped = expected(reference)
    assert len(reference) == len(rows) and kept
    records, stats = records_of(nested, "--field", "data")
    assert as_pairs(records) == kept and stats["dropped_empty"] == dropped
    nested_columns = tmp_path / "nested_columns.json"
    nested_columns.write_text(json.dumps({"data": columns}, indent=1), encoding="utf-8")
    assert load_dataset(nested_columns, field="data") == reference
    assert as_pairs(records_of(nested_columns, "--field", "data")[0]) == kept

    # A top-level object of columns: precis reads the columns, as under a field; `datasets`
    # makes one row of lists of it (the deliberate difference in the module docstring).
    path = tmp_path / "columns.json"
    path.write_text(json.dumps(columns, indent=1), encoding="utf-8")
    one_row = load_dataset(path)
    assert len(one_row) == 1 and one_row[0]["dialogue"] == columns["dialogue"]
    records, stats = records_of(path)
    assert as_pairs(records) == kept
    assert stats["dropped_empty"] == dropped


@pytest.mark.parametrize("quoting", [csv.QUOTE_MINIMAL, csv.QUOTE_ALL])
@pytest.mark.parametrize("terminator", ["\r\n", "\n"])
def test_csv(tmp_path, load_dataset, quoting, terminator):
    rows = make_rows(300, seed=4)
    path = tmp_path / "train.csv"
    with open(path, "w", newline="", encoding="utf-8-sig" if quoting == csv.QUOTE_ALL else "utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=["id", "dialogue", "summary"], quoting=quoting,
                                lineterminator=terminator)
        writer.writeheader()
        for r in rows:
            writer.writerow({k: ("" if v is None else v) for k, v in r.items()})
    reference, refused = without_nul_rows(python_csv_rows(path), load_dataset(path))
    assert refused > 0  # the data has the NUL case
    records, stats = records_of(path, "--skip_bad")
    kept, dropped = expected(reference)
    assert as_pairs(records) == kept
    assert stats["dropped_empty"] == dropped
    assert stats["skipped_bad"] == refused
    # pandas' NA strings ("NA", "null", ...) became None: the NA reading is exercised.
    assert sum(r["summary"] is None for r in reference) > sum(r.get("summary") is None for r in rows)
    # The raw fields, without pandas' NA strings: the loader's keep_default_na=False.
    raw, _ = without_nul_rows(python_csv_rows(path), load_dataset(path, keep_default_na=False))
    records, _ = records_of(path, "--no_na_values", "--skip_bad")
    assert as_pairs(records) == expected(raw)[0]


def test_tsv(tmp_path, load_dataset):
    rows = make_rows(200, seed=5)
    path = tmp_path / "train.tsv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=["summary", "dialogue", "id"], delimiter="\t")
        writer.writeheader()
        for r in rows:
            writer.writerow({k: ("" if v is None else v) for k, v in r.items()})
    reference, refused = without_nul_rows(python_csv_rows(path, "\t"), load_dataset(path))
    records, stats = records_of(path, "--skip_bad")
    assert stats["skipped_bad"] == refused
    kept, dropped = expected(reference)
    assert as_pairs(records) == kept
    assert stats["dropped_empty"] == dropped


def test_csv_nul_in_a_field_is_refused_not_cut(tmp_path, load_dataset):
    path = tmp_path / "nul.csv"
    path.write_bytes(b'dialogue,summary\nfirst,one\n"sec\x00ond",two\nthird,"th\x00ree"\n')
    reference = load_dataset(path)
    assert [r["dialogue"] for r in reference] == ["first", "sec", "third"]  # the loader cuts
    result = run_precis(path, binary="dataset_tool", check=False)
    assert result.returncode == 1
    assert f"{path}:3: field 'dialogue': a NUL byte at offset 3" in result.stderr, result.stderr
    records, stats = records_of(path, "--skip_bad")
    assert as_pairs(records) == [("first", "one")]
    assert stats["skipped_bad"] == 2


def test_csv_hand_written_edge_cases(tmp_path, load_dataset):
    path = tmp_path / "edge.csv"
    path.write_bytes(
        b'\xef\xbb\xbfdialogue,summary,extra\r\n'
        b'"a, ""quoted"" one",plain\r\n'          # short row: extra missing
        b'\r\n'
        b'un"quoted,"multi\nline\r\nfield",x\n'
        b'"x"after,s,\n'                          # text after a closing quote
        b'lone\rcr,,\r'                           # lone CR ends records; empty summary
        b'last,"no newline",z')
    reference = load_dataset(path)
    records, stats = records_of(path)
    kept, dropped = expected(reference)
    assert as_pairs(records) == kept
    assert stats["rows"] == len(reference)
    assert stats["dropped_empty"] == dropped


def test_max_samples_selects_before_dropping(tmp_path, load_dataset):
    rows = make_rows(100, seed=6)
    path = tmp_path / "train.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    for n in (0, 1, 17, 100, 1000):
        records, stats = records_of(path, "--max_samples", n)
        reference = load_dataset(path, max_samples=n)
        kept, dropped = expected(reference)
        assert as_pairs(records) == kept
        assert stats["rows"] == len(reference) == min(n, len(rows))
        assert stats["dropped_empty"] == dropped


def test_other_columns(tmp_path, load_dataset):
    rows = [{"article": f"a{i}", "highlights": f"h{i}", "dialogue": None} for i in range(5)]
    path = tmp_path / "cnn.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    records, _ = records_of(path, "--text_column", "article", "--summary_column", "highlights")
    assert as_pairs(records) == expected(load_dataset(path), "article", "highlights")[0]
    result = run_precis(path, binary="dataset_tool", check=False)
    assert result.returncode == 1
    assert f"{path}:1: field 'summary' (summary_column) is in no record" in result.stderr
