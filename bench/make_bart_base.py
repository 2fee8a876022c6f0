"""Saves a bart-base-shaped BART with random weights (d_model 768, 6 + 6 layers, 12 heads, FFN
3072) and the real BART vocabulary (../shared/data/roberta-bpe, 50,265 tokens) to a directory, for
benchmarks that need a model of that shape on disk (bench/beam_search_ct2.py). The generation
config is transformers' default, so a benchmark's flags set the search alone; the weights are
torch's initialisation under seed 0, so nearly every beam runs to --max_length.

    .venv-bench/bin/python bench/make_bart_base.py /tmp/bart-base-random
"""
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    import torch
    from transformers import BartConfig, BartForConditionalGeneration, BartTokenizer

    bpe = ROOT.parent / "shared" / "data" / "roberta-bpe"
    if not (bpe / "vocab.json").exists():
        sys.exit(f"make_bart_base: {bpe} has no vocab.json (the BART vocabulary this model is shaped for)")
    torch.manual_seed(0)
    config = BartConfig(vocab_size=50265, d_model=768, encoder_layers=6, decoder_layers=6,
                        encoder_attention_heads=12, decoder_attention_heads=12, encoder_ffn_dim=3072,
                        decoder_ffn_dim=3072, max_position_embeddings=1024, normalize_before=False)
    out = pathlib.Path(sys.argv[1])
    BartForConditionalGeneration(config).eval().save_pretrained(out)
    # (transformers 5's constructor ignores vocab_file / merges_file: the files' folder loads them.)
    BartTokenizer.from_pretrained(str(bpe)).save_pretrained(out)
    print(out)


if __name__ == "__main__":
    main()
