"""`precis train` under `mpirun -np N` (data parallelism over MPI) against the one-process run:
2 ranks x batch b == 1 rank x batch 2b, resume across world sizes, a killed or stuck rank,
ZeRO-1 == plain data parallelism, sharded evaluation and prediction. Tiny models, few steps,
one thread per rank."""
import json
import os
import re
import shutil
import signal
import subprocess
import time

import pytest
import torch
from safetensors.torch import load_file
from transformers import BartForConditionalGeneration, GenerationConfig

from conftest import precis_binary
from process_support import ENV, MPIRUN, launch, wait_stopped
from train_support import MAX_SOURCE_LENGTH, make_job, make_predict_job, max_diff, train, weights

pytestmark = pytest.mark.skipif(MPIRUN is None, reason="mpirun (openmpi-bin) is not installed")


def drop_all_but(out, keep):
    """An interrupted run: only `keep` left in the output directory."""
    for entry in os.listdir(out):
        if entry != keep:
            path = out / entry
            shutil.rmtree(path) if path.is_dir() else path.unlink()


def test_collectives_on_two_and_three_ranks():
    for ranks in (2, 3):
        cmd = [MPIRUN, "--allow-run-as-root", "--oversubscribe", "-np", str(ranks), precis_binary("mpi_collectives_probe")]
        r = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=120)
        assert r.returncode == 0 and f"collectives ok on {ranks} ranks" in r.stdout, r.stderr


@pytest.mark.parametrize("dropout", [0.0, 0.1])
def test_two_ranks_equal_one_rank_with_twice_the_batch(tmp_path, dropout):
    make_job(tmp_path, dropout=dropout)
    # 6 examples, global batch 4: every epoch ends with a short batch of 2 (one per rank).
    train(tmp_path, tmp_path / "one", 1, per_device_train_batch_size=4)
    two = train(tmp_path, tmp_path / "two", 2, per_device_train_batch_size=2, price_per_hour=3.6)
    diff = max_diff(weights(tmp_path / "one"), weights(tmp_path / "two"))
    print(f"dropout {dropout}: 2 ranks x 2 vs 1 rank x 4 after 5 steps: max abs diff {diff:.2e}")
    assert diff <= 1e-6
    ones = [json.loads(l) for l in (tmp_path / "one" / "train_log.jsonl").read_text().splitlines()]
    twos = [json.loads(l) for l in (tmp_path / "two" / "train_log.jsonl").read_text().splitlines()]
    assert [s["step"] for s in twos] == [1, 2, 3, 4, 5]  # rank 0 alone logs
    for a, b in zip(ones, twos):
        assert abs(a["loss"] - b["loss"]) <= 1e-6 * abs(a["loss"]) and abs(a["grad_norm"] - b["grad_norm"]) <= 1e-5 * a["grad_norm"]
    summary = json.loads((tmp_path / "two" / "job_summary.json").read_text())
    assert summary["world_size"] == 2 and summary["samples"] == sum(4 if s["epoch"] % 1 else 2 for s in twos)
    assert summary["instance_seconds"] == pytest.approx(summary["wall_s"] * summary["hosts"])
    assert summary["cost"] == pytest.approx(summary["instance_seconds"] / 3600 * 3.6)
    assert "job summary: 2 ranks on 1 host" in two.stderr
    parts = summary["step_ms"]  # where a step's time went, the mean over ranks
    assert set(parts) == {"batch", "forward", "backward", "allreduce_wait", "optimizer", "other"}
    assert parts["forward"] > 0 and parts["backward"] > 0 and min(parts.values()) >= 0
    assert sum(parts.values()) == pytest.approx(summary["step_s"] * 1000, rel=1e-6)
    assert parts["allreduce_wait"] == pytest.approx(summary["allreduce_exposed_s_per_step"] * 1000)
    assert "per step: batch" in two.stderr


