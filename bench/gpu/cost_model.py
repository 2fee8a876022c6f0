"""The GPU cost model: prices the counting backend's launch records (bench/gpu/counting/) on an
H100 SXM and an H200, from their published peaks and one stated efficiency per kernel class, and
prints, per case, the milliseconds of each op group and the model FLOPs utilisation.

    python3 bench/gpu/cost_model.py launches.jsonl [--calibrate measured.jsonl]

Every assumption is printed with the tables, with its source. None is kinder than a published
measurement of a comparable kernel; where no measurement was at hand, the assumption says so and
the first GPU run calibrates it (scripts/gpu-check.sh prints modelled against measured).

How a record is priced:
- GEMM (cuBLASLt): the product on tensor cores (bf16/fp16) or CUDA cores (fp32) at the rate
  cuBLAS reached on 8192^3 on these machines, scaled by wave quantisation over the GPU's SMs
  (128x256 output tiles) and by the k loop's fill and drain; or moving its operands at HBM
  bandwidth, whichever takes longer.
- A kernel: its declared bytes at HBM bandwidth and its declared FLOPs at its class's rate,
  whichever takes longer, each scaled down when the grid has too few warps to keep the GPU's
  memory system or cores busy (Little's law).
- Every launch occupies the stream for at least the host's time to issue it; a copy costs its
  call and its bytes; a host synchronisation idles the GPU while the host reacts.
"""
import argparse
import collections
import json
import math
import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from model_flops import bart_train_flops  # noqa: E402

# Datasheet peaks (NVIDIA H100 and H200 datasheets: dense bf16 tensor 989.4 TFLOP/s, fp32 CUDA
# cores 66.9, HBM3 3.35 TB/s and HBM3e 4.8 TB/s; 132 SMs, 64 resident warps each) and what was
# measured on the machines precis is lent (device/KINDS.md, BENCHMARKS.md).
GPUS = {
    "H100 SXM": dict(bf16=989.4e12, fp32=66.9e12, hbm=3.35e12, sms=132,
                     gemm_measured=798e12, gemm_source="8192^3 bf16 through torch, 798 TFLOP/s (KINDS.md, 2026-11-13)",
                     copy_measured=3.0e12, copy_source="device-to-device copy, 3.0 TB/s read+written (KINDS.md)"),
    "H200": dict(bf16=989.4e12, fp32=66.9e12, hbm=4.8e12, sms=132,
                 gemm_measured=795.0e12, gemm_source="8192^3 bf16 through torch, 790.6-795.0 TFLOP/s (BENCHMARKS.md, 3 runs)",
                 copy_measured=4.3e12, copy_source="device-to-device copy, 4.3 TB/s read+written (KINDS.md, 2026-10-28)"),
}

# Efficiencies and overheads, each with its source.
ASSUMPTIONS = [
    ("gemm_tiles", ((128, 256, 1.0), (128, 128, 0.9), (64, 128, 0.75), (64, 64, 0.6)),
     "cuBLAS's output tiles (rows, columns, efficiency relative to the largest): its heuristic takes the "
     "fastest for the shape; waves = ceil(tiles x split / 132)"),
    ("gemm_split_k", (1, 2, 4, 8), "split-K factors cuBLAS may use for small outputs with long k (each split's "
                                   "partial results written and summed once more in fp32)"),
    ("gemm_k_overhead", 256, "k-loop fill and drain, in k elements (four 64-wide pipeline stages): efficiency "
                            "k / (k + 256); uncalibrated below k = 8192: the first GPU run calibrates it"),
    ("gemm_fp32_fraction", 0.80, "fp32 products on CUDA cores at 80% of the fp32 peak (no H100 SGEMM measurement at hand: calibrate)"),
    ("attention_tensor_fwd", 282 / 989.4, "FlashAttention-2 forward, head dim 64, sequence 512, H100 SXM: 282 TFLOP/s "
                                          "(FlashAttention-3 paper, Shah et al. 2024, fig. 5; causal 180)"),
    ("attention_tensor_bwd", 198 / 989.4, "FlashAttention-2 backward, head dim 64, sequence 512, H100 SXM: 198 TFLOP/s (same paper, fig. 6)"),
    ("scalar_fp32_fraction", 2980.3 / 38700, "today's scalar attention (16x16 shared tiles, 2 scores and 8 head columns "
                                             "a thread, bank conflicts): as Boehm's SGEMM worklog's kernel 3 (shared-memory "
                                             "tiles, an output a thread), 2.98 of the A6000's 38.7 TFLOP/s = 7.7% (his "
                                             "kernel 4, 8 outputs a thread: 21.9%)"),
    ("elementwise_fp32_fraction", 0.5, "simple per-element arithmetic: half the fp32 peak (these kernels are memory-bound)"),
    ("warps_for_full_memory", 32, "resident warps per SM a streaming kernel needs for full HBM bandwidth (Little's law: "
                                  "half of Hopper's 64); fewer warps get proportionally less"),
    ("warps_for_full_compute", 16, "warps per SM a CUDA-core kernel needs to hide its latencies"),
    ("launch_host_s", 3e-6, "host time to issue one launch or copy on a stream (the order NVIDIA's CUDA Graphs blog "
                            "measured per kernel); kernels shorter than this leave the GPU idle"),
    ("launch_gpu_gap_s", 1e-6, "GPU time between two back-to-back kernels (drain and fill)"),
    ("graph_launch_s", 1e-6, "per kernel inside a CUDA graph"),
    ("sync_s", 20e-6, "a host synchronisation: the queue drains, the host reads and launches again"),
    ("pcie_bytes_per_s", 25e9, "host-device copies from pageable memory (PCIe Gen5 x16 halved)"),
]
A = {name: value for name, value, _ in ASSUMPTIONS}

