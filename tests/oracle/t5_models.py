"""Tiny random T5 checkpoints made with the real transformers classes."""
import math
import pathlib

import torch
from transformers import T5Config, T5ForConditionalGeneration

from probe_support import padded_batch

# v1.0 (relu, tied head with the d_model^-0.5 rescale) and v1.1 / FLAN-T5 (gated-gelu,
# untied), with d_kv * heads != d_model and few buckets so the logarithmic buckets are hit.
CONFIGS = {
    "v1_0-relu-tied": dict(d_model=32, d_kv=8, d_ff=48, num_layers=2, num_decoder_layers=3, num_heads=3,
                           relative_attention_num_buckets=8, relative_attention_max_distance=12,
                           feed_forward_proj="relu", tie_word_embeddings=True),
    "v1_1-gated-gelu-untied": dict(d_model=24, d_kv=10, d_ff=40, num_layers=3, num_decoder_layers=2,
                                   num_heads=2, relative_attention_num_buckets=10,
                                   relative_attention_max_distance=20, feed_forward_proj="gated-gelu",
                                   tie_word_embeddings=False),
    # Heads 16 wide: the CPU's decoding kernels take these (AVX-512), the position bias of the
    # cached self-attention included.
    "kv-16-gated-gelu": dict(d_model=32, d_kv=16, d_ff=48, num_layers=2, num_decoder_layers=2,
                             num_heads=2, relative_attention_num_buckets=8,
                             relative_attention_max_distance=12, feed_forward_proj="gated-gelu",
                             tie_word_embeddings=False),
}

# Texts with T5's sentinels and special tokens typed in (<extra_id_100> is past the 100
# sentinels, so plain text).
SPECIAL_TEXTS = [
    "Translate: <extra_id_0> the house <extra_id_1> is red <extra_id_99>",
    "a<extra_id_5>b  <extra_id_7>   c",
    "ends with eos</s>",
    "x </s> y <pad>z<unk>",
    "summarize: The quick brown fox jumps over the lazy dog.",
    "<extra_id_100> is not a sentinel here",
]


def make_t5(name, vocab_size, seed=0, dropout=0.0, scale=0.3, **overrides):
    torch.manual_seed(seed)
    kwargs = dict(vocab_size=vocab_size, dropout_rate=dropout, pad_token_id=0, eos_token_id=1,
                  decoder_start_token_id=0, layer_norm_epsilon=1e-6)
    kwargs.update(CONFIGS[name])
    kwargs.update(overrides)
    model = T5ForConditionalGeneration(T5Config(**kwargs))
    with torch.no_grad():
        # Larger than the default init so norms and attention see non-trivial inputs.
        for p in model.parameters():
            p.normal_(0.0, scale)
    return model.eval()


def random_batch(vocab_size, batch=3, source_len=15, target_len=9, seed=1):
    """Right-padded inputs of unequal lengths ending in </s>, labels with -100 padding."""
    input_ids, attention_mask, labels = padded_batch(vocab_size, batch, source_len, target_len, seed,
                                                     first_id=2, eos=1, pad=0, source_step=4)
    decoder_input_ids = torch.zeros_like(labels)
    decoder_input_ids[:, 1:] = labels[:, :-1]
    decoder_input_ids[decoder_input_ids == -100] = 0
    return dict(input_ids=input_ids, attention_mask=attention_mask,
                decoder_input_ids=decoder_input_ids, labels=labels)


def spread_weights(model, seed):
    """Projections with unit gain, norms near 1, embeddings giving logits of a few units, so
    outputs depend on the input and near-ties between candidates are rare."""
    g = torch.Generator().manual_seed(seed + 1000)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name in ("shared.weight", "lm_head.weight"):
                p.copy_(torch.randn(p.shape, generator=g) * 2.0 / math.sqrt(model.config.d_model))
            elif "layer_norm" in name:
                p.copy_(1.0 + torch.randn(p.shape, generator=g) * 0.1)
            elif "relative_attention_bias" in name:
                p.copy_(torch.randn(p.shape, generator=g) * 0.5)
            else:
                p.copy_(torch.randn(p.shape, generator=g) / math.sqrt(p.shape[1]))
    return model


def train_tiny_spiece(out_dir, texts, vocab_size=200):
    """A SentencePiece unigram model with T5's settings (pad 0, eos 1, unk 2, no BOS, nmt_nfkc),
    coverage below 1 so rare characters are unknown; returns the slow T5Tokenizer on it."""
    import sentencepiece as spm
    from transformers import T5Tokenizer

    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(texts), model_prefix=str(out_dir / "spiece"), vocab_size=vocab_size,
        model_type="unigram", pad_id=0, eos_id=1, unk_id=2, bos_id=-1, character_coverage=0.98,
        normalization_rule_name="nmt_nfkc", minloglevel=2)
    return T5Tokenizer(vocab_file=str(out_dir / "spiece.model"), legacy=True)
