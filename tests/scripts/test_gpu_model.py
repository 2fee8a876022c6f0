"""scripts/gpu-model.sh, the launch-level GPU cost model: the counted benches record a whole
bart-large training step and beam search without running them (bench/gpu/counting/), every
launch with a declared cost (the counting backend refuses one without), and
bench/gpu/cost_model.py prices them. The records must hold the step's whole work: their GEMMs
are exactly the model's matrix products (six times each linear layer's and the LM head's
multiply-accumulates: the forward, and the backward's two products). Beam search is recorded in
fp32 and in mixed precision (--bf16)."""
import collections
import json
import os
import pathlib
import re
import subprocess

SOURCE_DIR = pathlib.Path(os.environ.get("PRECIS_SOURCE_DIR", pathlib.Path(__file__).parents[2]))
BUILD_DIR = pathlib.Path(os.environ.get("PRECIS_BUILD_DIR", SOURCE_DIR / "build"))


def test_the_model_prices_every_case_and_records_the_whole_step():
    result = subprocess.run(["bash", str(SOURCE_DIR / "scripts/gpu-model.sh"), str(BUILD_DIR)], cwd=SOURCE_DIR,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    print(result.stdout)
    lines = re.findall(r"^modeled (.+) on (H100 SXM|H200) ([0-9.]+) ms (?:([0-9.]+)%|-) MFU$", result.stdout, re.M)
    cases = collections.Counter(case for case, _, _, _ in lines)
    assert len(cases) == 6 and all(n == 2 for n in cases.values()), lines
    for case, _, ms, mfu in lines:
        assert float(ms) > 0 and (mfu or case.startswith("generate")), (case, ms, mfu)
    assert "Assumptions" in result.stdout and "FlashAttention-3 paper" in result.stdout
    # The tutorial's job on its hosts and on one H200 (bench/gpu/tutorial_model.py): a step time,
    # the steps HF's DistributedSampler makes (14,732 padded to 16 ranks, 231 batches of 4 an
    # epoch, 3 epochs) and the time to train, with the all-reduce's hidden share on two hosts.
    rows = re.findall(r"^\| (2 x p3dn|2 x p4d|2 x p5|1 H200)[^|]* \| ([0-9.]+) \| ([0-9.]+) \| ([0-9]+%|-) \| "
                      r"\*\*([0-9.]+)\*\* \| ([0-9]+) \| \*\*([0-9]+) s\*\* \| \$([0-9.]+) \|$", result.stdout, re.M)
    assert [r[0] for r in rows] == ["2 x p3dn", "2 x p4d", "2 x p5", "1 H200"], result.stdout
    for name, compute, allreduce, hidden, step, steps, seconds, dollars in rows:
        assert float(step) >= float(compute) > 0 and float(dollars) > 0
        assert int(steps) == (3 * 231 if name.startswith("2 x") else 3 * 3683)
        assert abs(int(steps) * float(step) / 1e3 - int(seconds)) <= 1
        assert (hidden == "-") == (name == "1 H200") and (float(allreduce) > 0) == name.startswith("2 x")
    assert "link_efficiency" in result.stdout and "1441" in result.stdout

    records = [json.loads(line) for line in open(BUILD_DIR / "gpu-model/launches.jsonl")]
    d, ffn, layers, vocab = 1024, 4096, 12, 50264
    for case, (batch, source, target) in {"train bf16 32x(512+128)": (32, 512, 128)}.items():
        step = [r for r in records if r["case"] == case]
        gemm_flops = sum(2 * r["m"] * r["n"] * r["k"] * r["count"] for r in step if r["kind"] == "gemm")
        macs = (batch * source * layers * (4 * d * d + 2 * d * ffn) + batch * target * layers * (6 * d * d + 2 * d * ffn)
                + batch * source * layers * 2 * d * d + batch * target * d * vocab)
        assert gemm_flops == 6 * macs, (gemm_flops, 6 * macs)
        names = {r["name"] for r in step if r["kind"] == "kernel"}
        # bart-large's heads are 64 wide: the bf16 step's attention runs on the tensor cores.
        for kernel in ("attention_forward_mma_kernel<T>", "attention_backward_query_mma_kernel<T>",
                       "attention_backward_key_mma_kernel<T>", "adamw_kernel",
                       "layernorm_parameter_partials_kernel<T>", "cross_entropy_rows_kernel<T>"):
            assert kernel in names, sorted(names)
        assert not names & {"attention_forward_kernel<T>", "attention_backward_query_kernel<T>",
                            "attention_backward_key_kernel<T>"}, sorted(names)
        # Each biased linear layer's bias gradient comes from its weight GEMM's epilogue (BGRADB):
        # per encoder layer q, k, v, out, fc1, fc2; per decoder layer those and cross-attention's 4.
        bgradb = sum(r["count"] for r in step if r["kind"] == "gemm" and r.get("bias_gradient"))
        assert bgradb == layers * 6 + layers * 10 and "bias_grad_partials_kernel<T>" not in names, bgradb
    # The training step waits for the GPU once: its loss and gradient norm read back together
    # (the ids were checked on the host, the clipping scale is formed on the device).
    for case in ("train bf16 4x(265+42)", "train bf16 32x(512+128)"):
        step = [r for r in records if r["case"] == case]
        syncs = sum(r["count"] for r in step if r["kind"] == "sync")
        reads = [r for r in step if r["kind"] == "copy" and r["direction"] == "d2h"]
        assert syncs == 1 and sum(r["count"] for r in reads) == 1 and reads[0]["bytes"] == 16, (case, syncs, reads)
    # Beam search in mixed precision: every product from bf16 operands, attention on the tensor
    # cores (the beams' cross-attention over 512 encoder keys split over 4 blocks a (sequence,
    # head) pair, then combined); in fp32 neither.
    for case, dtype, attention in (("generate bf16 32x512", "BF16",
                                    {"attention_forward_mma_kernel<T>", "attention_split_combine_kernel<T>"}),
                                   ("generate fp32 32x512", "F32", {"attention_forward_kernel<T>"})):
        run = [r for r in records if r["case"] == case]
        assert {(r["ab"], r["c"]) for r in run if r["kind"] == "gemm"} == {(dtype, dtype)}, case
        assert {r["name"] for r in run if r["kind"] == "kernel" and "attention" in r["name"]} == attention, case
    # (12 decoder layers, 141 steps: up to max_length 142)
    assert any(r.get("name") == "attention_forward_mma_kernel<T>" and r["grid"] == [4, 32 * 16, 1]
               and r["count"] == 12 * 141 for r in records if r["case"] == "generate bf16 32x512")
