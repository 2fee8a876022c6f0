"""Beam-search generation on CPU: precis against transformers generate() (and CTranslate2).

Builds a bart-base-sized random BartForConditionalGeneration (d_model 768, 6+6 layers,
12 heads, FFN 3072, vocabulary 50265) with facebook/bart-large-cnn's generation settings
(num_beams 4, length_penalty 2.0, min_length 56, max_length 142, no_repeat_ngram_size 3,
early_stopping true, forced BOS 0 / EOS 2), saves it, and generates summaries of one batch
of real-ish English inputs (paragraphs of precis's own design documents, 200-400 tokens,
tokenized with the real BART vocabulary when ../shared/data/roberta-bpe holds it) on every
side, with the same number of threads. Prints the time, generated tokens per second, the
ratio to transformers, and whether precis's ids equal transformers'.

CTranslate2 is a second peer when importable (it lives in a separate bench environment,
.venv-bench, so the oracle environment stays as pinned); otherwise it is reported as skipped.

    .venv-bench/bin/python bench/generate.py [--threads N] [--batch 8] [--iterations 1]
"""
import argparse
import json
import os
import pathlib
import re
import subprocess
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
CNN = dict(num_beams=4, length_penalty=2.0, min_length=56, max_length=142, no_repeat_ngram_size=3,
           early_stopping=True, forced_bos_token_id=0, forced_eos_token_id=2)


def paragraphs():
    """Prose paragraphs from the design documents, longest first."""
    text = ""
    for path in (ROOT.parent / "shared" / "DESIGN.md", ROOT.parent / "shared" / "spec" / "hf-semantics.md",
                 ROOT / "README.md"):
        if path.exists():
            text += path.read_text() + "\n\n"
    chunks = [re.sub(r"\s+", " ", c).strip() for c in text.split("\n\n")]
    return [c for c in chunks if len(c) > 200]


