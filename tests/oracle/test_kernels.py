"""precis CPU kernels, forward and backward, against torch 1.13 autograd on CPU.

Each test builds small random inputs, runs the op through tests/probes/kernel_probe (inputs and
outputs as safetensors, settings in the metadata), and runs the same math in torch the way
transformers does it (nn.Linear, nn.LayerNorm(eps=1e-5), ACT2FN, BART's eager attention with
its additive finfo.min masks, F.cross_entropy(ignore_index=-100) / LabelSmoother,
torch.optim.AdamW(foreach=False), T5LayerNorm, T5Attention.compute_bias). Tolerance: see TOL.
"""
import subprocess

import pytest
import torch
import torch.nn.functional as F
from safetensors.torch import load_file, save_file
from transformers.activations import ACT2FN
from transformers.models.t5.modeling_t5 import T5Attention, T5Config, T5LayerNorm
from transformers.trainer_pt_utils import LabelSmoother

from conftest import precis_binary

# Each element's error relative to its own magnitude, but to no less than the tensor's RMS
# value: sums err in proportion to their terms, not their result, and the elements near 0 of
# a sum (or of an activation's tail) would otherwise be held to more digits than fp32 has.
# Measured (release -march=native and clang -O1 as under ASan, 1, 2 and 4 OpenMP threads),
# the worst is 1.2e-6 (attention dq, causal); most are 0 to 5e-7, a few float ulps. TOL
# leaves 2.5x over that (the promise is 1e-5); a 1e-5 shift of the layer norm's output
# measures 1e-5, of the exact GELU's 5.5e-6: both fail.
TOL = 3e-6


