"""The peer on the GPU: Hugging Face BART in PyTorch as a user runs it, measured the way
scripts/gpu-check.sh will measure precis's CUDA backend, on the same shapes.

  python3 bench/gpu/hf_peer.py gemm                 # bf16/fp16 GEMM peak (torch -> cuBLAS)
  python3 bench/gpu/hf_peer.py train [--dtype bf16|fp16] [--batch 32 --source 512 --target 128]
  python3 bench/gpu/hf_peer.py generate [--dtype fp32|bf16] [--batch 32 --source 512]
  python3 bench/gpu/hf_peer.py all                  # SUITE below, one process, one JSON line each
  add --tiny to run a two-layer model on the CPU (a dry run of the script itself)

Training is what Seq2SeqTrainer does with --bf16 / --fp16: autocast over fp32 master weights,
SDPA attention, fused AdamW (lr 5e-5, weight decay 0.01), and for fp16 a GradScaler with HF's
settings (initial scale 2^16, growth interval 2000). Weights are random (bart-large's shape;
no network on the GPU machine), which changes nothing in the time of a training step. Beam
search uses bart-large-cnn's generation settings; with random weights no beam ends early, so
every run decodes max_length tokens: a fixed, worst-case workload. Each measurement prints
one JSON line; timings are CUDA events around the steps after warm-up.
"""
import argparse
import contextlib
import json
import sys
import time

import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from model_flops import bart_train_flops  # noqa: E402


def bart_large_config(tiny):
    from transformers import BartConfig
    # facebook/bart-large-cnn's config.json (vocabulary 50264) and generation settings.
    c = BartConfig(vocab_size=50264, d_model=1024, encoder_layers=12, decoder_layers=12,
                   encoder_attention_heads=16, decoder_attention_heads=16, encoder_ffn_dim=4096,
                   decoder_ffn_dim=4096, max_position_embeddings=1024, dropout=0.1,
                   attention_dropout=0.0, activation_dropout=0.0, activation_function="gelu",
                   scale_embedding=False, bos_token_id=0, pad_token_id=1, eos_token_id=2,
                   decoder_start_token_id=2, forced_bos_token_id=0, forced_eos_token_id=2)
    if tiny:
        c.d_model, c.encoder_layers, c.decoder_layers, c.encoder_ffn_dim, c.decoder_ffn_dim = 64, 2, 2, 128, 128
        c.encoder_attention_heads = c.decoder_attention_heads = 4
        c.vocab_size = 1000
    return c


GENERATION = dict(num_beams=4, max_length=142, min_length=56, length_penalty=2.0,
                  no_repeat_ngram_size=3, early_stopping=True, bos_token_id=0, pad_token_id=1,
                  eos_token_id=2, decoder_start_token_id=2, forced_bos_token_id=0,
                  forced_eos_token_id=2)


def build_model(config, device):
    from transformers import BartForConditionalGeneration
    if device == "cpu":  # the dry run, on the oracle's torch 1.13
        return BartForConditionalGeneration(config)
    with torch.device(device):  # initialise on the GPU: seconds instead of a minute on the host
        return BartForConditionalGeneration._from_config(config, attn_implementation="sdpa")


class Timer:
    """Elapsed seconds by CUDA events on a GPU, by the wall clock on the CPU."""

    def __init__(self, device):
        self.cuda = device == "cuda"

    def __enter__(self):
        if self.cuda:
            self.start, self.end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            self.start.record()
        else:
            self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        if self.cuda:
            self.end.record()
            self.end.synchronize()
            self.seconds = self.start.elapsed_time(self.end) / 1e3
        else:
            self.seconds = time.perf_counter() - self.t0


def emit(record):
    print(json.dumps(record), flush=True)


def gemm(args, device):
    n = 8192 if not args.tiny else 256
    dtypes = (torch.bfloat16, torch.float16) if device == "cuda" else (torch.bfloat16,)
    for dtype in dtypes:
        a = torch.randn(n, n, device=device, dtype=dtype)
        b = torch.randn(n, n, device=device, dtype=dtype)
        for _ in range(3):
            a @ b
        with Timer(device) as t:
            for _ in range(10):
                a @ b
        emit({"what": "gemm", "dtype": str(dtype).split(".")[1], "n": n,
              "tflops": round(2 * n**3 * 10 / t.seconds / 1e12, 1)})


