"""`precis generate --device cuda`, in fp32 and in mixed precision (--bf16), through the CUDA
backend without a GPU (precis_emulated: the kernel emulator, device memory guarded), against
transformers on tiny random checkpoints.

fp32 on the device gives HF's ids, as the CPU does (test_generate). --bf16 computes as HF's
model does under torch.autocast(bfloat16) (kv_cached_decoder.h): the linear layers' and
attention's products from bf16 operands, each rounded once, the residual stream, the norms and
the logits in fp32. The reference is HF's model under CPU autocast, teacher-forced on the tokens
precis chose: every step's logits of a greedy decode compared.

The two autocasts round at slightly different points (CPU autocast's softmax returns bf16
probabilities where CUDA's and precis's keep them fp32 until the product with V), and at these
logits (up to ~10) one bf16 rounding is up to 1/32, so they agree to bf16's precision, not
fp32's. The yardstick is HF's own bf16 noise, |HF autocast - HF fp32|. Measured (greedy, 15
steps, six BART models and T5 v1.0 and v1.1): |precis bf16 - HF autocast| is 0.68-0.93x it in
the mean, so precis's bf16 is nearer HF's autocast than HF's autocast is to fp32, and 0.63-1.06x
in the largest difference; precis's fp32 on the device is 6e-7 from HF's fp32. (With the
encoder's stream in bf16, as the bf16 training forward keeps it, T5 v1.1 was 1.71x and 3.35x.)
The bounds fail a run that ignores --bf16 (fp32's logits), one that adds BART's
final_logits_bias before rounding the LM head's product (autocast adds the fp32 buffer to the
rounded product), and one whose decoder rounds its residual stream to bf16."""
import json

import pytest
import torch
from safetensors.torch import load_file

from bart_models import TEXTS
from conftest import require_cpu_bf16_sums_in_fp32, run_precis
from test_generate import MAX_SOURCE, MODELS, cnn_model, input_file  # noqa: F401 (fixtures)
from t5_models import make_t5, spread_weights, train_tiny_spiece

EMULATED = "precis_emulated"
STEPS = 16  # max_length: the start token and 15 decoded

# Bounds, as multiples of HF's own |autocast - fp32| over every logit of every step, from the
# measurements above with margin:
MEAN_RATIO = 1.0  # mean |precis bf16 - HF autocast|
MAX_RATIO = 1.5  # the largest |precis bf16 - HF autocast|
IN_EFFECT = 0.25  # precis bf16's mean distance from HF fp32 is at least this share of it


def precis_greedy(model_dir, tmp_path, texts_args, *extra):
    """(ids (rows, steps + 1), logits (rows, steps, V)) of a greedy decode on the emulated device."""
    logits_file = tmp_path / f"logits{'-'.join(extra)}.safetensors"
    result = run_precis("generate", "--model", model_dir, *texts_args, "--device", "cuda", "--num_beams", 1,
                        "--min_length", 0, "--max_length", STEPS, "--per_device_eval_batch_size", 8,
                        "--output_logits", logits_file, *extra, binary=EMULATED)
    ids = torch.tensor([json.loads(line)["ids"] for line in result.stdout.splitlines() if line.strip()])
    logits = load_file(logits_file)["logits.0"].permute(1, 0, 2)  # (steps, rows, V) -> (rows, steps, V)
    return ids, logits


def teacher_forced(model, inputs, ids, steps):
    """HF's logits for the decoder inputs ids[:, :steps], in fp32 and under CPU autocast."""
    with torch.no_grad():
        fp32 = model(**inputs, decoder_input_ids=ids[:, :steps]).logits.float()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            bf16 = model(**inputs, decoder_input_ids=ids[:, :steps]).logits.float()
    return fp32, bf16


def mean_max(a, b):
    d = (a - b).abs()
    return float(d.mean()), float(d.max())