def probe(op, tmp_path, tensors, **settings):
    src, dst = tmp_path / f"{op}-in.safetensors", tmp_path / f"{op}-out.safetensors"
    save_file({k: v.contiguous() for k, v in tensors.items()}, str(src),
              metadata={k: str(v) for k, v in settings.items()})
    result = subprocess.run([precis_binary("kernel_probe"), op, str(src), str(dst)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return load_file(str(dst))


def assert_close(ours, ref, name, tol=TOL):
    ref = ref.detach()
    assert ours.shape == ref.shape, f"{name}: shape {tuple(ours.shape)} vs {tuple(ref.shape)}"
    scale = torch.maximum(ref.abs(), ref.pow(2).mean().sqrt())
    err = ((ours - ref).abs() / scale).max().item() if ref.abs().max() > 0 else (ours - ref).abs().max().item()
    print(f"{name}: max abs diff / max(|ref|, rms(ref)) {err:.2e}")
    assert err <= tol, f"{name}: max abs diff {err:.2e} of max(|ref|, rms(ref)) (bound {tol})"


def leaf(*shape, scale=1.0, gen=None):
    return (torch.randn(*shape, generator=gen) * scale).requires_grad_(True)


@pytest.fixture
def gen():
    return torch.Generator().manual_seed(0)


def test_linear(tmp_path, gen):
    layer = torch.nn.Linear(24, 40)
    x = leaf(3, 7, 24, gen=gen)
    y = layer(x)
    dy = torch.randn(y.shape, generator=gen)
    y.backward(dy)
    ours = probe("linear", tmp_path, {"x": x.detach(), "weight": layer.weight.detach(),
                                      "bias": layer.bias.detach(), "dy": dy})
    assert_close(ours["y"], y, "y")
    assert_close(ours["dx"], x.grad, "dx")
    assert_close(ours["dweight"], layer.weight.grad, "dweight")
    assert_close(ours["dbias"], layer.bias.grad, "dbias")


def test_layernorm(tmp_path, gen):
    norm = torch.nn.LayerNorm(48)  # BART: eps 1e-5, elementwise affine
    with torch.no_grad():
        norm.weight.copy_(1 + 0.1 * torch.randn(48, generator=gen))
        norm.bias.copy_(0.1 * torch.randn(48, generator=gen))
    x = (torch.randn(2, 9, 48, generator=gen) * 3 + 5).requires_grad_(True)
    y = norm(x)
    dy = torch.randn(y.shape, generator=gen)
    y.backward(dy)
    ours = probe("layernorm", tmp_path, {"x": x.detach(), "weight": norm.weight.detach(),
                                         "bias": norm.bias.detach(), "dy": dy}, eps=norm.eps)
    assert_close(ours["y"], y, "y")
    assert_close(ours["dx"], x.grad, "dx")
    assert_close(ours["dweight"], norm.weight.grad, "dweight")
    assert_close(ours["dbias"], norm.bias.grad, "dbias")


@pytest.mark.parametrize("kind", ["gelu", "gelu_new", "gelu_pytorch_tanh", "gelu_fast", "quick_gelu",
                                  "relu", "silu", "tanh", "linear"])
def test_activation(kind, tmp_path, gen):
    x = leaf(4, 33, scale=2.5, gen=gen)
    y = ACT2FN[kind](x)
    dy = torch.randn(y.shape, generator=gen)
    y.backward(dy)
    ours = probe("activation", tmp_path, {"x": x.detach(), "dy": dy}, kind=kind)
    assert_close(ours["y"], y, "y")
    assert_close(ours["dx"], x.grad, "dx")


def test_embedding_with_padding_idx_and_scale(tmp_path, gen):
    emb = torch.nn.Embedding(11, 16, padding_idx=1)
    ids = torch.tensor([[0, 1, 4, 4, 10], [1, 1, 3, 4, 2]])
    scale = 4.0  # scale_embedding: sqrt(d_model)
    out = emb(ids) * scale
    dout = torch.randn(out.shape, generator=gen)
    out.backward(dout)
    ours = probe("embedding", tmp_path, {"ids": ids.int(), "table": emb.weight.detach(), "dout": dout},
                 scale=scale, padding_idx=1)
    assert_close(ours["out"], out, "out")
    assert_close(ours["dtable"], emb.weight.grad, "dtable")


def bart_attention(q, k, v, heads, key_padding, causal, past, keep):
    """BartAttention's eager path on projected q, k, v (B, T, H*hd): scaling after the
    projection, additive finfo.min masks, softmax, dropout as a fixed keep/(1-p) factor."""
    B, Tq, d = q.shape
    Tk, hd = k.shape[1], d // heads
    scaling = hd ** -0.5
    split = lambda t, T: t.view(B, T, heads, hd).transpose(1, 2)
    scores = torch.matmul(split(q * scaling, Tq), split(k, Tk).transpose(-1, -2))
    mask = torch.zeros(B, 1, Tq, Tk)
    big_neg = torch.finfo(torch.float32).min
    if causal:
        i = torch.arange(Tq)[:, None] + past
        mask = mask.masked_fill(torch.arange(Tk)[None, :] > i, big_neg)
    if key_padding is not None:
        mask = mask.masked_fill(key_padding[:, None, None, :] == 0, big_neg)
    probs = F.softmax(scores + mask, dim=-1)
    weights = probs * keep if keep is not None else probs
    out = torch.matmul(weights, split(v, Tk)).transpose(1, 2).reshape(B, Tq, d)
    return out, probs


ATTENTION_CASES = {
    # name: (B, heads, Tq, Tk, head_dim, key_padding rows or None, causal, past, dropout_p)
    "encoder-padding": (2, 4, 6, 6, 8, [[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1]], False, 0, 0.0),
    "decoder-causal": (2, 2, 5, 5, 8, None, True, 0, 0.0),
    "decoder-causal-past": (2, 2, 3, 7, 8, None, True, 4, 0.0),
    "cross-padding": (3, 2, 4, 9, 4, [[1] * 9, [1] * 5 + [0] * 4, [1, 0] * 4 + [1]], False, 0, 0.0),
    "encoder-dropout": (2, 4, 6, 6, 8, [[1, 1, 1, 1, 1, 0], [1] * 6], False, 0, 0.1),
    "decoder-causal-dropout": (2, 2, 5, 5, 8, None, True, 0, 0.3),
}


@pytest.mark.parametrize("name", sorted(ATTENTION_CASES))
def test_attention(name, tmp_path, gen):
    B, H, Tq, Tk, hd, padding, causal, past, p = ATTENTION_CASES[name]
    d = H * hd
    q, k, v = leaf(B, Tq, d, gen=gen), leaf(B, Tk, d, gen=gen), leaf(B, Tk, d, gen=gen)
    tensors = {"q": q.detach(), "k": k.detach(), "v": v.detach()}
    key_padding = None
    if padding is not None:
        key_padding = torch.tensor(padding, dtype=torch.int32)
        tensors["key_padding"] = key_padding
    dout = torch.randn(B, Tq, d, generator=gen)
    tensors["dout"] = dout
    settings = dict(heads=H, scale=hd ** -0.5, causal=int(causal), past=past, dropout_p=p,
                    seed=1234, stream=987654321)
    ours = probe("attention", tmp_path, tensors, **settings)
    keep = ours["keep"] if p > 0 else None
    if p > 0:  # the mask precis drew, applied in torch as a constant factor
        kept = (keep != 0).float().mean().item()
        assert abs(kept - (1 - p)) < 0.15, f"keep rate {kept} for p = {p}"
        assert torch.all((keep == 0) | (keep == torch.tensor(1 / (1 - p), dtype=torch.float32)))
    out, probs = bart_attention(q, k, v, H, key_padding, causal, past, keep)
    out.backward(dout)
    assert_close(ours["out"], out, "out")
    assert_close(ours["probs"], probs, "probs")
    assert_close(ours["dq"], q.grad, "dq")
    assert_close(ours["dk"], k.grad, "dk")
    assert_close(ours["dv"], v.grad, "dv")


@pytest.mark.parametrize("smoothing", [0.0, 0.1])
def test_cross_entropy(smoothing, tmp_path, gen):
    B, T, V = 3, 5, 37
    logits = leaf(B, T, V, scale=3.0, gen=gen)
    labels = torch.randint(0, V, (B, T), generator=gen)
    labels[0, 3:] = -100
    labels[2, 1] = -100
    if smoothing == 0:
        loss = F.cross_entropy(logits.view(-1, V), labels.view(-1), ignore_index=-100)
    else:
        loss = LabelSmoother(epsilon=smoothing)({"logits": logits}, labels)
    loss.backward()
    ours = probe("cross_entropy", tmp_path, {"logits": logits.detach(), "labels": labels.int()},
                 label_smoothing=smoothing)
    assert_close(ours["loss"], loss, "loss")
    assert_close(ours["dlogits"], logits.grad, "dlogits")
    assert torch.all(ours["dlogits"][0, 3:] == 0) and torch.all(ours["dlogits"][2, 1] == 0)


def test_adamw_three_steps_with_weight_decay(tmp_path, gen):
    param = torch.nn.Parameter(torch.randn(500, generator=gen))
    start = param.detach().clone()
    settings = dict(lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.01, steps=3)
    opt = torch.optim.AdamW([param], lr=settings["lr"], betas=(settings["beta1"], settings["beta2"]),
                            eps=settings["eps"], weight_decay=settings["weight_decay"], foreach=False)
    grads = {}
    for t in range(1, 4):
        grads[f"grad_{t}"] = torch.randn(500, generator=gen) * 0.1
        grads[f"grad_{t}"][:5] = 0  # no gradient: decay only
        param.grad = grads[f"grad_{t}"].clone()
        opt.step()
    ours = probe("adamw", tmp_path, {"params": start, **grads}, **settings)
    state = opt.state[param]
    assert_close(ours["params"], param, "params")
    assert_close(ours["exp_avg"], state["exp_avg"], "exp_avg")
    # 1 - beta2 is formed from the Python float (1 - 0.999, rounded to 0.001f), as torch does;
    # from the float 0.999f it would be 0.00099998713, 1.3e-5 of exp_avg_sq off.
    assert_close(ours["exp_avg_sq"], state["exp_avg_sq"], "exp_avg_sq")
    moved = (ours["params"] - start).abs().max().item()
    assert moved > 1e-3, "the parameters should have moved"
    rel = ((ours["params"] - param.detach()).abs() / param.detach().abs().clamp(min=1e-3)).max().item()
    print(f"params after 3 steps: max relative diff {rel:.2e}")
    assert rel <= 1e-6, f"params after 3 steps: max relative diff {rel}"


def test_sum_of_squares_matches_clip_grad_norm(tmp_path, gen):
    x = torch.randn(200003, generator=gen)
    ours = probe("sum_of_squares", tmp_path, {"x": x})
    g = torch.nn.Parameter(torch.zeros_like(x))
    g.grad = x.clone()
    total = torch.nn.utils.clip_grad_norm_([g], max_norm=1e9)
    rel = abs(ours["sum_of_squares"].sqrt().item() - total.item()) / total.item()
    print(f"norm: relative diff {rel:.2e}")
    assert rel <= TOL


def test_rms_norm(tmp_path, gen):
    norm = T5LayerNorm(40, eps=1e-6)
    with torch.no_grad():
        norm.weight.copy_(1 + 0.2 * torch.randn(40, generator=gen))
    # An offset row mean: RMSNorm does not subtract it (a LayerNorm would give other values).
    x = (torch.randn(3, 7, 40, generator=gen) * 2 + 1.5).requires_grad_(True)
    y = norm(x)
    dy = torch.randn(y.shape, generator=gen)
    y.backward(dy)
    ours = probe("rms_norm", tmp_path, {"x": x.detach(), "weight": norm.weight.detach(), "dy": dy},
                 eps=norm.variance_epsilon)
    assert_close(ours["y"], y, "y")
    assert_close(ours["dx"], x.grad, "dx")
    assert_close(ours["dweight"], norm.weight.grad, "dweight")


RELATIVE_POSITION_CASES = {
    # name: (decoder, first_query, Tq, Tk): distances past max_exact and past max_distance, so
    # the logarithmic buckets and the last bucket are both used.
    "encoder": (False, 0, 37, 37),
    "encoder-long": (False, 0, 9, 150),
    "decoder": (True, 0, 40, 40),
    "decoder-incremental": (True, 131, 1, 132),
    "decoder-cached-block": (True, 20, 6, 26),
}


@pytest.mark.parametrize("name", sorted(RELATIVE_POSITION_CASES))
def test_relative_position_bias(name, tmp_path, gen):
    decoder, first, Tq, Tk = RELATIVE_POSITION_CASES[name]
    config = T5Config(d_model=16, d_kv=4, num_heads=4, relative_attention_num_buckets=32,
                      relative_attention_max_distance=64, is_decoder=decoder)
    # In float64: the table's gradient sums one term per (query, key) pair of a bucket, which
    # torch adds in float32 (2.4e-6 of the scale off in the 40 x 40 case); precis adds in
    # double, so the float64 run of the same module is the value it must round to.
    attention = T5Attention(config, has_relative_attention_bias=True).double()
    with torch.no_grad():
        attention.relative_attention_bias.weight.copy_(torch.randn(32, 4, generator=gen))
    # HF computes the bias of every position and keeps the last Tq query rows when decoding
    # with a cache (T5Attention.forward: position_bias[:, :, -seq_length:, :]).
    bias = attention.compute_bias(first + Tq, Tk)[:, :, first:, :]
    d_scores = torch.randn(2, 4, Tq, Tk, generator=gen)
    bias.backward(d_scores.double().sum(0, keepdim=True))
    table = attention.relative_attention_bias.weight
    ours = probe("relative_position", tmp_path, {"table": table.detach().float(), "d_scores": d_scores},
                 bidirectional=int(not decoder), num_buckets=32, max_distance=64, first_query=first)
    assert_close(ours["bias"], bias[0].float(), "bias")
    assert_close(ours["dtable"], table.grad.float(), "dtable")