def train(args, device):
    config = bart_large_config(args.tiny)
    model = build_model(config, device).train()
    fused = {"fused": True} if device == "cuda" else {}
    optim = torch.optim.AdamW(model.parameters(), lr=5e-5, weight_decay=0.01, **fused)
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[args.dtype]
    scaler = torch.amp.GradScaler(device, init_scale=2.0**16, growth_interval=2000,
                                  enabled=args.dtype == "fp16") if hasattr(torch, "amp") and hasattr(torch.amp, "GradScaler") else None
    g = torch.Generator(device="cpu").manual_seed(0)
    ids = torch.randint(3, config.vocab_size, (args.batch, args.source), generator=g).to(device)
    labels = torch.randint(3, config.vocab_size, (args.batch, args.target), generator=g).to(device)
    mask = torch.ones_like(ids)

    def step():
        autocast = torch.autocast(device_type="cuda", dtype=dtype) if device == "cuda" else contextlib.nullcontext()
        with autocast:
            loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
        if scaler is not None and scaler.is_enabled():
            scaler.scale(loss).backward()
            scaler.unscale_(optim)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(optim)
            scaler.update()
        else:
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optim.step()
        optim.zero_grad(set_to_none=True)
        return loss

    for _ in range(args.warmup):
        step()
    if device == "cuda":
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    with Timer(device) as t:
        for _ in range(args.steps):
            loss = step()
    seconds = t.seconds / args.steps
    tokens = args.batch * (args.source + args.target)
    flops = bart_train_flops(config, args.batch, args.source, args.target)
    record = {"what": "train", "peer": "hf", "dtype": args.dtype, "batch": args.batch,
              "source": args.source, "target": args.target, "step_ms": round(seconds * 1e3, 2),
              "tokens_per_s": round(tokens / seconds), "model_tflops": round(flops / seconds / 1e12, 1),
              "loss": float(loss.detach())}
    if device == "cuda":
        record["peak_memory_gib"] = round(torch.cuda.max_memory_allocated() / 2**30, 2)
    emit(record)


def generate(args, device):
    config = bart_large_config(args.tiny)
    model = build_model(config, device).eval()
    if args.dtype == "bf16":
        model = model.to(torch.bfloat16)
    g = torch.Generator(device="cpu").manual_seed(1)
    ids = torch.randint(3, config.vocab_size, (args.batch, args.source), generator=g)
    ids[:, 0], ids[:, -1] = 0, 2
    ids = ids.to(device)
    settings = dict(GENERATION, max_length=args.max_length or GENERATION["max_length"])
    with torch.inference_mode():
        model.generate(ids, attention_mask=torch.ones_like(ids), **settings)
        times = []
        for _ in range(args.steps):
            with Timer(device) as t:
                out = model.generate(ids, attention_mask=torch.ones_like(ids), **settings)
            times.append(t.seconds)
    seconds = min(times)
    new_tokens = int((out[:, 1:] != config.pad_token_id).sum())
    emit({"what": "generate", "peer": "hf", "dtype": args.dtype, "batch": args.batch,
          "source": args.source, "generated_len": out.shape[1], "seconds": round(seconds, 3),
          "tokens_per_s": round(new_tokens / seconds), "runs_s": [round(x, 3) for x in times]})


# What scripts/gpu-check.sh measures: the training shape (bart-large, batch 32, source
# 512, target 128) in bf16 and in the tutorial's fp16; global batch 64 at an assumed SAMSum
# padding (256 source, 48 target tokens: dialogues average ~120 tokens, the same assumption as
# BENCHMARKS.md's scaling model) for the projected fine-tune; beam search in fp32 and bf16 at
# batch 32 and fp32 at batch 1 (one request from the inference widget).
SUITE = [
    ("gemm", {}),
    ("train", dict(dtype="bf16", batch=32, source=512, target=128)),
    ("train", dict(dtype="fp16", batch=32, source=512, target=128)),
    ("train", dict(dtype="fp16", batch=64, source=256, target=48)),
    ("generate", dict(dtype="fp32", batch=32, source=512, steps=2)),
    ("generate", dict(dtype="bf16", batch=32, source=512, steps=2)),
    ("generate", dict(dtype="fp32", batch=1, source=512, steps=2)),
]


def run_suite(args, device):
    for what, overrides in SUITE:
        one = argparse.Namespace(**vars(args))
        vars(one).update(overrides)
        if args.tiny:
            vars(one).update(batch=2, source=16, target=8, steps=1, warmup=1, max_length=20)
        try:
            MEASURE[what](one, device)
        except Exception as e:  # one failure must not lose the other measurements
            emit({"what": what, **overrides, "error": f"{type(e).__name__}: {e}"[:500]})
        if device == "cuda":
            torch.cuda.empty_cache()


MEASURE = {"gemm": gemm, "train": train, "generate": generate, "all": run_suite}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("what", choices=sorted(MEASURE))
    p.add_argument("--dtype", default=None)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--source", type=int, default=512)
    p.add_argument("--target", type=int, default=128)
    p.add_argument("--max_length", type=int, default=0)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--steps", type=int, default=8)
    p.add_argument("--tiny", action="store_true")
    args = p.parse_args()
    device = "cuda" if torch.cuda.is_available() and not args.tiny else "cpu"
    if args.dtype is None:
        args.dtype = {"train": "bf16", "generate": "fp32"}.get(args.what)
    MEASURE[args.what](args, device)


if __name__ == "__main__":
    main()
