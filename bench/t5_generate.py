"""T5 generation on CPU: precis's generate() against transformers' generate(), same model,
same inputs, same settings.

A random T5ForConditionalGeneration of t5-base's shape (as bench/t5_train_step.py; --variant
v1.1 for t5-v1_1-base's) is saved once; a batch of random-token inputs of 200-300 tokens
(each ending in </s>, right-padded as generate() pads) goes to both sides, which are
long-lived processes with the same thread count. Two settings are timed:

  greedy: num_beams 1, no_repeat_ngram_size 3
  beam:   num_beams 4, length_penalty 2.0, no_repeat_ngram_size 3, early_stopping true
          (t5-base's task_specific_params for summarization)

both with min_new_tokens = max_new_tokens (64 by default), so that with random weights every
row of both sides has the same length and the same work. (A random v1.0 model with its tied
head predicts the token it was fed, so plain greedy search repeats the start token 0 (= pad)
forever; the n-gram ban makes the ids worth comparing.) The driver alternates the sides run
by run (bench/interleave.py) and reports medians, generated tokens per second (returned
tokens after the start token: rows x max_new_tokens) and whether precis's ids equal
transformers'.

    .venv-bench/bin/python bench/t5_generate.py [--threads N] [--batch 8] [--rounds 3]
"""
import argparse
import json
import os
import pathlib
import random
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from interleave import Worker, alternate, median  # noqa: E402
from t5_train_step import t5_config  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]

HF_WORKER = r"""
import json, sys, time, torch
from transformers import T5ForConditionalGeneration
model_dir, inputs_file, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
torch.set_num_threads(threads)
model = T5ForConditionalGeneration.from_pretrained(model_dir).eval()
inputs = json.load(open(inputs_file))["inputs"]
longest = max(len(x) for x in inputs)
pad = model.config.pad_token_id
input_ids = torch.tensor([x + [pad] * (longest - len(x)) for x in inputs])
mask = torch.tensor([[1] * len(x) + [0] * (longest - len(x)) for x in inputs])
print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    settings = json.loads(line)
    with torch.no_grad():
        start = time.perf_counter()
        out = model.generate(input_ids=input_ids, attention_mask=mask, **settings)
        seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "sequences": out.tolist()}), flush=True)
"""


def settings(max_new_tokens):
    length = dict(max_new_tokens=max_new_tokens, min_new_tokens=max_new_tokens)
    return {"greedy": dict(num_beams=1, no_repeat_ngram_size=3, **length),
            "beam": dict(num_beams=4, length_penalty=2.0, no_repeat_ngram_size=3, early_stopping=True, **length)}


def make_inputs(batch, vocab_size):
    """`batch` rows of 200-300 random tokens (ids 2.. so no pad or </s> inside), </s> last."""
    rng = random.Random(0)
    lengths = [200 + (100 * i) // max(1, batch - 1) for i in range(batch)]
    return [[rng.randrange(2, vocab_size) for _ in range(n - 1)] + [1] for n in lengths]


def generated_tokens(rows):
    """Tokens after the start token. Lengths are forced, so no row is padded (and a random
    model may well generate the pad id, which must count)."""
    return sum(len(row) - 1 for row in rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=3, help="timed runs per side and setting, after a warm-up")
    ap.add_argument("--max_new_tokens", type=int, default=64)
    ap.add_argument("--variant", choices=["v1.0", "v1.1"], default="v1.0")
    ap.add_argument("--build", default=str(ROOT / "build"), help="the CMake build folder holding bench/")
    args = ap.parse_args()
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))

    import torch
    import transformers
    from transformers import T5ForConditionalGeneration
    torch.manual_seed(0)
    config = t5_config(args.variant, 0.1)
    inputs = make_inputs(args.batch, config.vocab_size)
    runs = settings(args.max_new_tokens)

    with tempfile.TemporaryDirectory() as tmp:
        T5ForConditionalGeneration(config).save_pretrained(tmp)
        inputs_file = os.path.join(tmp, "inputs.json")
        with open(inputs_file, "w") as f:
            json.dump({"inputs": inputs}, f)
        precis = Worker("precis", [str(pathlib.Path(args.build) / "bench" / "t5_generate_bench"), tmp, inputs_file],
                        env)
        hf = Worker("transformers", [sys.executable, "-c", HF_WORKER, tmp, inputs_file, str(args.threads)], env)
        warm_up = json.dumps(dict(num_beams=1, max_new_tokens=4, min_new_tokens=4))
        for w in (precis, hf):
            w.request(warm_up)
        results = {(w, name): [] for w in (precis, hf) for name in runs}
        for r in range(args.rounds):
            for name, kwargs in runs.items():
                for w in alternate([precis, hf], r):
                    results[w, name].append(w.request(json.dumps(kwargs)))
                    print(f"round {r + 1} {name} {w.name}: {results[w, name][-1]['seconds']:.2f} s", file=sys.stderr,
                          flush=True)
        precis.close()
        hf.close()

    lengths = [len(x) for x in inputs]
    print(f"machine: {os.cpu_count()} cores, threads {args.threads}; torch {torch.__version__}, transformers "
          f"{transformers.__version__}; t5-{'base' if args.variant == 'v1.0' else 'v1_1-base'} shape, random "
          f"weights; batch {len(inputs)}, source lengths {min(lengths)}-{max(lengths)} tokens, "
          f"{args.max_new_tokens} new tokens forced; median of {args.rounds} interleaved runs per side")
    for name, kwargs in runs.items():
        theirs, ours = results[hf, name], results[precis, name]
        hf_s, our_s = median([x["seconds"] for x in theirs]), median([x["seconds"] for x in ours])
        tokens = generated_tokens(theirs[-1]["sequences"])
        our_tokens = generated_tokens(ours[-1]["sequences"])
        hf_runs = ", ".join(f"{x['seconds']:.2f}" for x in theirs)
        our_runs = ", ".join(f"{x['seconds']:.2f}" for x in ours)
        print(f"  first row, first 12 ids: precis {ours[-1]['sequences'][0][:12]}, "
              f"transformers {theirs[-1]['sequences'][0][:12]}")
        same = sum(a == b for a, b in zip(ours[-1]["sequences"], theirs[-1]["sequences"]))
        print(f"{name} ({json.dumps(kwargs)}):")
        print(f"  transformers generate(): {hf_s:7.2f} s  {tokens / hf_s:7.1f} generated tokens/s ({tokens} tokens; "
              f"runs {hf_runs})")
        print(f"  precis generate():       {our_s:7.2f} s  {our_tokens / our_s:7.1f} generated tokens/s "
              f"({our_tokens} tokens; runs {our_runs})")
        print(f"  ratio (precis / transformers, tokens/s): {(our_tokens / our_s) / (tokens / hf_s):.2f}x; "
              f"rows with ids equal to transformers': {same}/{len(theirs[-1]['sequences'])}")


if __name__ == "__main__":
    main()
