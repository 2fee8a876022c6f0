"""safetensors and checkpoint directories against the Python `safetensors` library and
`save_pretrained`: files they write read here with the values torch sees; files written here
load there with identical values and, where the reference layout is deterministic, identical
bytes; sharded BART checkpoints split exactly as transformers 4.44 splits them.
"""
import json
import struct

import pytest
import torch
from safetensors import safe_open
from safetensors.torch import load_file, save_file

from conftest import run_precis


def tool(*args, check=True):
    return run_precis(*args, binary="safetensors_tool", check=check)


def dump(path):
    return json.loads(tool("dump", path).stdout)


def bits_of(t):
    """What `safetensors_tool dump` prints: float values as F32 bit patterns, integers as I64."""
    if t.dtype.is_floating_point:
        return t.to(torch.float32).reshape(-1).view(torch.int32).tolist()
    return t.to(torch.int64).reshape(-1).tolist()


def as_uint32(values):
    return [v & 0xFFFFFFFF for v in values]


def header_of(path):
    data = open(path, "rb").read()
    n = struct.unpack("<Q", data[:8])[0]
    return json.loads(data[8:8 + n]), data[8 + n:]


def sample_tensors():
    g = torch.Generator().manual_seed(0)
    special = torch.tensor([0.0, -0.0, 1.0, -2.5, float("inf"), float("-inf"), 1e-40, 65504.0,
                            6e-8, 3.4e38, float("nan")])
    return {
        "f32": torch.randn(3, 4, generator=g),
        "f32.special": special,
        "f16": (torch.randn(2, 5, generator=g) * 100).to(torch.float16),
        "f16.special": special.to(torch.float16),
        "bf16": torch.randn(7, generator=g).to(torch.bfloat16),
        "bf16.special": special.to(torch.bfloat16),
        "i64": torch.tensor([[0, -1, 2**40], [7, -2**62, 2**62]], dtype=torch.int64),
        "i32": torch.tensor([-2**31, 2**31 - 1, 5], dtype=torch.int32),
        "scalar": torch.tensor(1.25),
        "scalar.i64": torch.tensor(-9, dtype=torch.int64),
        "empty": torch.zeros(0),
        "empty.2d": torch.zeros(3, 0, dtype=torch.float16),
        "rank4": torch.randn(2, 1, 3, 2, generator=g),
    }


def test_reads_files_written_by_python(tmp_path):
    tensors = sample_tensors()
    path = tmp_path / "py.safetensors"
    save_file(tensors, str(path), metadata={"format": "pt", "note": "ünïcode ✓"})
    out = dump(path)
    assert out["metadata"] == {"format": "pt", "note": "ünïcode ✓"}
    assert sorted(out["tensors"]) == sorted(tensors)
    dtype_names = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
                   torch.int64: "I64", torch.int32: "I32"}
    for name, t in tensors.items():
        got = out["tensors"][name]
        assert got["dtype"] == dtype_names[t.dtype], name
        assert got["shape"] == list(t.shape), name
        expected = bits_of(t)
        if t.dtype.is_floating_point:
            expected = as_uint32(expected)
        assert got["bits"] == expected, name


def test_reads_f64_as_torch_rounds_it(tmp_path):
    t = torch.tensor([0.1, 1.0 / 3.0, -1e300, 1e-320, 2.0 ** -149 * 1.5], dtype=torch.float64)
    path = tmp_path / "f64.safetensors"
    save_file({"d": t}, str(path))
    assert dump(path)["tensors"]["d"]["bits"] == as_uint32(bits_of(t.to(torch.float32)))


@pytest.mark.parametrize("metadata", [None, {"format": "pt"}])
def test_our_files_are_byte_identical_to_save_file(tmp_path, metadata):
    tensors = sample_tensors()
    reference = tmp_path / "reference.safetensors"
    save_file(tensors, str(reference), metadata=metadata)
    ours = tmp_path / "ours.safetensors"
    tool("copy", reference, ours)
    assert ours.read_bytes() == reference.read_bytes()
    loaded = load_file(str(ours))
    assert sorted(loaded) == sorted(tensors)
    for name, t in tensors.items():
        assert loaded[name].dtype == t.dtype and loaded[name].shape == t.shape, name
        assert bits_of(loaded[name]) == bits_of(t), name


