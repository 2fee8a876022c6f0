"""Our dataset readers against what run_summarization gets from `datasets`' loaders.

`datasets` itself is not a test dependency, so the reference is written here from Python's
`json` and `csv` modules with the semantics the loaders add on top: JSON lines or a
top-level array of objects or an object of column arrays; a missing key is None; the CSV
loader (pandas) reads empty fields and pandas' NA strings as None; then run_summarization
keeps `select(range(max_samples))` and drops the rows whose text or summary is falsy.
precis reads the same files through tests/tools/dataset_tool.cpp.
"""
import csv
import json
import random

import pytest

from conftest import UNICODE_CORPUS, run_precis

# pandas._libs.parsers.STR_NA_VALUES (pandas 2), read as NaN -> None by the CSV loader.
PANDAS_NA = {"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
             "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"}

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


def expected(rows, text="dialogue", summary="summary", max_samples=None):
    """run_summarization: select(range(N)), then drop pairs where either is falsy."""
    if max_samples is not None:
        rows = rows[:max_samples]
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


def read_csv_reference(path, delimiter=","):
    with open(path, newline="", encoding="utf-8-sig") as f:
        reader = csv.DictReader(f, delimiter=delimiter)
        rows = []
        for row in reader:
            rows.append({k: (None if v is None or v in PANDAS_NA else v) for k, v in row.items()})
    return rows


@pytest.mark.parametrize("indent", [None, 2])
def test_json_array(tmp_path, indent):
    rows = make_rows(300, seed=1)
    path = tmp_path / "train.json"
    path.write_text(json.dumps(rows, indent=indent, ensure_ascii=indent is None), encoding="utf-8")
    records, stats = records_of(path)
    reference = json.loads(path.read_text(encoding="utf-8"))
    kept, dropped = expected(reference)
    assert as_pairs(records) == kept
    assert stats["dropped_empty"] == dropped
    assert stats["rows"] == len(reference)


def test_json_lines(tmp_path):
    rows = make_rows(400, seed=2)
    path = tmp_path / "train.jsonl"
    lines = [json.dumps(r, ensure_ascii=i % 2 == 0) for i, r in enumerate(rows)]
    lines.insert(10, "")  # blank lines are skipped
    path.write_bytes(("\r\n".join(lines[:50]) + "\n" + "\n".join(lines[50:]) + "\n").encode())
    records, stats = records_of(path)
    text = path.read_bytes().decode("utf-8")
    reference_lines = [(n + 1, json.loads(line)) for n, line in enumerate(text.split("\n")) if line.strip()]
    kept, dropped = expected([r for _, r in reference_lines])
    assert as_pairs(records) == kept
    assert stats["dropped_empty"] == dropped
    # Line numbers of the kept records.
    kept_lines = [n for n, r in reference_lines if r.get("dialogue") and r.get("summary")]
    assert [r["line"] for r in records] == kept_lines
    # The same content in a .json file is read as JSON lines, as datasets does.
    same = tmp_path / "train.json"
    same.write_bytes(path.read_bytes())
    assert records_of(same)[0] == records


def test_json_object_of_columns_and_field(tmp_path):
    rows = make_rows(50, seed=3, with_missing=False)
    for r in rows[::7]:
        r["summary"] = None
    columns = {k: [r[k] for r in rows] for k in ("id", "dialogue", "summary")}
    path = tmp_path / "columns.json"
    path.write_text(json.dumps(columns, indent=1), encoding="utf-8")
    kept, dropped = expected(rows)
    records, stats = records_of(path)
    assert as_pairs(records) == kept
    assert stats["dropped_empty"] == dropped

    nested = tmp_path / "nested.json"
    nested.write_text(json.dumps({"version": 2, "data": rows}), encoding="utf-8")
    records, _ = records_of(nested, "--field", "data")
    assert as_pairs(records) == kept


@pytest.mark.parametrize("quoting", [csv.QUOTE_MINIMAL, csv.QUOTE_ALL])
@pytest.mark.parametrize("terminator", ["\r\n", "\n"])
def test_csv(tmp_path, quoting, terminator):
    rows = make_rows(300, seed=4)
    path = tmp_path / "train.csv"
    with open(path, "w", newline="", encoding="utf-8-sig" if quoting == csv.QUOTE_ALL else "utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=["id", "dialogue", "summary"], quoting=quoting,
                                lineterminator=terminator)
        writer.writeheader()
        for r in rows:
            writer.writerow({k: ("" if v is None else v) for k, v in r.items()})
    reference = read_csv_reference(path)
    records, stats = records_of(path)
    kept, dropped = expected(reference)
    assert as_pairs(records) == kept
    assert stats["dropped_empty"] == dropped
    # The raw fields, without pandas' NA strings.
    records, _ = records_of(path, "--no_na_values")
    with open(path, newline="", encoding="utf-8-sig") as f:
        raw = list(csv.DictReader(f))
    assert as_pairs(records) == expected(raw)[0]


def test_tsv(tmp_path):
    rows = make_rows(200, seed=5)
    path = tmp_path / "train.tsv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=["summary", "dialogue", "id"], delimiter="\t")
        writer.writeheader()
        for r in rows:
            writer.writerow({k: ("" if v is None else v) for k, v in r.items()})
    reference = read_csv_reference(path, delimiter="\t")
    records, stats = records_of(path)
    kept, dropped = expected(reference)
    assert as_pairs(records) == kept
    assert stats["dropped_empty"] == dropped


def test_csv_hand_written_edge_cases(tmp_path):
    path = tmp_path / "edge.csv"
    path.write_bytes(
        b'\xef\xbb\xbfdialogue,summary,extra\r\n'
        b'"a, ""quoted"" one",plain\r\n'          # short row: extra missing
        b'\r\n'
        b'un"quoted,"multi\nline\r\nfield",x\n'
        b'"x"after,s,\n'                          # text after a closing quote
        b'lone\rcr,,\r'                           # lone CR ends records; empty summary
        b'last,"no newline",z')
    reference = read_csv_reference(path)
    records, stats = records_of(path)
    kept, dropped = expected(reference)
    assert as_pairs(records) == kept
    assert stats["rows"] == len(reference)
    assert stats["dropped_empty"] == dropped


def test_max_samples_selects_before_dropping(tmp_path):
    rows = make_rows(100, seed=6)
    path = tmp_path / "train.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    for n in (0, 1, 17, 100, 1000):
        records, stats = records_of(path, "--max_samples", n)
        kept, dropped = expected(rows, max_samples=n)
        assert as_pairs(records) == kept
        assert stats["rows"] == min(n, len(rows))
        assert stats["dropped_empty"] == dropped


def test_other_columns(tmp_path):
    rows = [{"article": f"a{i}", "highlights": f"h{i}", "dialogue": None} for i in range(5)]
    path = tmp_path / "cnn.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    records, _ = records_of(path, "--text_column", "article", "--summary_column", "highlights")
    assert as_pairs(records) == expected(rows, "article", "highlights")[0]
    result = run_precis(path, binary="dataset_tool", check=False)
    assert result.returncode == 1
    assert f"{path}:1: field 'summary' (summary_column) is in no record" in result.stderr
