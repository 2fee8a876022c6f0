"""gpu-check's tables: precis (bench/gpu/precis_train_bench.cpp and precis_generate_bench.cpp,
ours.jsonl) against HF + PyTorch (hf_peer.py, peer.jsonl) on the same shapes, on the same GPU
in the same run. Training: tokens/s and their ratio, precis's model FLOPs utilisation against
the bf16 GEMM peak the peer measured (model_flops.py's count, the same for both), the memory
each held, and the tutorial's whole fine-tune projected from the global-batch-64 row (SAMSum's
14732 training dialogues, 3 epochs: 693 steps) against its 363.7 s on 16 V100s. Beam search:
seconds per batch and the speed-up over HF's generate() in the same dtype (fp32, or bf16: precis's
mixed precision against HF's model cast to bf16).

  python3 bench/gpu/compare.py peer.jsonl ours.jsonl     # markdown rows on stdout
"""
import json
import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from model_flops import bart_train_flops  # noqa: E402


class BartLarge:  # hf_peer.py's bart_large_config: the shape model_flops counts
    d_model, encoder_ffn_dim, encoder_layers, decoder_layers, vocab_size = 1024, 4096, 12, 12, 50264


def rows(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip().startswith("{")]


def main(peer_path, ours_path):
    peer, ours = rows(peer_path), rows(ours_path)
    peak = next((r["tflops"] for r in peer if r.get("what") == "gemm" and r.get("dtype") == "bfloat16"), None)
    print("| shape (batch x source + target) | dtype | HF tokens/s | precis tokens/s | ratio | precis MFU | memory HF / precis (GiB) |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in ours:
        if r.get("what") != "train":
            continue
        key = (r["dtype"], r["batch"], r["source"], r["target"])
        hf = next((p for p in peer if p.get("what") == "train" and
                   (p["dtype"], p["batch"], p["source"], p["target"]) == key), None)
        flops = bart_train_flops(BartLarge, r["batch"], r["source"], r["target"])
        mfu = f"{100 * flops / (r['step_ms'] / 1e3) / (peak * 1e12):.0f}%" if peak else "no peak measured"
        ratio = f"{r['tokens_per_s'] / hf['tokens_per_s']:.2f}x" if hf else "no peer row"
        print(f"| {r['batch']} x {r['source']} + {r['target']} | {r['dtype']} | "
              f"{hf['tokens_per_s'] if hf else '-'} | {r['tokens_per_s']} | {ratio} | {mfu} | "
              f"{hf.get('peak_memory_gib', '-') if hf else '-'} / {r.get('arena_gib', '-')} (arenas) |")


    for r in ours:
        if r.get("what") == "train" and (r["batch"], r["source"], r["target"]) == (64, 256, 48):
            steps = -(-14732 // 64) * 3
            print(f"\nProjected fine-tune ({r['dtype']}, {steps} steps of {r['step_ms']:.0f} ms): "
                  f"{steps * r['step_ms'] / 1e3:.0f} s on this GPU, against 363.7 s on 16 V100s")
    print("\n| beam search (batch x source) | dtype | HF s | precis s | speed-up |")
    print("| --- | --- | --- | --- | --- |")
    for r in ours:
        if r.get("what") != "generate":
            continue
        dtype = r.get("dtype", "fp32")
        hf = next((p for p in peer if p.get("what") == "generate" and p["dtype"] == dtype and
                   (p["batch"], p["source"]) == (r["batch"], r["source"])), None)
        speedup = f"{hf['seconds'] / r['seconds']:.2f}x" if hf else "no peer row"
        print(f"| {r['batch']} x {r['source']} | {dtype} | {hf['seconds'] if hf else '-'} | {r['seconds']:.3f} | "
              f"{speedup} |")


if __name__ == "__main__":
    main(*sys.argv[1:3])