GROUPS = ["attention", "GEMM", "reductions", "elementwise", "optimizer", "copies", "launches and syncs"]


def group_of(record):
    if record["kind"] == "gemm":
        return "GEMM"
    if record["kind"] in ("copy", "memset"):
        return "copies"
    if record["kind"] == "sync":
        return "launches and syncs"
    name = record["name"]
    if "attention" in name:
        return "attention"
    if "adamw" in name:
        return "optimizer"
    reductions = ("layernorm", "rms_norm", "cross_entropy", "sum_of_squares", "bias_grad", "embedding_backward",
                  "position_embeddings_backward", "relative_position_bias_backward", "first_invalid_id",
                  "top_candidates", "next_token_scores", "choose_", "loss_share")
    return "reductions" if any(r in name for r in reductions) else "elementwise"


def gemm_seconds(r, gpu):
    m, n, k = r["m"], r["n"], r["k"]
    tensor = r["ab"] in ("BF16", "F16")
    if tensor:
        # The 8192^3 measurement anchors the rate: its own wave and k efficiencies divided out.
        rows, cols, _ = A["gemm_tiles"][0]
        t8 = math.ceil(8192 / rows) * math.ceil(8192 / cols)
        anchor = (t8 / (math.ceil(t8 / gpu["sms"]) * gpu["sms"])) * (8192 / (8192 + A["gemm_k_overhead"]))
        rate = gpu["gemm_measured"] / anchor
    else:
        rate = gpu["fp32"] * A["gemm_fp32_fraction"]
    element = 2 if tensor else 4
    c_element = 4 if r["c"] == "F32" else 2
    moved = (m * k + k * n) * element + m * n * c_element * (2 if r["accumulate"] else 1)
    moved += n * c_element if r.get("bias_gradient") else 0  # BGRADB's column sums, written once
    best = math.inf
    for rows, cols, tile_eff in A["gemm_tiles"]:
        tiles = min(math.ceil(m / rows) * math.ceil(n / cols), math.ceil(m / cols) * math.ceil(n / rows))
        for split in A["gemm_split_k"]:
            if split > 1 and k // split < 256:
                continue
            waves = math.ceil(tiles * split / gpu["sms"])
            wave_eff = tiles * split / (waves * gpu["sms"])
            part = k / split
            k_eff = part / (part + A["gemm_k_overhead"])
            compute = 2.0 * m * n * k / (rate * tile_eff * wave_eff * k_eff)
            partials = (split - 1) * m * n * 4 * 2  # written, then read by the reduction
            best = min(best, max(compute, (moved + partials) / gpu["copy_measured"]))
    return best, 2.0 * m * n * k
def kernel_seconds(r, gpu):
    grid, block = r["grid"], r["block"]
    warps = grid[0] * grid[1] * grid[2] * math.ceil(block[0] * block[1] * block[2] / 32)
    memory_share = min(1.0, warps / (gpu["sms"] * A["warps_for_full_memory"]))
    compute_share = min(1.0, warps / (gpu["sms"] * A["warps_for_full_compute"]))
    memory = (r["read"] + r["written"]) / (gpu["copy_measured"] * memory_share)
    name = r["name"]
    if r["tensor_flops"]:
        eff = A["attention_tensor_bwd"] if "backward" in name else A["attention_tensor_fwd"]
        tensor = r["tensor_flops"] / (gpu["bf16"] * eff * compute_share)
    else:
        tensor = 0.0
    fraction = A["scalar_fp32_fraction"] if "attention" in name else A["elementwise_fp32_fraction"]
    scalar = r["flops"] / (gpu["fp32"] * fraction * compute_share)
    return max(memory, tensor + scalar)


