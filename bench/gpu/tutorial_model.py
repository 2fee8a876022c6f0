"""The SageMaker tutorial's job, modelled: bart-large-cnn fine-tuned on SAMSum's 14,732 training
dialogues for 3 epochs at batch 4 per GPU, on 2 hosts of 8 GPUs (p3dn: V100, p4d: A100, p5: H100)
and on one H200. Each rank's step is the cost model's price of precis's bf16 training step at the
tutorial's shape (bench/gpu/cost_model.py over the counting backend's records; the V100 has no
bf16 and runs it in fp16, which costs the same); the gradient's all-reduce is a ring over the
two hosts, its buckets started as the backward completes them, as precis's GradientAllReduce
does on NCCL's communication stream.

    python3 bench/gpu/tutorial_model.py launches.jsonl     (scripts/gpu-model.sh runs it)

Every assumption is printed with the table. What is modelled is the training loop alone: not the
job's start (the container, loading the model), its evaluation and prediction, or the upload.
"""
import argparse
import collections
import json
import math
import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import cost_model  # noqa: E402

EXAMPLES, EPOCHS, PER_GPU_BATCH = 14732, 3, 4

# The GPUs the tutorial's hosts hold, from NVIDIA's datasheets (V100 SXM2 32 GB: fp16 tensor
# 125 TFLOP/s, fp32 15.7, HBM2 900 GB/s, 80 SMs; A100 SXM4 40 GB: bf16 312, fp32 19.5, HBM2
# 1.555 TB/s, 108 SMs). No GEMM or copy measurement of these was at hand: they get the fractions
# the H100 measured (798 of 989.4 TFLOP/s at 8192^3, 3.0 of 3.35 TB/s copied).
H100 = cost_model.GPUS["H100 SXM"]
GEMM_FRACTION, COPY_FRACTION = H100["gemm_measured"] / H100["bf16"], H100["copy_measured"] / H100["hbm"]


def datasheet_gpu(tensor, fp32, hbm, sms):
    return dict(bf16=tensor, fp32=fp32, hbm=hbm, sms=sms, gemm_measured=tensor * GEMM_FRACTION,
                copy_measured=hbm * COPY_FRACTION)


GPUS = {
    "V100": datasheet_gpu(125e12, 15.7e12, 0.9e12, 80),
    "A100 40GB": datasheet_gpu(312e12, 19.5e12, 1.555e12, 108),
    "H100 SXM": H100,
    "H200": cost_model.GPUS["H200"],
}

# (configuration, GPU, hosts, GPUs a host, the inter-host bandwidth a host has in bits/s, the
# on-demand price of a host in dollars an hour). Line rates from AWS's instance pages (p3dn:
# 100 Gb/s EFA without GPUDirect RDMA; p4d: 4 x 100 Gb/s EFA; p5: 32 x 100 Gb/s EFA). Prices:
# AWS's EC2 on-demand list, us-east-1, before its June 2025 cut (p4d -33%, p5 up to -45%), so
# upper bounds; SageMaker's ml.* prices are higher; one H200 is an eighth of a p5e.48xlarge.
CONFIGS = [
    ("2 x p3dn.24xlarge (16 V100)", "V100", 2, 8, 100e9, 31.212),
    ("2 x p4d.24xlarge (16 A100)", "A100 40GB", 2, 8, 400e9, 32.7726),
    ("2 x p5.48xlarge (16 H100)", "H100 SXM", 2, 8, 3200e9, 98.32),
    ("1 H200 (an eighth of a p5e.48xlarge)", "H200", 1, 1, 0.0, 107.0 / 8),
]

ASSUMPTIONS = [
    ("link_efficiency", 0.8, "the share of a host's line rate NCCL's ring reaches between hosts (uncalibrated: "
                             "nccl-tests' all_reduce_perf on the job's instances calibrates it)"),
    ("step_latency_s", 10e-6, "latency of one of a bucket's 2 (N - 1) ring steps, each as slow as the step "
                              "between the hosts (uncalibrated: a small all-reduce over 2 x 8 GPUs then takes 300 us; "
                              "NCCL's pipelining and its LL protocols take less, so this is not kind)"),
    ("backward_share", 2 / 3, "the backward's share of a step's compute, the optimizer excluded (its products are "
                              "twice the forward's)"),
    ("bucket_bytes", 25 << 20, "GradientAllReduce's buckets (PyTorch DDP's 25 MB; the first 1 MB)"),
    ("tutorial_billable_s", 1441, "the tutorial's reported job on 2 x p3dn.24xlarge: about 1,441 billable seconds "
                                  "an instance, start to end (its notebook's output)"),
]
A = {name: value for name, value, _ in ASSUMPTIONS}


class Bart:  # bart-large with bart-large-cnn's vocabulary (bench/gpu/bart_large.h)
    d, ffn, layers, vocab, positions = 1024, 4096, 12, 50264, 1026


def gradient_groups():
    """(bytes of fp32 gradient, the share of the backward after which it is final), in the
    order the backward completes them: the decoder's layers from the last, the encoder's, and
    last the embeddings (the token table is tied to the LM head and final only when the
    encoder's embedding backward has added its share)."""
    d, f = Bart.d, Bart.ffn
    norm = 2 * d
    encoder_layer = 4 * (d * d + d) + 2 * d * f + f + d + 2 * norm
    decoder_layer = 8 * (d * d + d) + 2 * d * f + f + d + 3 * norm
    embeddings = Bart.vocab * d + 2 * Bart.positions * d + 2 * norm + Bart.vocab  # + final_logits_bias
    groups = []
    layers = 2 * Bart.layers
    for i in range(layers):
        params = decoder_layer if i < Bart.layers else encoder_layer
        groups.append((4 * params, (i + 1) / layers))
    groups.append((4 * embeddings, 1.0))
    return groups


