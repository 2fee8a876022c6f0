"""BART forward pass on CPU: precis against transformers + PyTorch, same model, same inputs' shape.

Builds a bart-base-sized random BartForConditionalGeneration (d_model 768, 6+6 layers,
12 heads, FFN 3072, vocabulary 50265), saves it, and times the forward pass (encoder,
decoder, LM head, loss) on both sides with the same number of threads, batch 4, source 256,
target 64 by default. Prints both timings and the ratio (transformers time / precis time).

    .venv/bin/python bench/forward.py [--threads N] [--iterations K] [--bf16 [--kept]]

--bf16: precis's products in bf16 with fp32 sums (`precis train --bf16` on the CPU), against
transformers under torch's CPU autocast to bf16 (what Seq2SeqTrainer(bf16=True, use_cpu=True)
runs the forward and loss under).
--kept: the weights hold still across the forwards (evaluation, inference): torch runs them all
in one autocast context, whose cache keeps its bf16 weight copies; precis in one
ConstantWeightsScope, which keeps its AMX-packed weights.
"""
import argparse
import contextlib
import json
import os
import pathlib
import subprocess
import tempfile
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--iterations", type=int, default=5)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--source", type=int, default=256)
    ap.add_argument("--target", type=int, default=64)
    ap.add_argument("--build", default=str(pathlib.Path(__file__).parents[1] / "build"))
    ap.add_argument("--bf16", action="store_true")
    ap.add_argument("--kept", action="store_true")
    args = ap.parse_args()
    if args.kept and not args.bf16:
        ap.error("--kept compares kept bf16 weight copies: give --bf16 too")
    os.environ["OMP_NUM_THREADS"] = str(args.threads)

    import torch
    from transformers import BartConfig, BartForConditionalGeneration
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    config = BartConfig(vocab_size=50265, d_model=768, encoder_layers=6, decoder_layers=6,
                        encoder_attention_heads=12, decoder_attention_heads=12, encoder_ffn_dim=3072,
                        decoder_ffn_dim=3072, max_position_embeddings=1024)
    model = BartForConditionalGeneration(config).eval()
    with tempfile.TemporaryDirectory() as tmp:
        model.save_pretrained(tmp)
        ours = json.loads(subprocess.run(
            [str(pathlib.Path(args.build) / "bench" / "bart_forward_bench"), tmp, str(args.batch),
             str(args.source), str(args.target), str(args.iterations), *([("bf16-kept" if args.kept else "bf16")] if args.bf16 else [])],
            check=True, capture_output=True, text=True, env=dict(os.environ)).stdout)

    g = torch.Generator().manual_seed(0)
    input_ids = torch.randint(4, config.vocab_size, (args.batch, args.source), generator=g)
    labels = torch.randint(4, config.vocab_size, (args.batch, args.target), generator=g)
    times = []
    kept = torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.kept)
    with torch.no_grad(), kept:
        for i in range(args.iterations + 1):
            start = time.perf_counter()
            # One autocast context per forward, as Seq2SeqTrainer enters one per evaluation
            # step: torch's cache of bf16 weight copies lives as long as the context (with
            # --kept, the outer one: the copies made in the first forward serve the rest).
            inner = contextlib.nullcontext() if args.kept else torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.bf16)
            with inner:
                model(input_ids=input_ids, attention_mask=torch.ones_like(input_ids), labels=labels)
            if i:
                times.append(time.perf_counter() - start)
    times.sort()
    hf_median = times[len(times) // 2]
    print(f"machine: {os.cpu_count()} cores, threads {args.threads}; torch {torch.__version__}; "
          f"bart-base shape, batch {args.batch}, source {args.source}, target {args.target}, "
          f"{args.iterations} timed iterations (median){'; bf16 (torch: CPU autocast)' if args.bf16 else ''}{', weight copies kept' if args.kept else ''}")
    print(f"transformers+pytorch forward: {hf_median * 1e3:9.1f} ms")
    print(f"precis forward:               {ours['median_s'] * 1e3:9.1f} ms")
    print(f"ratio (transformers / precis): {hf_median / ours['median_s']:.2f}x")


if __name__ == "__main__":
    main()