def price(records, gpu, graphs=False):
    """{group: seconds}, total seconds, FLOPs of the GEMMs, and the number of launches."""
    by_group = collections.defaultdict(float)
    launches = 0
    issue = A["graph_launch_s"] if graphs else A["launch_host_s"]
    for r in records:
        count = r["count"]
        if r["kind"] == "gemm":
            seconds, _ = gemm_seconds(r, gpu)
        elif r["kind"] == "kernel":
            seconds = kernel_seconds(r, gpu)
        elif r["kind"] == "copy":
            bandwidth = gpu["copy_measured"] if r["direction"] == "d2d" else A["pcie_bytes_per_s"]
            seconds = r["bytes"] / bandwidth
        elif r["kind"] == "memset":
            seconds = r["bytes"] / gpu["copy_measured"]
        elif r["kind"] == "sync":
            by_group["launches and syncs"] += count * A["sync_s"]
            continue
        else:
            continue
        launches += count
        by_group[group_of(r)] += count * seconds
        # The stream is busy for at least the host's issue time, plus the gap between kernels.
        by_group["launches and syncs"] += count * (A["launch_gpu_gap_s"] + max(0.0, issue - seconds))
    return by_group, sum(by_group.values()), launches


class Config:  # bench/gpu/bart_large.h: bart-large with bart-large-cnn's vocabulary
    d_model, encoder_ffn_dim, encoder_layers, decoder_layers, vocab_size = 1024, 4096, 12, 12, 50264


def case_flops(case):
    """Model FLOPs (model_flops.py's count) of a training case 'train DTYPE Bx(S+T)'."""
    words = case.split()
    if words[0] != "train":
        return None
    batch, rest = words[2].split("x(")
    source, target = rest.rstrip(")").split("+")
    return bart_train_flops(Config, int(batch), int(source), int(target))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("records")
    p.add_argument("--graphs", action="store_true", help="price launches as inside CUDA graphs")
    p.add_argument("--attention-share", type=float, default=1.0,
                   help="price the tensor-core attention at this share of FlashAttention-2's published rates "
                        "(precis's kernels have its algorithm, not yet its ldmatrix loads, cp.async pipelining "
                        "or 128-row tiles: the first GPU run says which share they reach)")
    args = p.parse_args()
    for name in ("attention_tensor_fwd", "attention_tensor_bwd"):
        A[name] *= args.attention_share
    cases = collections.OrderedDict()
    peaks = {}
    with open(args.records) as f:
        for line in f:
            r = json.loads(line)
            if r["kind"] == "memory":
                peaks[r["case"]] = r["peak_bytes"]
            else:
                cases.setdefault(r["case"], []).append(r)
    print("Assumptions (bench/gpu/cost_model.py):")
    for name, gpu in GPUS.items():
        print(f"  {name}: bf16 {gpu['bf16'] / 1e12:.1f} TFLOP/s dense, fp32 {gpu['fp32'] / 1e12:.1f}, HBM "
              f"{gpu['hbm'] / 1e12:.2f} TB/s; measured: {gpu['gemm_source']}; {gpu['copy_source']}")
    if args.attention_share != 1.0:
        print(f"  --attention-share {args.attention_share:g}: the tensor-core attention at that share of the two "
              f"FlashAttention-2 rates below")
    for name, value, source in ASSUMPTIONS:
        shown = f"{value:.3g}" if isinstance(value, float) else str(value)
        print(f"  {name} = {shown}: {source}")
    final = []
    for case, records in cases.items():
        flops = case_flops(case)
        print(f"\n### {case}  (peak device memory {peaks.get(case, 0) / 2**30:.2f} GiB)")
        print("| GPU | " + " | ".join(GROUPS) + " | total ms | launches | MFU |")
        print("|---|" + "---|" * (len(GROUPS) + 3))
        for name, gpu in GPUS.items():
            groups, total, launches = price(records, gpu, args.graphs)
            mfu = flops / total / gpu["gemm_measured"] if flops else None
            cells = " | ".join(f"{1e3 * groups.get(g, 0.0):.2f}" for g in GROUPS)
            print(f"| {name} | {cells} | **{1e3 * total:.2f}** | {launches} | "
                  f"{'-' if mfu is None else f'{100 * mfu:.1f}%'} |")
            final.append((case, name, total, mfu))
    print()
    for case, name, total, mfu in final:
        mfu_text = f"{100 * mfu:.1f}% MFU" if mfu is not None else "- MFU"
        print(f"modeled {case} on {name} {1e3 * total:.2f} ms {mfu_text}")


if __name__ == "__main__":
    main()
