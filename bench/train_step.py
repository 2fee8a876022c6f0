"""BART training step on CPU: precis against transformers + PyTorch, same model and batch shape.

A bart-base-sized random BartForConditionalGeneration (d_model 768, 6+6 layers, 12 heads,
FFN 3072, vocabulary 50265, dropout 0.1 as bart-base) is saved once; each side then runs
forward + backward + gradient clipping + AdamW on batch 4, source 256, target 64 (default),
in its own process with the same thread count. Prints tokens/s (source + target tokens per
second), the ratio, and each process's peak resident memory.

    .venv/bin/python bench/train_step.py [--threads N] [--iterations K]

--preset bart-tiny: the main job's model instead (scripts/demo.sh: d_model 128, 2+2 layers,
4 heads, FFN 512, vocabulary 8000) on one rank's micro-batch of the demo (16 examples of 32
source and 12 target tokens, about the demo's mean of 630 tokens per rank and step), one
thread, the median of 50 steps: where the step is overheads (small GEMMs, the LM head's
softmax, the optimizer), not large GEMMs.
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

HF_STEP = r"""
import json, resource, sys, time, torch
from transformers import BartForConditionalGeneration
model_dir, B, S, T, iters, threads, bf16 = sys.argv[1], *map(int, sys.argv[2:8])
torch.set_num_threads(threads)
model = BartForConditionalGeneration.from_pretrained(model_dir).train()
opt = torch.optim.AdamW(model.parameters(), lr=1e-5, weight_decay=0.01, foreach=False)
g = torch.Generator().manual_seed(0)
ids = torch.randint(4, model.config.vocab_size, (B, S), generator=g)
labels = torch.randint(4, model.config.vocab_size, (B, T), generator=g)
times = []
for i in range(iters + 1):
    t = time.perf_counter()
    # --bf16: what Seq2SeqTrainer(bf16=True, use_cpu=True) runs, the forward and loss under
    # CPU autocast, the backward outside it.
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bool(bf16)):
        loss = model(input_ids=ids, attention_mask=torch.ones_like(ids), labels=labels).loss
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step(); opt.zero_grad()
    if i: times.append(time.perf_counter() - t)
times.sort()
med = times[len(times) // 2]
print(json.dumps({"median_s": med, "tokens_per_s": B * (S + T) / med,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--preset", choices=["bart-base", "bart-tiny"], default="bart-base")
    ap.add_argument("--threads", type=int)
    ap.add_argument("--iterations", type=int)
    ap.add_argument("--batch", type=int)
    ap.add_argument("--source", type=int)
    ap.add_argument("--target", type=int)
    ap.add_argument("--build", default=str(pathlib.Path(__file__).parents[1] / "build"))
    ap.add_argument("--profile", action="store_true", help="print precis's per-op profile")
    ap.add_argument("--isa", choices=["native", "avx2"], default="native",
                    help="avx2: hold both sides to AVX2 on an AVX-512 machine (give --build a build "
                         "made with -DPRECIS_NATIVE=OFF -DCMAKE_CXX_FLAGS=-march=x86-64-v3)")
    ap.add_argument("--bf16", action="store_true",
                    help="both sides in bf16 mixed precision: precis's bf16 matrix products (AMX "
                         "where the CPU has it), torch's CPU autocast")
    args = ap.parse_args()
    tiny = args.preset == "bart-tiny"
    defaults = dict(threads=1, iterations=50, batch=16, source=32, target=12) if tiny else \
        dict(threads=os.cpu_count(), iterations=3, batch=4, source=256, target=64)
    for k, v in defaults.items():
        if getattr(args, k) is None:
            setattr(args, k, v)
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    if args.isa == "avx2":  # both sides held to AVX2: OpenBLAS's Haswell kernels; ATen, oneDNN, MKL
        env.update(OPENBLAS_CORETYPE="Haswell", ATEN_CPU_CAPABILITY="avx2", ONEDNN_MAX_CPU_ISA="AVX2",
                   MKL_ENABLE_INSTRUCTIONS="AVX2")

    import torch
    from transformers import BartConfig, BartForConditionalGeneration
    torch.manual_seed(0)
    if tiny:  # precis's bart-tiny preset (model/bart/bart_init.cpp)
        config = BartConfig(vocab_size=8000, d_model=128, encoder_layers=2, decoder_layers=2,
                            encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=512,
                            decoder_ffn_dim=512, max_position_embeddings=512, dropout=0.1)
    else:
        config = BartConfig(vocab_size=50265, d_model=768, encoder_layers=6, decoder_layers=6,
                            encoder_attention_heads=12, decoder_attention_heads=12, encoder_ffn_dim=3072,
                            decoder_ffn_dim=3072, max_position_embeddings=1024, dropout=0.1)
    shape = [str(args.batch), str(args.source), str(args.target), str(args.iterations)]
    with tempfile.TemporaryDirectory() as tmp:
        BartForConditionalGeneration(config).save_pretrained(tmp)
        ours_run = subprocess.run([str(pathlib.Path(args.build) / "bench" / "bart_train_bench"), tmp, *shape,
                                   *(["bf16"] if args.bf16 else [])],
                                  check=True, capture_output=True, text=True,
                                  env=dict(env, PRECIS_OP_PROFILE="1" if args.profile else "0"))
        ours = json.loads(ours_run.stdout)
        hf = json.loads(subprocess.run([sys.executable, "-c", HF_STEP, tmp, *shape, str(args.threads), str(int(args.bf16))],
                                       check=True, capture_output=True, text=True, env=env).stdout)
    print(f"machine: {os.cpu_count()} cores, threads {args.threads}; torch {torch.__version__}; {args.preset} shape, "
          f"batch {args.batch}, source {args.source}, target {args.target}; median of {args.iterations} steps"
          f"{'; bf16 mixed precision' if args.bf16 else ''}{'; AVX2 only' if args.isa == 'avx2' else ''}")
    print(f"transformers+pytorch: {hf['tokens_per_s']:8.0f} tokens/s  ({hf['median_s']:.4f} s/step, "
          f"peak RSS {hf['peak_rss_mb']:.0f} MB)")
    print(f"precis:               {ours['tokens_per_s']:8.0f} tokens/s  ({ours['median_s']:.4f} s/step, "
          f"peak RSS {ours['peak_rss_mb']:.0f} MB)")
    print(f"ratio (precis / transformers): {ours['tokens_per_s'] / hf['tokens_per_s']:.2f}x")
    if args.profile:
        print("\nprecis, op by op (per step):\n" + ours_run.stderr, end="")


if __name__ == "__main__":
    main()