def buckets(groups):
    """25 MB buckets (the first 1 MB) walking the groups; each ready when its last group is."""
    out, size, ready, first = [], 0, 0.0, True
    for nbytes, at in groups:
        left = nbytes
        while left > 0:
            cap = (1 << 20) if first else A["bucket_bytes"]
            take = min(left, cap - size)
            size, left, ready = size + take, left - take, at
            if size == cap:
                out.append((size, ready))
                size, first = 0, False
    if size:
        out.append((size, ready))
    return out


def ring_seconds(nbytes, ranks, host_bits):
    """A ring all-reduce over `ranks` GPUs on two hosts: each byte crosses 2 (N - 1) / N times,
    and between the hosts every ring shares the host's links."""
    bandwidth = host_bits / 8 * A["link_efficiency"]
    return 2 * (ranks - 1) / ranks * nbytes / bandwidth + 2 * (ranks - 1) * A["step_latency_s"]


def overlap(backward_s, ranks, host_bits):
    """The all-reduce's seconds in all, and those left after the backward ends: one channel,
    each bucket started when both it is final and the previous one is done."""
    total, done = 0.0, 0.0
    for nbytes, at in buckets(gradient_groups()):
        t = ring_seconds(nbytes, ranks, host_bits)
        total += t
        done = max(done, at * backward_s) + t
    return total, max(0.0, done - backward_s)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("records")
    args = p.parse_args()
    cases = collections.defaultdict(list)
    with open(args.records) as f:
        for line in f:
            r = json.loads(line)
            if r["kind"] != "memory" and r["case"].startswith("train bf16 4x("):
                cases[r["case"]].append(r)
    if len(cases) != 1:
        sys.exit("tutorial_model: expected one 'train bf16 4x(S+T)' case in the records (scripts/gpu-model.sh)")
    (case, records), = cases.items()
    print(f"\n## The tutorial's job, modelled: {EXAMPLES:,} dialogues x {EPOCHS} epochs, batch {PER_GPU_BATCH} a GPU, "
          f"each step at {case.split()[2]} (bench/gpu/tutorial_model.py)")
    print("Assumptions (beside the cost model's above):")
    for name, gpu in GPUS.items():
        print(f"  {name}: tensor {gpu['bf16'] / 1e12:.1f} TFLOP/s dense, fp32 {gpu['fp32'] / 1e12:.1f}, HBM "
              f"{gpu['hbm'] / 1e12:.3g} TB/s, {gpu['sms']} SMs; GEMM {gpu['gemm_measured'] / 1e12:.0f} TFLOP/s, "
              f"copies {gpu['copy_measured'] / 1e12:.2f} TB/s")
    for config, gpu, hosts, per_host, bits, price in CONFIGS:
        print(f"  {config}: {bits / 1e9:.0f} Gb/s between hosts, ${price:.2f} an hour a host")
    for name, value, source in ASSUMPTIONS:
        shown = f"{value:.3g}" if isinstance(value, float) else str(value)
        print(f"  {name} = {shown}: {source}")
    print("  V100 (sm_70): precis's CUDA build targets sm_80 and sm_90 and its attention uses sm_80's mma.sync; the "
          "p3dn row is what the step would cost at the V100's rates, not a run precis can make today")
    grad_bytes = sum(b for b, _ in gradient_groups())
    print(f"  gradient: {grad_bytes / 1e9:.2f} GB of fp32 a step in {len(buckets(gradient_groups()))} buckets")
    print("\n| configuration | step compute ms | all-reduce ms | hidden behind the backward | step ms | steps | "
          "time to train | dollars |")
    print("|---|---|---|---|---|---|---|---|")
    for config, gpu_name, hosts, per_host, bits, price in CONFIGS:
        gpu = GPUS[gpu_name]
        groups, compute_s, _ = cost_model.price(records, gpu)
        ranks = hosts * per_host
        # DistributedSampler pads the dataset to a multiple of the ranks; each rank's last batch may be short.
        steps = EPOCHS * math.ceil(math.ceil(EXAMPLES / ranks) / PER_GPU_BATCH)
        if ranks > 1:
            backward_s = (compute_s - groups.get("optimizer", 0.0)) * A["backward_share"]
            allreduce_s, exposed_s = overlap(backward_s, ranks, bits)
            hidden = f"{100 * (1 - exposed_s / allreduce_s):.0f}%"
        else:
            allreduce_s = exposed_s = 0.0
            hidden = "-"
        step_s = compute_s + exposed_s
        train_s = steps * step_s
        dollars = hosts * price * train_s / 3600
        print(f"| {config} | {1e3 * compute_s:.2f} | {1e3 * allreduce_s:.2f} | {hidden} | **{1e3 * step_s:.2f}** | "
              f"{steps} | **{train_s:.0f} s** | ${dollars:.2f} |")
    print(f"| the tutorial (transformers on 2 x p3dn.24xlarge, reported) | - | - | - | - | - | "
          f"{A['tutorial_billable_s']} s billable an instance, start to end | "
          f"${2 * 31.212 * A['tutorial_billable_s'] / 3600:.2f} at the same price |")


if __name__ == "__main__":
    main()
