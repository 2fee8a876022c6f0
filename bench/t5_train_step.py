"""T5 training step on CPU: precis against transformers + PyTorch, same model, same batch.

A random T5ForConditionalGeneration of t5-base's shape (d_model 768, d_ff 3072, 12+12 blocks,
12 heads, d_kv 64, vocabulary 32128, ReLU feed-forward, tied head: v1.0) or, with
--variant v1.1, t5-v1_1-base's (d_ff 2048, gated-GELU, untied head) is saved once; one fixed
batch of random tokens (no padding) is given to both sides. Each side is a long-lived
process with the same thread count running forward + loss + backward + gradient clipping
(max norm 1.0) + AdamW (lr 1e-5, weight decay 0.01), fp32, dropout as the config says (0.1),
one step per request; the driver alternates the sides step by step (bench/interleave.py) and
reports medians, so both see the same background load. The first step of each side is a
warm-up and is not timed.

Prints tokens/s (source + target tokens per second), the ratio, the split of a step into
forward+backward and clipping+AdamW, each process's peak resident memory, and the first
step's loss on each side (equal to about 1e-4 with --dropout 0; with dropout the masks
differ between the two).

    .venv-bench/bin/python bench/t5_train_step.py [--threads N] [--steps K] [--variant v1.1]
"""
import argparse
import json
import os
import pathlib
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from interleave import Worker, alternate, median  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]

HF_WORKER = r"""
import json, resource, sys, time, torch
from transformers import T5ForConditionalGeneration
model_dir, batch_file, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
torch.set_num_threads(threads)
model = T5ForConditionalGeneration.from_pretrained(model_dir).train()
opt = torch.optim.AdamW(model.parameters(), lr=1e-5, weight_decay=0.01)
batch = json.load(open(batch_file))
ids, labels = torch.tensor(batch["input_ids"]), torch.tensor(batch["labels"])
mask = torch.ones_like(ids)
print(json.dumps({"ready": True, "parameters": sum(p.numel() for p in model.parameters())}), flush=True)
for line in sys.stdin:
    if line.strip() != "step":
        break
    start = time.perf_counter()
    loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
    loss.backward()
    update = time.perf_counter()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    opt.zero_grad()
    end = time.perf_counter()
    print(json.dumps({"seconds": end - start, "forward_backward_s": update - start, "optimizer_s": end - update,
                      "loss": loss.item()}), flush=True)
print(json.dumps({"peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}), flush=True)
"""


def t5_config(variant, dropout):
    from transformers import T5Config
    common = dict(vocab_size=32128, d_model=768, d_kv=64, num_layers=12, num_heads=12, dropout_rate=dropout,
                  decoder_start_token_id=0)
    if variant == "v1.0":  # t5-base
        return T5Config(d_ff=3072, feed_forward_proj="relu", tie_word_embeddings=True, **common)
    return T5Config(d_ff=2048, feed_forward_proj="gated-gelu", tie_word_embeddings=False, **common)  # v1_1-base


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--steps", type=int, default=5, help="timed steps per side, after one warm-up step each")
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--source", type=int, default=256)
    ap.add_argument("--target", type=int, default=64)
    ap.add_argument("--variant", choices=["v1.0", "v1.1"], default="v1.0")
    ap.add_argument("--dropout", type=float, default=0.1)
    ap.add_argument("--build", default=str(ROOT / "build"), help="the CMake build folder holding bench/")
    args = ap.parse_args()
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))

    import torch
    import transformers
    from transformers import T5ForConditionalGeneration
    torch.manual_seed(0)
    config = t5_config(args.variant, args.dropout)
    g = torch.Generator().manual_seed(0)
    batch = {"input_ids": torch.randint(2, config.vocab_size, (args.batch, args.source), generator=g).tolist(),
             "labels": torch.randint(2, config.vocab_size, (args.batch, args.target), generator=g).tolist()}

    with tempfile.TemporaryDirectory() as tmp:
        T5ForConditionalGeneration(config).save_pretrained(tmp)
        batch_file = os.path.join(tmp, "batch.json")
        with open(batch_file, "w") as f:
            json.dump(batch, f)
        precis = Worker("precis", [str(pathlib.Path(args.build) / "bench" / "t5_train_bench"), tmp, batch_file], env)
        hf = Worker("transformers", [sys.executable, "-c", HF_WORKER, tmp, batch_file, str(args.threads)], env)
        steps = {precis: [], hf: []}
        first_loss = {w: w.request("step")["loss"] for w in (precis, hf)}  # warm-up
        for r in range(args.steps):
            for w in alternate([precis, hf], r):
                steps[w].append(w.request("step"))
                print(f"step {r + 1} {w.name}: {steps[w][-1]['seconds']:.2f} s", file=sys.stderr, flush=True)
        rss = {w: w.close()["peak_rss_mb"] for w in (precis, hf)}

    tokens = args.batch * (args.source + args.target)
    print(f"machine: {os.cpu_count()} cores, threads {args.threads}; torch {torch.__version__}, transformers "
          f"{transformers.__version__}; t5-{'base' if args.variant == 'v1.0' else 'v1_1-base'} shape "
          f"({precis.ready['parameters'] / 1e6:.1f}M parameters), random weights, dropout {args.dropout}; "
          f"batch {args.batch}, source {args.source}, target {args.target}; "
          f"median of {args.steps} interleaved steps per side")
    result = {}
    for w, label in ((hf, "transformers+pytorch"), (precis, "precis")):
        s = median([x["seconds"] for x in steps[w]])
        fb = median([x["forward_backward_s"] for x in steps[w]])
        opt = median([x["optimizer_s"] for x in steps[w]])
        result[w] = s
        each = ", ".join(f"{x['seconds']:.2f}" for x in steps[w])
        print(f"{label:21s} {tokens / s:8.1f} tokens/s  ({s:.2f} s/step: forward+backward {fb:.2f} s, "
              f"clip+AdamW {opt:.2f} s; all steps {each}; "
              f"peak RSS {rss[w]:.0f} MB; first loss {first_loss[w]:.6f})")
    print(f"ratio (precis / transformers, tokens/s): {result[hf] / result[precis]:.2f}x")


if __name__ == "__main__":
    main()