def test_two_ranks_with_accumulation_equal_one_rank(tmp_path):
    # Three micro-batches per step, one example per rank (two per global micro-batch), the
    # summaries of different lengths. A micro-batch's loss is the mean over the label tokens of
    # both ranks' examples, as one rank computes it for the two (HF's DDP would average the
    # ranks' means instead), and the step's the mean of the three, as in test_train's
    # gradient_accumulation case against HF; with dropout, as one rank draws it.
    make_job(tmp_path, dropout=0.1)
    train(tmp_path, tmp_path / "one", 1, per_device_train_batch_size=2, gradient_accumulation_steps=3)
    train(tmp_path, tmp_path / "two", 2, per_device_train_batch_size=1, gradient_accumulation_steps=3)
    diff = max_diff(weights(tmp_path / "one"), weights(tmp_path / "two"))
    ones = [json.loads(l) for l in (tmp_path / "one" / "train_log.jsonl").read_text().splitlines()]
    twos = [json.loads(l) for l in (tmp_path / "two" / "train_log.jsonl").read_text().splitlines()]
    loss_diff = max(abs(a["loss"] - b["loss"]) / a["loss"] for a, b in zip(ones, twos))
    norm_diff = max(abs(a["grad_norm"] - b["grad_norm"]) / a["grad_norm"] for a, b in zip(ones, twos))
    print(f"accumulation 3, 2 ranks x 1 vs 1 rank x 2 after 5 steps: max abs diff {diff:.2e}, "
          f"relative loss diff {loss_diff:.1e}, grad norm {norm_diff:.1e}")
    assert [s["step"] for s in twos] == [1, 2, 3, 4, 5]
    # The same kernels on the same rows; only the order of the gradient sums differs (the
    # all-reduce adds two halves): measured 1.9e-8, 6e-11 and 1.7e-8, bounds 10x above.
    assert diff <= 2e-7 and loss_diff <= 1e-9 and norm_diff <= 2e-7


def test_small_buckets_overlapped_with_the_backward_equal_one_rank(tmp_path):
    # About 3 MiB of gradients in 1 MiB buckets, each all-reduced at the backward stage that
    # completes it: a bucket started before its last gradient arrived would make the weights differ.
    make_job(tmp_path, dropout=0.1, d_model=96, encoder_layers=3, encoder_ffn_dim=384, decoder_ffn_dim=384,
             encoder_attention_heads=3, decoder_attention_heads=3)
    train(tmp_path, tmp_path / "one", 1, per_device_train_batch_size=4)
    two = train(tmp_path, tmp_path / "two", 2, per_device_train_batch_size=2, ddp_bucket_cap_mb=1)
    summary = json.loads((tmp_path / "two" / "job_summary.json").read_text())
    print(next(l for l in two.stderr.splitlines() if "all-reduce in" in l))
    assert summary["allreduce_buckets"] >= 3
    diff = max_diff(weights(tmp_path / "one"), weights(tmp_path / "two"))
    print(f"1 MiB buckets, 2 ranks x 2 vs 1 rank x 4 after 5 steps: max abs diff {diff:.2e}")
    assert diff <= 1e-6


