"""Encode throughput: precis's byte-level BPE vs HF `tokenizers` (the Rust fast tokenizer
behind BartTokenizerFast), on the same English text, load time excluded, warm caches on both
sides, best of 3.

  .venv/bin/python bench/tokenizer_throughput.py [--build build] [--model DIR] [--megabytes 4]

Text: /usr/share/common-licenses/* and /usr/share/doc/*/copyright, split into paragraphs
(blank-line separated), up to --megabytes. Single-threaded: precis encode() per text on one
thread; HF encode_batch with RAYON_NUM_THREADS=1 (no per-call Python overhead). Batch:
precis encode_batch (OpenMP) and HF encode_batch (rayon), all cores.
"""
import argparse
import glob
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]

HF_SNIPPET = r"""
import json, sys, time
from transformers import BartTokenizerFast
tok = BartTokenizerFast.from_pretrained(sys.argv[1])._tokenizer
texts = [json.loads(l) for l in open(sys.argv[2], encoding="utf-8") if l.strip()]
nbytes = sum(len(t.encode()) for t in texts)
def best(run):
    run(); b = 1e30
    for _ in range(3):
        t0 = time.perf_counter(); run(); b = min(b, time.perf_counter() - t0)
    return b
secs = best(lambda: tok.encode_batch(texts))
tokens = sum(len(e.ids) for e in tok.encode_batch(texts))
print(json.dumps({"mb_s": nbytes / secs / 1e6, "tokens": tokens}))
"""


def corpus(megabytes):
    files = sorted(glob.glob("/usr/share/common-licenses/*")) + sorted(glob.glob("/usr/share/doc/*/copyright"))
    texts, total = [], 0
    for f in files:
        try:
            text = pathlib.Path(f).read_text(encoding="utf-8")
        except (UnicodeDecodeError, IsADirectoryError, PermissionError):
            continue
        for para in text.split("\n\n"):
            if para.strip():
                texts.append(para)
                total += len(para.encode())
        if total >= megabytes * 1e6:
            break
    return texts


def run_hf(model, path, threads):
    env = dict(os.environ)
    if threads:
        env["RAYON_NUM_THREADS"] = str(threads)
    out = subprocess.run([sys.executable, "-c", HF_SNIPPET, str(model), str(path)], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--model", default=str(ROOT.parent / "shared" / "data" / "roberta-bpe"))
    ap.add_argument("--megabytes", type=float, default=4)
    args = ap.parse_args()
    texts = corpus(args.megabytes)
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "texts.jsonl"
        path.write_text("".join(json.dumps(t) + "\n" for t in texts), encoding="utf-8")
        ours = json.loads(subprocess.run([str(pathlib.Path(args.build) / "bench" / "tokenize_bench"),
                                          args.model, str(path)], capture_output=True, text=True,
                                         check=True).stdout)
        hf_single = run_hf(args.model, path, 1)
        hf_batch = run_hf(args.model, path, None)
    assert ours["tokens"] == hf_single["tokens"], f"token counts differ: {ours['tokens']} vs {hf_single['tokens']}"
    print(f"text: {ours['bytes'] / 1e6:.2f} MB in {ours['texts']} paragraphs, {ours['tokens']} tokens "
          f"(equal on both sides); threads: {ours['threads']}")
    print(f"{'':12}{'precis MB/s':>14}{'HF tokenizers MB/s':>20}{'ratio':>8}")
    for name, a, b in [("single", ours["single_mb_s"], hf_single["mb_s"]),
                       ("batch", ours["batch_mb_s"], hf_batch["mb_s"])]:
        print(f"{name:12}{a:14.2f}{b:20.2f}{a / b:8.2f}")


if __name__ == "__main__":
    main()