def test_several_metadata_keys(tmp_path):
    """The reference keeps __metadata__ in a Rust HashMap, so its key order varies from run to
    run; ours is sorted. Headers equal as JSON, data bytes identical, metadata read back."""
    tensors = sample_tensors()
    metadata = {"format": "pt", "b": "2", "a": "1", "z": "zz"}
    reference = tmp_path / "reference.safetensors"
    save_file(tensors, str(reference), metadata=metadata)
    ours = tmp_path / "ours.safetensors"
    tool("copy", reference, ours)
    ref_header, ref_data = header_of(reference)
    our_header, our_data = header_of(ours)
    assert our_header == ref_header
    assert our_data == ref_data
    assert list(our_header["__metadata__"]) == sorted(metadata)
    with safe_open(str(ours), framework="pt") as f:
        assert f.metadata() == metadata


def test_errors_name_the_file(tmp_path):
    path = tmp_path / "broken.safetensors"
    save_file({"w": torch.zeros(4, 4)}, str(path))
    data = path.read_bytes()
    path.write_bytes(data[:-3])
    result = tool("dump", path, check=False)
    assert result.returncode == 1
    assert "broken.safetensors" in result.stderr and "out of range" in result.stderr
    with pytest.raises(Exception):
        load_file(str(path))  # the reference rejects it too


def tiny_bart(tmp_path):
    from transformers import BartConfig, BartForConditionalGeneration

    torch.manual_seed(0)
    config = BartConfig(vocab_size=1000, d_model=64, encoder_layers=2, decoder_layers=2,
                        encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=128,
                        decoder_ffn_dim=128, max_position_embeddings=64)
    model = BartForConditionalGeneration(config).eval()
    with torch.no_grad():  # a non-zero buffer, so it is checked too
        model.final_logits_bias.normal_()
    hf_dir = tmp_path / "hf"
    model.save_pretrained(hf_dir, max_shard_size="200KB")
    return model, hf_dir


def test_sharded_bart_checkpoint_reads_and_writes_like_save_pretrained(tmp_path):
    from transformers import BartForConditionalGeneration

    model, hf_dir = tiny_bart(tmp_path)
    index = json.loads((hf_dir / "model.safetensors.index.json").read_text())
    shards = sorted(set(index["weight_map"].values()))
    assert len(shards) > 2, "the checkpoint should be sharded"

    # Every tensor of every shard, as torch sees it.
    out = dump(hf_dir)
    state = model.state_dict()
    assert sorted(out["tensors"]) == sorted(index["weight_map"])
    assert "model.shared.weight" in out["tensors"] and "lm_head.weight" not in out["tensors"]
    for name, got in out["tensors"].items():
        assert got["shape"] == list(state[name].shape), name
        assert got["bits"] == as_uint32(bits_of(state[name])), name

    # Written back in state-dict order with the same limit: the same split, index and shard bytes.
    order = tmp_path / "order.txt"
    order.write_text("\n".join(k for k in state if k in index["weight_map"]) + "\n")
    ours = tmp_path / "ours"
    tool("write-checkpoint", hf_dir, ours, 200_000, order)
    written = sorted(p.name for p in ours.iterdir())
    assert written == sorted(shards + ["model.safetensors.index.json"])
    for name in written:
        assert (ours / name).read_bytes() == (hf_dir / name).read_bytes(), name

    # And transformers loads our directory with identical weights.
    (ours / "config.json").write_text((hf_dir / "config.json").read_text())
    reloaded = BartForConditionalGeneration.from_pretrained(ours)
    for name, t in reloaded.state_dict().items():
        assert torch.equal(t, state[name]), name


def test_single_file_bart_checkpoint_is_byte_identical(tmp_path):
    model, _ = tiny_bart(tmp_path)
    single = tmp_path / "single"
    model.save_pretrained(single)
    assert sorted(p.name for p in single.iterdir()) == ["config.json", "generation_config.json",
                                                        "model.safetensors"]
    order = tmp_path / "order.txt"
    names = safe_open(str(single / "model.safetensors"), framework="pt").keys()
    order.write_text("\n".join(k for k in model.state_dict() if k in names) + "\n")
    ours = tmp_path / "ours"
    tool("write-checkpoint", single, ours, 5_000_000_000, order)
    assert sorted(p.name for p in ours.iterdir()) == ["model.safetensors"]
    assert (ours / "model.safetensors").read_bytes() == (single / "model.safetensors").read_bytes()


def test_pytorch_bin_only_says_how_to_convert(tmp_path):
    model, _ = tiny_bart(tmp_path)
    bin_dir = tmp_path / "bin"
    model.save_pretrained(bin_dir, safe_serialization=False)
    result = tool("dump", bin_dir, check=False)
    assert result.returncode == 1
    assert "safetensors only" in result.stderr
    assert "safe_serialization=True" in result.stderr
