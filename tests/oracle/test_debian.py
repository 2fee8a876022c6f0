"""`precis data debian` on this machine's real apt lists: byte-identical twice, sane counts.

Skipped (visibly) where /var/lib/apt/lists has no Translation-en lists; the skip message
gives the command that fetches them.
"""
import json
import pathlib
import re
import time

import pytest

from conftest import run_precis

LISTS = pathlib.Path("/var/lib/apt/lists")
SPLITS = ("train", "validation", "test")


def translation_lists():
    if not LISTS.is_dir():
        return []
    return sorted(p for p in LISTS.iterdir()
                  if p.name.endswith("_i18n_Translation-en") or p.name.endswith("_i18n_Translation-en.lz4"))


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    if not translation_lists():
        pytest.skip(f"no *_i18n_Translation-en lists in {LISTS}; fetch them with "
                    "`apt-get -o Acquire::Languages=en update` (as root)")
    runs = []
    for name in ("a", "b"):
        out = tmp_path_factory.mktemp(f"debian_{name}")
        start = time.monotonic()
        result = run_precis("data", "debian", "--output", out)
        runs.append((out, result.stdout, time.monotonic() - start))
    return runs


def test_byte_identical_twice(two_runs):
    (a, log_a, _), (b, log_b, _) = two_runs
    for split in SPLITS:
        assert (a / f"{split}.jsonl").read_bytes() == (b / f"{split}.jsonl").read_bytes(), split
    counts = re.search(r"train (\d+), validation (\d+), test (\d+) records", log_a)
    assert counts, log_a
    assert counts.groups() == re.search(r"train (\d+), validation (\d+), test (\d+)", log_b).groups()


def test_sane_records_and_counts(two_runs):
    out, log, seconds = two_runs[0]
    counts = {}
    descriptions = set()
    for split in SPLITS:
        text = (out / f"{split}.jsonl").read_text(encoding="utf-8")
        lines = text.split("\n")
        assert lines[-1] == ""
        keys = []
        for line in lines[:-1]:
            record = json.loads(line)
            assert list(record) == ["description", "synopsis", "package", "package_and_description"]
            # The main job's input: the name tells a library, its -dev or -doc package, a
            # Python module apart, which the description's first sentences often do not.
            assert record["package_and_description"] == record["package"] + ": " + record["description"]
            assert all(isinstance(v, str) and v.strip() for v in record.values()), record
            # No blank or space-padded lines; a verbatim block (ASCII art, say) may keep
            # its relative indentation, so lines may start with spaces.
            assert all(l.strip() and l == l.rstrip() for l in record["description"].split("\n"))
            assert record["description"] not in descriptions, "duplicate description"
            descriptions.add(record["description"])
            keys.append((record["package"].encode(), record["description"].encode()))
        assert keys == sorted(keys), f"{split} is not sorted by package"
        counts[split] = len(keys)
    total = sum(counts.values())
    printed = re.search(r"train (\d+), validation (\d+), test (\d+) records", log).groups()
    assert tuple(int(n) for n in printed) == (counts["train"], counts["validation"], counts["test"])
    # Debian main alone has tens of thousands of described packages; 5% / 5% by source.
    assert total > 1000, counts
    for split in ("validation", "test"):
        assert 0.03 < counts[split] / total < 0.07, counts
    print(f"\n{counts} in {seconds:.1f} s")
