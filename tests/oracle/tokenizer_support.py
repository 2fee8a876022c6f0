"""precis tokenize's JSON lines in and out, and the comparison of ids with a message naming the
text, for the tokenizer oracle tests."""
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
