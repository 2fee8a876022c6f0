"""Agreement with both transformers releases on a trained model: precis generate under
--hf_semantics 5 and 4.44 against transformers 5.23.0 (.venv-hf5) and 4.44.2 (this venv), beam
search with the model's generation config and greedy, the summaries and ids compared row by row.

    .venv/bin/python bench/hf_semantics_agreement.py [--model out/demo/model]
        [--data out/demo/debian-synopses/test.jsonl] [--inputs 300]

The defaults are what scripts/demo.sh trains and its test split (run_summarization's text
column package_and_description, max_source_length 40)."""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

import torch
from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "oracle"))
from hf5_oracle import run_hf5  # noqa: E402

CASES = {"beam": {}, "greedy": {"num_beams": 1}}


def precis(model, inputs, column, max_source, batch, semantics, kwargs):
    extra = [a for k, v in kwargs.items() for a in (f"--{k}", str(v))]
    env = {k: v for k, v in os.environ.items() if k != "PRECIS_HF_SEMANTICS"}
    out = subprocess.run([str(ROOT / "build" / "precis"), "generate", "--model", model, "--input", inputs,
                          "--text_column", column, "--max_source_length", str(max_source),
                          "--per_device_eval_batch_size", str(batch), "--hf_semantics", semantics, *extra],
                         capture_output=True, text=True, check=True, env=env).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default=str(ROOT / "out/demo/model"))
    p.add_argument("--data", default=str(ROOT / "out/demo/debian-synopses/test.jsonl"))
    p.add_argument("--column", default="package_and_description")
    p.add_argument("--inputs", type=int, default=300)
    p.add_argument("--max_source_length", type=int, default=40)
    p.add_argument("--batch", type=int, default=32)
    a = p.parse_args()
    torch.set_num_threads(1)
    records = [json.loads(line) for line in open(a.data)][:a.inputs]
    texts = [r[a.column] for r in records]
    with tempfile.TemporaryDirectory() as tmp:
        inputs = pathlib.Path(tmp) / "inputs.jsonl"
        inputs.write_text("".join(json.dumps({a.column: t}) + "\n" for t in texts))
        tok = AutoTokenizer.from_pretrained(a.model)
        model = AutoModelForSeq2SeqLM.from_pretrained(a.model).eval()
        ref = {"4.44": {}, "5": run_hf5("generate.py", dict(model_dir=a.model, texts=texts, max_source=a.max_source_length,
                                                            batch_size=a.batch, cases=CASES))}
        for case, kwargs in CASES.items():
            rows = []
            for begin in range(0, len(texts), a.batch):
                enc = tok(texts[begin:begin + a.batch], padding=True, truncation=True,
                          max_length=a.max_source_length, return_tensors="pt")
                with torch.no_grad():
                    rows += model.generate(**enc, **kwargs).tolist()
            ref["4.44"][case] = {"ids": rows, "texts": [tok.decode(r, skip_special_tokens=True) for r in rows]}
        print(f"{a.model}, first {len(texts)} inputs of {a.data}")
        print("| decoding | releases' summaries equal | precis --hf_semantics 5 = 5.23.0 (texts, ids) "
              "| precis --hf_semantics 4.44 = 4.44.2 (texts, ids) |")
        print("|---|---|---|---|")
        for case, kwargs in CASES.items():
            same = sum(x == y for x, y in zip(ref["4.44"][case]["texts"], ref["5"][case]["texts"]))
            cells = []
            for semantics in ("5", "4.44"):
                ours = precis(a.model, inputs, a.column, a.max_source_length, a.batch, semantics, kwargs)
                want = ref[semantics][case]
                text_eq = sum(o["summary_text"] == t for o, t in zip(ours, want["texts"]))
                ids_eq = sum(o["ids"] == i for o, i in zip(ours, want["ids"]))
                cells.append(f"{text_eq}/{len(texts)}, {ids_eq}/{len(texts)}")
            print(f"| {case} | {same}/{len(texts)} | {cells[0]} | {cells[1]} |")


if __name__ == "__main__":
    main()
