"""`precis train --bf16` on the CPU against Seq2SeqTrainer(bf16=True, use_cpu=True), which runs
the step under torch's CPU autocast: the products of the linear layers and of attention (bmm)
take bf16 operands, the rest
stays fp32. precis rounds the same operands (on AMX tiles where the CPU has AMX-BF16, emulated
elsewhere, or as PRECIS_CPU_BF16=emulate asks: both are under test) but keeps each product's fp32 result,
where autocast also rounds the output to bf16; so the two agree to bf16's precision, not to
fp32's. The test also checks that --bf16 is in effect: precis's bf16 steps leave fp32's by far
more than the fp32 tests allow, and stay nearer HF's bf16 steps than fp32's."""
import pytest

from conftest import require_cpu_bf16_sums_in_fp32
from train_support import BART_NOT_SAVED, GRAD_NORM_RTOL, hf_train_fp32_then_bf16, make_job, precis_train

# Bounds, measured on this job (AMX and emulated alike) and set with margin:
# - a step's loss, bf16 against bf16: measured <= 1.8e-7 relative (fp32 against bf16: 6e-7;
#   the tiny model's near-uniform softmax makes the loss insensitive to rounding);
BF16_LOSS_RTOL = 5e-6
# - a step's gradient norm, bf16 against bf16: measured <= 2.0e-4 relative, where precis's
#   bf16 is 6.9e-4 away from fp32 (HF's, 4.8e-4): autocast's extra rounding of each linear
#   output against bf16's rounding of the operands;
BF16_GRAD_NORM_RTOL = 1e-3
# - the weights after 3 steps (two Adam updates at lr 1e-3): Adam moves a weight by up to lr
#   whatever its gradient's size, so a near-zero gradient that rounds to the other sign moves
#   it by up to 2 lr. Measured 1.5e-3 (bf16 against bf16, and each against fp32 alike): this
#   bound checks only that nothing diverges.
BF16_WEIGHT_LIMIT = 4e-3


@pytest.mark.parametrize("path", ["this CPU's", "emulated"])
def test_bf16_steps_follow_hf_cpu_autocast(tmp_path, monkeypatch, path):
    require_cpu_bf16_sums_in_fp32()
    if path == "emulated":  # on a CPU without AMX-BF16 both cases run the emulated path
        monkeypatch.setenv("PRECIS_CPU_BF16", "emulate")
    model, tokenizer, records = make_job(tmp_path)
    fp32_norms, ref, ref_losses, ref_norms = hf_train_fp32_then_bf16(model, tokenizer, records, tmp_path,
                                                                     monkeypatch)
    ours, steps, _, result = precis_train(tmp_path, tmp_path / "out", bf16=True)
    assert "--bf16 on the CPU" in result.stderr, result.stderr
    assert ("emulated" in result.stderr) == (path == "emulated" or "no AMX-BF16" in result.stderr)
    losses, norms = [s["loss"] for s in steps], [s["grad_norm"] for s in steps]
    print("losses precis", losses, "HF", ref_losses)
    print("grad norms precis", norms, "HF", ref_norms, "fp32", fp32_norms)
    for loss, ref_loss, norm, ref_norm, fp32_norm in zip(losses, ref_losses, norms, ref_norms, fp32_norms, strict=True):
        assert abs(loss - ref_loss) <= BF16_LOSS_RTOL * abs(ref_loss), (losses, ref_losses)
        assert abs(norm - ref_norm) <= BF16_GRAD_NORM_RTOL * abs(ref_norm), (norms, ref_norms)
        # In effect: far from fp32 by the fp32 tests' measure, and nearer HF's bf16 than fp32.
        assert abs(norm - fp32_norm) > 100 * GRAD_NORM_RTOL * abs(fp32_norm), (norms, fp32_norms)
        assert abs(norm - ref_norm) < abs(norm - fp32_norm), (norms, ref_norms, fp32_norms)
    assert set(ours) == set(ref) - BART_NOT_SAVED
    worst = max((value - ref[name]).abs().max().item() for name, value in ours.items())
    print(f"worst weight diff {worst:.2e}")
    assert worst <= BF16_WEIGHT_LIMIT