def test_ranks_on_one_host_share_its_cores_unless_told(tmp_path):
    make_job(tmp_path)
    job = dict(model_name_or_path=str(tmp_path / "base"), train_file=str(tmp_path / "train.jsonl"),
               output_dir=str(tmp_path / "out"), overwrite_output_dir=True, do_train=True, max_steps=1,
               save_strategy="no", per_device_train_batch_size=2, max_source_length=64, max_target_length=32)
    (tmp_path / "job.json").write_text(json.dumps(job))
    cmd = [MPIRUN, "--allow-run-as-root", "--oversubscribe", "-np", "2", precis_binary(), "train",
           "--config", str(tmp_path / "job.json")]
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    result = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stderr
    shared = [l for l in result.stderr.splitlines() if "ranks share this host" in l]
    print(shared)
    cores = os.cpu_count()
    threads = int(re.fullmatch(r"precis: 2 ranks share this host: (\d+) OpenMP threads? each \(OMP_NUM_THREADS overrides\)",
                               shared[0]).group(1))
    assert len(shared) == 1 and 1 <= threads <= max(1, cores // 2)
    # With OMP_NUM_THREADS set, the user's choice stands and nothing is said.
    told = subprocess.run(launch(2, "train", "--config", tmp_path / "job.json"), capture_output=True, text=True,
                          env=ENV, timeout=600)
    assert told.returncode == 0, told.stderr
    assert "ranks share this host" not in told.stderr


@pytest.mark.parametrize("first,second", [(2, 1), (1, 2), (2, 2)])
def test_resume_on_another_world_size(tmp_path, first, second):
    make_job(tmp_path, dropout=0.1)
    common = dict(save_strategy="steps", save_steps=3)
    batch = {1: 4, 2: 2}  # the same global batch of 4
    train(tmp_path, tmp_path / "straight", first, per_device_train_batch_size=batch[first], **common)
    train(tmp_path, tmp_path / "resumed", first, per_device_train_batch_size=batch[first], **common)
    drop_all_but(tmp_path / "resumed", "checkpoint-3")
    r = train(tmp_path, tmp_path / "resumed", second, per_device_train_batch_size=batch[second], **common)
    assert "resuming from" in r.stderr
    steps = [json.loads(l)["step"] for l in (tmp_path / "resumed" / "train_log.jsonl").read_text().splitlines()]
    assert steps == [4, 5]
    straight, resumed = weights(tmp_path / "straight"), weights(tmp_path / "resumed")
    diff = max_diff(straight, resumed)
    print(f"saved on {first} ranks, resumed on {second}: max abs diff {diff:.2e}")
    if first == second:
        assert all(torch.equal(straight[k], resumed[k]) for k in straight)
    else:
        assert diff <= 1e-6


def test_killed_rank_ends_the_job_and_the_rerun_finishes_the_same(tmp_path):
    make_job(tmp_path, dropout=0.1)
    job = dict(max_steps=12, save_strategy="steps", save_steps=2, per_device_train_batch_size=2, ddp_timeout=20)
    train(tmp_path, tmp_path / "straight", 2, **job)
    out = tmp_path / "killed"
    config = tmp_path / "job-killed.json"
    config.write_text(json.dumps(dict(json.loads((tmp_path / "job-straight.json").read_text()), output_dir=str(out))))
    # Both ranks stop themselves in the middle of step 5 (the test hook: after the backward,
    # before the gradient all-reduce and the update); rank 1 is killed there and rank 0 goes on.
    proc = subprocess.Popen(launch(2, "train", "--config", config, export=["PRECIS_TEST_STOP_AT"]),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(ENV, PRECIS_TEST_STOP_AT="micro:4:0"))
    pids = wait_stopped(proc, "the middle of step 5", ranks=[0, 1])
    assert (out / "checkpoint-4" / "trainer_state.json").exists() and not (out / "checkpoint-6").exists()
    os.kill(pids[1], signal.SIGKILL)
    os.kill(pids[0], signal.SIGCONT)
    killed_at = time.monotonic()
    _, stderr = proc.communicate(timeout=60)
    print(f"job ended {time.monotonic() - killed_at:.1f} s after kill -9 of rank 1, exit {proc.returncode}")
    assert proc.returncode != 0
    assert time.monotonic() - killed_at < 60
    assert "rank 1" in stderr, stderr  # mpirun: "process rank 1 with PID ... exited on signal 9"
    assert not (out / "model.safetensors").exists()  # it did not finish
    last = max((p for p in out.iterdir() if p.name.startswith("checkpoint-")), key=lambda p: int(p.name.split("-")[1]))
    state = json.loads((last / "trainer_state.json").read_text())
    assert state["global_step"] == int(last.name.split("-")[1])
    assert load_file(str(last / "model.safetensors")) and load_file(str(last / "optimizer.safetensors"))
    # The last checkpoint is whole: the rerun (the same command) resumes from it.
    rerun = train(tmp_path, out, 2, **job)
    assert "resuming from" in rerun.stderr
    straight, resumed = weights(tmp_path / "straight"), weights(out)
    assert all(torch.equal(straight[k], resumed[k]) for k in straight)


def test_stuck_rank_ends_the_job_within_the_timeout():
    cmd = [MPIRUN, "--allow-run-as-root", "--oversubscribe", "-np", "3", precis_binary("mpi_collectives_probe"),
           "hang-rank", "2", "3"]
    start = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True, env=ENV, timeout=60)
    assert r.returncode != 0 and time.monotonic() - start < 60
    assert "did not complete within --ddp_timeout 3 s" in r.stderr, r.stderr


def test_zero1_equals_plain_data_parallelism(tmp_path):
    make_job(tmp_path, dropout=0.1)
    common = dict(per_device_train_batch_size=2, save_strategy="steps", save_steps=5)
    train(tmp_path, tmp_path / "plain", 2, **common)
    train(tmp_path, tmp_path / "zero", 2, zero_stage=1, **common)
    diff = max_diff(weights(tmp_path / "plain"), weights(tmp_path / "zero"))
    print(f"ZeRO-1 vs plain DP on 2 ranks: max abs diff {diff:.2e}")
    assert diff <= 1e-6
    # The saved optimizer state is the unsharded one, whatever the sharding.
    plain_opt = load_file(str(tmp_path / "plain" / "checkpoint-5" / "optimizer.safetensors"))
    zero_opt = load_file(str(tmp_path / "zero" / "checkpoint-5" / "optimizer.safetensors"))
    assert max_diff(plain_opt, zero_opt) <= 1e-6
    plain_bytes = json.loads((tmp_path / "plain" / "job_summary.json").read_text())["optimizer_state_bytes_per_rank"]
    zero_bytes = json.loads((tmp_path / "zero" / "job_summary.json").read_text())["optimizer_state_bytes_per_rank"]
    state_bytes = sum(t.numel() * 4 for t in plain_opt.values())  # both moments of every parameter
    print(f"optimizer state per rank: plain {plain_bytes} bytes, ZeRO-1 {zero_bytes} bytes")
    assert plain_bytes >= state_bytes
    # One half each, up to the flat buffer's alignment gaps: each tensor starts on a 256-byte
    # boundary (core/arena.h), so each moment of each tensor may be followed by up to 256 bytes.
    assert state_bytes / 2 <= zero_bytes <= (state_bytes + 256 * len(plain_opt)) / 2