def make_inputs(tokenizer, batch, vocab_size):
    """`batch` inputs of 200-400 tokens: consecutive paragraphs joined, then cut."""
    import random
    rng = random.Random(0)
    lengths = [200 + (200 * i) // max(1, batch - 1) for i in range(batch)]
    if tokenizer is None:
        return [[0] + [rng.randrange(4, vocab_size) for _ in range(n - 2)] + [2] for n in lengths]
    ids = tokenizer(" ".join(paragraphs()), add_special_tokens=False)["input_ids"]
    inputs, start = [], 0
    for n in lengths:
        body = ids[start:start + n - 2]
        start = (start + n) % max(1, len(ids) - 400)
        inputs.append([0] + body + [2])
    return inputs


def generated_tokens(rows, pad):
    """Tokens after the decoder start token, padding excluded."""
    return sum(sum(1 for t in row[1:] if t != pad) for row in rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--iterations", type=int, default=1, help="runs per side; the best time counts")
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--profile", action="store_true",
                    help="print precis's per-op profile of a run against this machine's sgemm rate")
    ap.add_argument("--isa", choices=["native", "avx2"], default="native",
                    help="avx2: hold every side to AVX2 on an AVX-512 machine (give --build a build made "
                         "with -DPRECIS_NATIVE=OFF -DCMAKE_CXX_FLAGS=-march=x86-64-v3)")
    args = ap.parse_args()
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    if args.isa == "avx2":  # before torch and CTranslate2 load: OpenBLAS's Haswell kernels; ATen,
        # oneDNN and MKL at AVX2; CTranslate2's AVX2 kernels
        os.environ.update(OPENBLAS_CORETYPE="Haswell", ATEN_CPU_CAPABILITY="avx2", ONEDNN_MAX_CPU_ISA="AVX2",
                          MKL_ENABLE_INSTRUCTIONS="AVX2", CT2_FORCE_CPU_ISA="AVX2")

    import torch
    from transformers import BartConfig, BartForConditionalGeneration, BartTokenizerFast
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    config = BartConfig(vocab_size=50265, d_model=768, encoder_layers=6, decoder_layers=6,
                        encoder_attention_heads=12, decoder_attention_heads=12, encoder_ffn_dim=3072,
                        decoder_ffn_dim=3072, max_position_embeddings=1024,
                        # legacy keys bart-large-cnn's config.json carries (CTranslate2 reads them)
                        normalize_before=False, add_final_layer_norm=False, normalize_embedding=True,
                        static_position_embeddings=False, **CNN)
    model = BartForConditionalGeneration(config).eval()
    bpe = ROOT.parent / "shared" / "data" / "roberta-bpe"
    tokenizer = None
    if (bpe / "vocab.json").exists():
        tokenizer = BartTokenizerFast(vocab_file=str(bpe / "vocab.json"), merges_file=str(bpe / "merges.txt"))
    inputs = make_inputs(tokenizer, args.batch, config.vocab_size)
    source_lengths = [len(x) for x in inputs]

    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        model.save_pretrained(tmp / "model")
        if tokenizer is not None:
            tokenizer.save_pretrained(tmp / "model")
        (tmp / "inputs.json").write_text(json.dumps({"inputs": inputs}))
        bench = pathlib.Path(args.build) / "bench" / "generate_bench"
        ours_run = subprocess.run([str(bench), str(tmp / "model"), str(tmp / "inputs.json"), str(args.iterations)],
                                  check=True, capture_output=True, text=True,
                                  env=dict(os.environ, PRECIS_OP_PROFILE="1" if args.profile else "0"))
        ours = json.loads(ours_run.stdout)

        # transformers: the same right-padded batch.
        longest = max(source_lengths)
        input_ids = torch.full((len(inputs), longest), config.pad_token_id)
        mask = torch.zeros((len(inputs), longest), dtype=torch.long)
        for i, x in enumerate(inputs):
            input_ids[i, :len(x)] = torch.tensor(x)
            mask[i, :len(x)] = 1
        hf_best, hf_rows = None, None
        with torch.no_grad():
            for _ in range(args.iterations):
                start = time.perf_counter()
                out = model.generate(input_ids=input_ids, attention_mask=mask)
                elapsed = time.perf_counter() - start
                hf_best = elapsed if hf_best is None else min(hf_best, elapsed)
                hf_rows = out.tolist()

        pad = config.pad_token_id
        print(f"machine: {os.cpu_count()} cores, threads {args.threads}; torch {torch.__version__}; "
              f"bart-base shape, random weights, bart-large-cnn generation settings; batch {len(inputs)}, "
              f"{'AVX2 only; ' if args.isa == 'avx2' else ''}"
              f"source lengths {min(source_lengths)}-{max(source_lengths)} tokens; best of {args.iterations}")
        hf_tokens = generated_tokens(hf_rows, pad)
        our_tokens = generated_tokens(ours["sequences"], pad)
        print(f"transformers generate():  {hf_best:8.2f} s  {hf_tokens / hf_best:8.1f} generated tokens/s "
              f"({hf_tokens} tokens)")
        print(f"precis generate():        {ours['seconds']:8.2f} s  {our_tokens / ours['seconds']:8.1f} generated "
              f"tokens/s ({our_tokens} tokens)   speed-up x{hf_best / ours['seconds']:.2f}")
        print(f"ids equal to transformers: {ours['sequences'] == hf_rows}", flush=True)
        if args.profile:
            print("\nprecis, op by op (per run):\n" + ours_run.stderr, end="", flush=True)

        ct2 = run_ctranslate2(tmp, tokenizer, inputs, args)
        if ct2 is None:
            print("ctranslate2:              SKIPPED (not importable here; run with .venv-bench/bin/python, "
                  "see the module docstring)")
        else:
            seconds, tokens = ct2
            print(f"ctranslate2 4 (fp32):     {seconds:8.2f} s  {tokens / seconds:8.1f} generated tokens/s "
                  f"({tokens} tokens)   ct2 time / precis time x{seconds / ours['seconds']:.2f}")


def run_ctranslate2(tmp, tokenizer, inputs, args):
    """(seconds, generated tokens) with CTranslate2 on the converted checkpoint, or None."""
    try:
        import ctranslate2
    except ImportError:
        return None
    if tokenizer is None:
        print("ctranslate2: needs the real BART vocabulary (../shared/data/roberta-bpe); skipped")
        return None

    class Converter(ctranslate2.converters.TransformersConverter):
        # CTranslate2 4.6+ passes from_pretrained(dtype=...), which transformers 4.44 calls
        # torch_dtype.
        def load_model(self, model_class, model_name_or_path, **kwargs):
            kwargs["torch_dtype"] = kwargs.pop("dtype", None)
            return model_class.from_pretrained(model_name_or_path, **kwargs)

    Converter(str(tmp / "model")).convert(str(tmp / "ct2"), force=True)
    translator = ctranslate2.Translator(str(tmp / "ct2"), device="cpu", inter_threads=1,
                                        intra_threads=args.threads)
    source = [tokenizer.convert_ids_to_tokens(x) for x in inputs]
    # CTranslate2 counts decoding lengths without the decoder start token.
    options = dict(beam_size=4, length_penalty=2.0, no_repeat_ngram_size=3, min_decoding_length=55,
                   max_decoding_length=141, max_batch_size=len(source))
    best, tokens = None, 0
    for _ in range(args.iterations):
        start = time.perf_counter()
        results = translator.translate_batch(source, **options)
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
        tokens = sum(len(r.hypotheses[0]) + 1 for r in results)  # + the EOS it does not return
    return best, tokens


if __name__ == "__main__":
    main()
