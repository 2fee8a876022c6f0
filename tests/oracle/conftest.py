"""Shared fixtures for the oracle tests: where precis is, and tiny HF checkpoints.

Every checkpoint here is made by the real `transformers` classes with random weights and
saved with `save_pretrained`, and the tokenizer is a byte-level BPE trained with the HF
`tokenizers` library, so the suite stands on its own (no download).
"""
import json
import os
import pathlib
import subprocess

import pytest

# CI=true (as .ci/run runs): setup has installed everything the suite needs, so a skipped
# test is a failure there, except one that needs what setup cannot install: ../shared, beside
# the checkout, which a clone made elsewhere does not have (NO_SHARED_DATA in its reason), or an
# instruction set the CPU lacks (NO_CPU_FEATURE).
# Elsewhere a file with a skip exits 77, which ctest shows as "Skipped", and the reasons are
# listed by test name.
IN_CI = os.environ.get("CI", "").lower() not in ("", "0", "false", "no")

# The oracle in this process is transformers 4.44.2, and precis follows 5.23 unless told: every
# precis these tests start follows 4.44 (PRECIS_HF_SEMANTICS, whatever the shell had), but in
# test_hf_semantics.py, which sets each run's semantics itself against both oracles.
os.environ["PRECIS_HF_SEMANTICS"] = "4.44"

SOURCE_DIR = pathlib.Path(os.environ.get("PRECIS_SOURCE_DIR", pathlib.Path(__file__).parents[2]))
BUILD_DIR = pathlib.Path(os.environ.get("PRECIS_BUILD_DIR", SOURCE_DIR / "build"))
SHARED_DIR = SOURCE_DIR.parent / "shared"
NO_SHARED_DATA = "a clone without ../shared beside it"  # scripts/list_skips.py looks for it
# The words of a skip for want of an instruction set the CPU lacks (scripts/list_skips.py too).
NO_CPU_FEATURE = "cannot run on this CPU"

# Text with the cases tokenizers get wrong: accents, emoji, CJK, tabs, runs of spaces and
# newlines, contractions, special tokens typed in text, the empty string.
UNICODE_CORPUS = [
    "Hello world",
    "",
    " ",
    "The capital of France is <mask>.",
    "a <mask> b<mask>c <mask>",
    "Café déjà vu, naïve façade, Zoë's résumé.",
    "Emoji: 😀👍🏽 and 🇫🇷 flags, ❤️ hearts.",
    "中文字符和日本語のテキスト、한국어 텍스트。",
    "tabs\tand\t\ttabs",
    "runs   of    spaces     and\n\nnewlines\n\n\n  indented",
    "I'm sure you'll see they've done it, isn't it? We'd say it's John's.",
    "I'M SHOUTING DON'T",
    "<s>literal specials</s> <pad> <unk>",
    "Numbers 12345 and 3.14159, 1,000,000 and ½ ⅓ ² ³ ٣",
    "  leading and trailing spaces  ",
    "\u00a0non-breaking\u2009thin\u3000ideographic spaces",
    "Math: ∑ x² ≤ ∞ → λ; symbols ©®™ §¶",
    "Zero\u200bwidth\u200djoiner and combining e\u0301 a\u0308",
    "Mixed: Ünïcödé-TEXT_with_underscores and hyphen-ated words!!!",
    "Amanda: I baked cookies. Do you want some?\r\nJerry: Sure!\r\nAmanda: I'll bring you tomorrow :-)",
    "\n",
    "     ",
    "ends with space ",
    "Ġ Ċ already-mapped characters",
]


def precis_binary(name="precis"):
    for candidate in (BUILD_DIR / name, BUILD_DIR / "tests" / name, BUILD_DIR / "bench" / name):
        if candidate.exists():
            return str(candidate)
    raise FileNotFoundError(f"{name} not built in {BUILD_DIR}; run scripts/setup.sh")


def run_precis(*args, check=True, binary="precis", **kwargs):
    """Runs a precis binary and returns the CompletedProcess (text mode)."""
    cmd = [precis_binary(binary), *map(str, args)]
    result = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if check and result.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed ({result.returncode}):\n{result.stderr}")
    return result