def test_sharded_evaluation_and_prediction_equal_one_rank(tmp_path):
    # A model whose predictions differ between inputs (test_train_predict's), 6 examples in
    # batches of 2: one batch per rank, gathered back in the examples' order.
    make_predict_job(tmp_path)
    data = str(tmp_path / "data.jsonl")
    job = dict(do_train=False, do_eval=True, do_predict=True, predict_with_generate=True, validation_file=data,
               test_file=data, per_device_eval_batch_size=2, generation_max_length=12)
    train(tmp_path, tmp_path / "one", 1, **job)
    train(tmp_path, tmp_path / "three", 3, **job)
    predictions = (tmp_path / "one" / "generated_predictions.txt").read_text().split("\n")
    batches = [tuple(predictions[i:i + 2]) for i in range(0, 6, 2)]
    print(f"predictions by batch: {batches}")
    # Any other order of the three ranks' batches gives another file.
    assert len(predictions) == 6 and len(set(batches)) == 3
    for name in ("eval_results.json", "predict_results.json"):
        one = json.loads((tmp_path / "one" / name).read_text())
        three = json.loads((tmp_path / "three" / name).read_text())
        prefix = name.split("_")[0]
        assert all(one[f"{prefix}_{key}"] > 0 for key in ("rouge1", "rouge2", "rougeL", "rougeLsum")), one
        for key, value in one.items():
            if key.endswith(("_runtime", "_per_second")):
                continue
            assert three[key] == pytest.approx(value, rel=1e-6, abs=1e-9), (name, key)
    assert (tmp_path / "three" / "generated_predictions.txt").read_text().split("\n") == predictions


def test_sampled_predictions_draw_from_one_generator_per_rank(tmp_path):
    # Sampling on two ranks, one example a batch: rank 0 generates batches 0, 2, 4 and rank 1
    # batches 1, 3, 5. Each process of a distributed HF predict draws from its own torch
    # generator batch after batch; precis seeds it with the generation config's seed (0 here).
    # The reference: transformers' generate(do_sample=True) over each rank's batches in order
    # after torch.manual_seed(0). A generator started afresh for every batch gives batches 2-5
    # the draws of batches 0 and 1.
    tokenizer, records = make_predict_job(tmp_path)
    model = BartForConditionalGeneration.from_pretrained(tmp_path / "base").eval()
    sampling = dict(do_sample=True, num_beams=1, top_k=0, temperature=1.5)
    tokens = {k: getattr(model.generation_config, k) for k in
              ["bos_token_id", "eos_token_id", "pad_token_id", "decoder_start_token_id", "forced_eos_token_id"]}
    GenerationConfig(**tokens, **sampling).save_pretrained(tmp_path / "gen")
    world, want = 2, [None] * len(records)
    for rank in range(world):
        torch.manual_seed(0)
        for k in range(rank, len(records), world):
            enc = tokenizer([records[k]["dialogue"]], max_length=MAX_SOURCE_LENGTH, truncation=True,
                            return_tensors="pt")
            with torch.no_grad():
                ids = model.generate(**enc, **sampling, max_length=12)
            want[k] = tokenizer.decode(ids[0], skip_special_tokens=True).strip()
    print(f"transformers, rank by rank: {want}")
    assert len(set(want)) == len(want)  # every draw differs, so a repeated one shows
    train(tmp_path, tmp_path / "two", world, do_train=False, do_predict=True, predict_with_generate=True,
          test_file=str(tmp_path / "data.jsonl"), per_device_eval_batch_size=1, generation_max_length=12,
          generation_config=str(tmp_path / "gen"))
    assert (tmp_path / "two" / "generated_predictions.txt").read_text().split("\n") == want


def test_an_error_on_any_rank_is_reported_with_its_rank(tmp_path):
    make_job(tmp_path)
    r = train(tmp_path, tmp_path / "out", 2, check=False, per_device_train_batch_size=2, zero_stage=3)
    assert r.returncode != 0
    assert "precis: rank 0: error:" in r.stderr and "zero_stage" in r.stderr, r.stderr
    # After MPI is up: the error ends every rank instead of leaving the others waiting.
    r = train(tmp_path, tmp_path / "out", 2, check=False, per_device_train_batch_size=2,
              train_file=str(tmp_path / "missing.jsonl"))
    assert r.returncode != 0
    assert "precis: rank 1: error:" in r.stderr and "missing.jsonl" in r.stderr, r.stderr
