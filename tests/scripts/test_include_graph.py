"""scripts/include_graph.py: the source folders' include graph has no cycle and is the one
docs/architecture.md's layer table gives, and the check fails on a cycle or a wrong row."""
import pathlib
import shutil
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "include_graph.py"


def check(source, doc):
    return subprocess.run([sys.executable, str(SCRIPT), "--source", str(source), "--doc", str(doc)],
                          capture_output=True, text=True)


def copy_tree(tmp_path):
    source = tmp_path / "src" / "precis"
    shutil.copytree(REPO / "src" / "precis", source,
                    ignore=shutil.ignore_patterns("*.md", "*.txt"))
    doc = tmp_path / "architecture.md"
    shutil.copy(REPO / "docs" / "architecture.md", doc)
    return source, doc


def test_the_tree_has_no_cycle_and_the_doc_says_what_each_folder_uses():
    r = check(REPO / "src" / "precis", REPO / "docs" / "architecture.md")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "core: -" in r.stdout  # core/ includes no folder above it


def test_a_cycle_added_on_purpose_fails_and_is_named(tmp_path):
    source, doc = copy_tree(tmp_path)
    header = source / "core" / "error.h"
    header.write_text(header.read_text() + '\n#include "precis/serve/server.h"\n')
    r = check(source, doc)
    assert r.returncode == 1
    assert "cycle" in r.stderr and "core -> serve" in r.stderr, r.stderr
    assert "src/precis/core/error.h" in r.stderr, r.stderr  # the file that makes the edge


def test_a_row_that_differs_from_the_sources_fails(tmp_path):
    source, doc = copy_tree(tmp_path)
    text = doc.read_text()
    assert "| core, tokenize, kernels |" in text  # data/'s row
    doc.write_text(text.replace("| core, tokenize, kernels |", "| core, tokenize |"))
    r = check(source, doc)
    assert r.returncode == 1
    assert "`data/` uses kernels" in r.stderr, r.stderr
