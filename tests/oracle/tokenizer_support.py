"""precis tokenize's JSON lines in and out, the comparison of ids with a message naming the
text, and the texts of the tiny T5 tokenizer, for the tokenizer tests (oracle and Python)."""
import json


def json_lines(text):
    # Only "\n" ends a line: str.splitlines() would also split inside JSON strings holding
    # raw U+2028, U+0085 or U+001C..U+001E, which precis writes unescaped (valid JSON).
    return [json.loads(line) for line in text.split("\n") if line.strip()]


def write_lines(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def assert_ids_equal(ours, theirs, texts):
    for text, a, b in zip(texts, ours, theirs):
        assert a == b, f"ids differ for {text!r}:\n precis {a}\n HF     {b}"


def tiny_spiece_corpus():
    """What the tests train their tiny spiece.model on (t5_models.train_tiny_spiece): the
    Unicode corpus and a few English sentences, repeated so every piece is seen often."""
    from conftest import UNICODE_CORPUS

    return [t for t in UNICODE_CORPUS if t.strip()] * 3 + [
        "The quick brown fox jumps over the lazy dog.",
        "Summaries are short; dialogues are long and have many turns between speakers.",
        "precis fine-tunes sequence-to-sequence transformers for summarization.",
        "summarize: a house is a building that people live in.",
    ] * 20