def json_lines(text):
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def require_cpu_bf16_sums_in_fp32():
    """Skips a test whose reference is torch's CPU bf16 (Seq2SeqTrainer(bf16=True) on the CPU, or
    generate() under CPU autocast) where this torch does not sum bf16 matrix products in fp32.
    Debian's torch 1.13 sums them in fp32 (oneDNN's bf16 GEMMs) on the AVX-512 Xeons these tests
    were measured on; elsewhere (an AMD EPYC of the Zen 3 generation, AVX2 only) its own bf16
    kernel rounds the running sums of
    `mm` and `bmm` (used by the backward and by attention) to bf16: a 64 x 512 x 64 product lands
    5e-2 of its largest element off the fp32 sum of the same bf16 operands, against 4e-3 for
    rounding the result once. Such a reference is not HF's bf16 as users run it on a GPU or on a
    CPU that has AVX-512, and no setup can change it. precis's bf16 kernels are still tested on
    every CPU (the emulator's op tests, and bf16 against precis's own fp32)."""
    import torch

    generator = torch.Generator().manual_seed(0)
    a = torch.randn(64, 512, generator=generator).bfloat16()
    b = torch.randn(512, 64, generator=generator).bfloat16()
    exact = a.float() @ b.float()
    error = ((a @ b).float() - exact).abs().max().item() / exact.abs().max().item()
    if error > 1e-2:
        pytest.skip(f"torch {torch.__version__}'s CPU bf16 matrix products sum in bf16 on this CPU "
                    f"({error:.1e} of the largest element off the fp32 sum, where rounding the result "
                    "once gives 4e-3), so the bf16 reference cannot run on this CPU")


@pytest.fixture(scope="session")
def roberta_bpe_dir():
    """The real RoBERTa/BART vocabulary (what bart-large-cnn uses), where ../shared holds it."""
    d = SHARED_DIR / "data" / "roberta-bpe"
    if not (d / "vocab.json").exists():
        pytest.skip(f"real RoBERTa/BART vocabulary not present at {d} ({NO_SHARED_DATA})")
    return d


def train_tiny_bpe(out_dir, vocab_size=600):
    """A byte-level BPE trained by HF `tokenizers` and saved as a BartTokenizerFast would be."""
    from tokenizers import ByteLevelBPETokenizer
    from transformers import BartTokenizerFast

    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    corpus = UNICODE_CORPUS * 4 + [
        "The quick brown fox jumps over the lazy dog.",
        "Summaries are short; dialogues are long and have many turns between speakers.",
        "precis fine-tunes sequence-to-sequence transformers for summarization.",
    ] * 20
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(corpus, vocab_size=vocab_size, min_frequency=1,
                            special_tokens=["<s>", "<pad>", "</s>", "<unk>"])
    bpe.save_model(str(out_dir))
    # <mask> goes last, as in BART.
    vocab = json.loads((out_dir / "vocab.json").read_text())
    vocab["<mask>"] = len(vocab)
    (out_dir / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False))
    tok = BartTokenizerFast(vocab_file=str(out_dir / "vocab.json"), merges_file=str(out_dir / "merges.txt"))
    tok.save_pretrained(str(out_dir))
    return tok


@pytest.fixture(scope="session")
def tiny_bpe_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("tiny_bpe")
    train_tiny_bpe(d)
    return d


def skip_reason(report):
    if isinstance(report.longrepr, tuple):
        return report.longrepr[2].removeprefix("Skipped: ")
    return str(report.longrepr)


def failing_skips(skipped):
    """The skips CI counts as failures: all but those for what no setup can install (data
    beside the checkout, an instruction set of the CPU)."""
    return [r for r in skipped if not any(excuse in skip_reason(r) for excuse in (NO_SHARED_DATA, NO_CPU_FEATURE))]


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    skipped = terminalreporter.stats.get("skipped", [])
    if not skipped:
        return
    terminalreporter.section("skipped tests and why", sep="-")
    for report in skipped:
        terminalreporter.write_line(f"SKIPPED {report.nodeid}: {skip_reason(report)}")
    failing = failing_skips(skipped)
    if IN_CI and failing:
        terminalreporter.write_line(f"FAILED: {len(failing)} skipped under CI=true, where scripts/setup.sh "
                                    "installs everything the suite needs")


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter else []
    if skipped and session.exitstatus == 0:
        session.exitstatus = (1 if failing_skips(skipped) else 77) if IN_CI else 77