def check_follows_autocast(ours, hf32, hf16, what):
    ours_hf16, ours_hf32, hf16_hf32 = mean_max(ours, hf16), mean_max(ours, hf32), mean_max(hf16, hf32)
    print(f"{what}: |precis bf16 - HF autocast| mean {ours_hf16[0]:.4f} max {ours_hf16[1]:.4f}; "
          f"|precis bf16 - HF fp32| mean {ours_hf32[0]:.4f}; |HF autocast - HF fp32| mean {hf16_hf32[0]:.4f} "
          f"max {hf16_hf32[1]:.4f}")
    assert ours_hf16[0] <= MEAN_RATIO * hf16_hf32[0] and ours_hf16[1] <= MAX_RATIO * hf16_hf32[1], what
    assert ours_hf32[0] >= IN_EFFECT * hf16_hf32[0], f"{what}: precis's --bf16 computed as fp32 does"


@pytest.mark.parametrize("model", MODELS, ids=lambda m: f"{m[0]}-{m[1]}")
def test_bart_on_cuda_fp32_ids_and_bf16_logits_follow_transformers(cnn_model, input_file, tmp_path, model):
    model_dir, hf, tok = cnn_model(*model)
    texts_args = ["--input", input_file, "--text_column", "text", "--max_source_length", MAX_SOURCE]
    inputs = tok(TEXTS, padding=True, truncation=True, max_length=MAX_SOURCE, return_tensors="pt")

    ids32, logits32 = precis_greedy(model_dir, tmp_path, texts_args)
    with torch.no_grad():
        ref = hf.generate(**inputs, num_beams=1, min_length=0, max_length=STEPS)
    assert ids32.tolist() == ref.tolist()
    hf32, _ = teacher_forced(hf, inputs, ids32, logits32.shape[1])
    assert float((logits32 - hf32).abs().max()) <= 1e-4  # fp32 on the device: fp32's agreement

    require_cpu_bf16_sums_in_fp32()  # the bf16 half's reference is CPU autocast's
    ids, ours = precis_greedy(model_dir, tmp_path, texts_args, "--bf16")
    hf32, hf16 = teacher_forced(hf, inputs, ids, ours.shape[1])
    check_follows_autocast(ours, hf32, hf16, str(model))
    # The LM head's product is rounded to bf16 before BART adds its fp32 final_logits_bias (these
    # models' is random, of a few tenths, and 4 or 6 on EOS), so the logits less the bias are bf16
    # values, up to the fp32 rounding of that sum and difference (a bf16 rounding is 2^15 times
    # larger).
    bias = hf.final_logits_bias.float()
    product = ours - bias
    fp32_slack = 4 * 2.0**-23 * (ours.abs() + bias.abs())
    assert bool(((product - product.bfloat16().float()).abs() <= fp32_slack).all()), \
        "the bias was added before the LM head's product was rounded"


@pytest.mark.parametrize("name", ["v1_0-relu-tied", "v1_1-gated-gelu-untied"])
def test_t5_bf16_logits_follow_autocast(tmp_path, name):
    require_cpu_bf16_sums_in_fp32()
    from test_t5_cli import TEXTS as T5_TEXTS
    from conftest import UNICODE_CORPUS
    corpus = [t for t in UNICODE_CORPUS if t.strip()] * 3 + T5_TEXTS * 10
    tokenizer = train_tiny_spiece(tmp_path / "spm", corpus, vocab_size=150)
    model = spread_weights(make_t5(name, len(tokenizer)), seed=7).eval()
    model.save_pretrained(tmp_path / "model")
    tokenizer.save_pretrained(tmp_path / "model")
    max_source = 24
    inputs = tokenizer(T5_TEXTS, max_length=max_source, truncation=True, padding=True, return_tensors="pt")
    texts_args = ["--max_source_length", max_source]
    for t in T5_TEXTS:
        texts_args += ["--text", t]
    ids, ours = precis_greedy(tmp_path / "model", tmp_path, texts_args, "--bf16")
    hf32, hf16 = teacher_forced(model, inputs, ids, ours.shape[1])
    check_follows_autocast(ours, hf32, hf16, name)


def test_bf16_generation_needs_cuda(tmp_path, cnn_model):
    model_dir, _, _ = cnn_model(*MODELS[0])
    r = run_precis("generate", "--model", model_dir, "--text", "Hello", "--device", "cpu", "--bf16", check=False)
    assert r.returncode != 0
    assert "--bf16 runs on CUDA (--device cuda); on the CPU precis generates in fp32" in r.stderr
