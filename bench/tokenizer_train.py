"""Byte-level BPE training time: `precis tokenizer train` vs HF `tokenizers`' trainer, on the
Debian package descriptions + synopses (train split of `precis data debian`, ~23 MB of text),
same vocab_size / min_frequency / specials, in the same run. Prints both times, the ratio, and
whether vocab.json and merges.txt came out equal.

  .venv/bin/python bench/tokenizer_train.py [--build build] [--data DIR] [--vocab_size 8000]
      [--min_frequency 2] [--threads 2]
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time


def main():
    root = pathlib.Path(__file__).resolve().parents[1]
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=os.environ.get("PRECIS_BUILD_DIR", str(root / "build")))
    p.add_argument("--data", help="directory with train.jsonl (default: run `precis data debian`)")
    p.add_argument("--vocab_size", type=int, default=8000)
    p.add_argument("--min_frequency", type=int, default=2)
    p.add_argument("--threads", type=int, default=2, help="OMP_NUM_THREADS and RAYON_RS_NUM_CPUS")
    args = p.parse_args()

    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), RAYON_RS_NUM_CPUS=str(args.threads),
               RAYON_NUM_THREADS=str(args.threads))
    os.environ.update(RAYON_RS_NUM_CPUS=str(args.threads), RAYON_NUM_THREADS=str(args.threads))
    precis = pathlib.Path(args.build) / "precis"
    work = pathlib.Path(tempfile.mkdtemp(prefix="precis_bpe_bench_"))
    data = pathlib.Path(args.data) if args.data else work / "debian"
    if not args.data:
        subprocess.run([precis, "data", "debian", "--output", data], check=True, env=env,
                       stdout=subprocess.DEVNULL)
    train = data / "train.jsonl"

    cmd = [str(precis), "tokenizer", "train", "--files", str(train), "--output", str(work / "precis"),
           "--vocab_size", str(args.vocab_size), "--min_frequency", str(args.min_frequency),
           "--text_field", "description", "--text_field", "synopsis"]
    start = time.monotonic()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    precis_s = time.monotonic() - start

    from tokenizers import ByteLevelBPETokenizer  # after RAYON_RS_NUM_CPUS is set

    start = time.monotonic()
    texts = []
    with train.open(encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            texts += [r["description"], r["synopsis"]]
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(texts, vocab_size=args.vocab_size - 1, min_frequency=args.min_frequency,
                            special_tokens=["<s>", "<pad>", "</s>", "<unk>"], show_progress=False)
    hf_s = time.monotonic() - start
    (work / "hf").mkdir()
    bpe.save_model(str(work / "hf"))

    vocab = json.loads((work / "hf" / "vocab.json").read_text(encoding="utf-8"))
    vocab["<mask>"] = len(vocab)
    same_vocab = vocab == json.loads((work / "precis" / "vocab.json").read_text(encoding="utf-8"))
    merges = [(work / d / "merges.txt").read_text(encoding="utf-8").split("\n")[1:] for d in ("hf", "precis")]
    megabytes = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    print(f"corpus: {len(texts)} texts, {megabytes:.1f} MB ({train}); vocab_size {args.vocab_size}, "
          f"min_frequency {args.min_frequency}, {args.threads} threads")
    print(f"precis tokenizer train: {precis_s:.2f} s (reading JSON lines included)")
    print(f"HF tokenizers {__import__('tokenizers').__version__}: {hf_s:.2f} s (reading JSON lines included)")
    print(f"ratio HF / precis: {hf_s / precis_s:.2f}x")
    print(f"vocab.json equal: {same_vocab}; merges.txt equal: {merges[0] == merges[1]}")
    return 0 if same_vocab and merges[0] == merges[1] else 1


if __name__ == "__main__":
    sys.exit(main())
