"""Tiny random BART checkpoints made with the real transformers classes, and the texts and
generation settings they are run with."""
import math
import shutil

import torch
from transformers import AutoTokenizer, BartConfig, BartForConditionalGeneration

from probe_support import padded_batch

# Configurations that differ in width, depth, heads, activation and scale_embedding.
CONFIGS = {
    "narrow-gelu": dict(d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                        decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64,
                        activation_function="gelu", scale_embedding=False),
    "wide-relu-scaled": dict(d_model=48, encoder_layers=1, decoder_layers=3, encoder_attention_heads=3,
                             decoder_attention_heads=6, encoder_ffn_dim=40, decoder_ffn_dim=96,
                             activation_function="relu", scale_embedding=True),
    "deep-gelunew-untied": dict(d_model=24, encoder_layers=3, decoder_layers=1, encoder_attention_heads=2,
                                decoder_attention_heads=1, encoder_ffn_dim=56, decoder_ffn_dim=32,
                                activation_function="gelu_new", scale_embedding=True,
                                tie_word_embeddings=False),
    "silu-positions": dict(d_model=16, encoder_layers=2, decoder_layers=2, encoder_attention_heads=2,
                           decoder_attention_heads=2, encoder_ffn_dim=24, decoder_ffn_dim=24,
                           activation_function="silu", max_position_embeddings=40),
    # Heads 16 wide: the CPU's decoding kernels take these (AVX-512: the attention of a few
    # queries, the self-attention cache read in place through its key rows).
    "heads-of-16": dict(d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=2,
                        decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64,
                        activation_function="gelu", scale_embedding=False),
}


# Dialogues and sentences the checkpoints summarize in the generation and server tests.
TEXTS = [
    "Amanda: I baked cookies. Do you want some?\nJerry: Sure!\nAmanda: I'll bring you tomorrow :-)",
    "Hello world",
    "The quick brown fox jumps over the lazy dog.",
    "Summaries are short; dialogues are long and have many turns between speakers.",
    "precis fine-tunes sequence-to-sequence transformers for summarization. The quick brown fox.",
    "Café déjà vu, naïve façade, Zoë's résumé.",
    "I'm sure you'll see they've done it, isn't it? We'd say it's John's.",
]

# bart-large-cnn's generation settings with the lengths scaled down to a tiny model
# (max_length 142 -> 30, min_length 56 -> 12), as legacy keys of config.json plus the
# generation_config.json that save_pretrained derives from them (as on the Hub).
CNN = dict(num_beams=4, length_penalty=2.0, max_length=30, min_length=12, no_repeat_ngram_size=3,
           early_stopping=True, forced_bos_token_id=0, forced_eos_token_id=2)


def make_bart(name, vocab_size, seed=0, dropout=0.0, **overrides):
    """A random BartForConditionalGeneration; final_logits_bias randomised so it is tested."""
    torch.manual_seed(seed)
    kwargs = dict(vocab_size=vocab_size, max_position_embeddings=128, dropout=dropout,
                  attention_dropout=dropout, activation_dropout=dropout, pad_token_id=1,
                  bos_token_id=0, eos_token_id=2, decoder_start_token_id=2, forced_eos_token_id=2)
    kwargs.update(CONFIGS[name])
    kwargs.update(overrides)
    model = BartForConditionalGeneration(BartConfig(**kwargs))
    with torch.no_grad():
        # Larger than init_std so that layer norms and attention see non-trivial inputs.
        for p in model.parameters():
            p.normal_(0.0, 0.3)
        model.final_logits_bias.normal_(0.0, 0.5)
    return model.eval()


def spread_weights(model, seed, eos_bias=4.0):
    """Re-draws the weights: projections with unit gain, LayerNorms near identity, embeddings
    of std 2/sqrt(d) (logits of a few units), a random final_logits_bias plus an EOS bias; so
    that outputs depend on the input, beams finish by EOS as well as at max_length, and
    near-ties between candidates are rare."""
    g = torch.Generator().manual_seed(seed + 1000)
    emb_std = 2.0 / math.sqrt(model.config.d_model)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() == 2 and ("embed" in name or "shared" in name or "lm_head" in name):
                p.copy_(torch.randn(p.shape, generator=g) * emb_std)
            elif p.dim() == 2:
                p.copy_(torch.randn(p.shape, generator=g) / math.sqrt(p.shape[1]))
            elif "layer_norm" in name or "layernorm" in name:
                base = 1.0 if name.endswith("weight") else 0.0
                p.copy_(base + torch.randn(p.shape, generator=g) * 0.1)
            else:
                p.copy_(torch.randn(p.shape, generator=g) * 0.1)
        model.final_logits_bias.copy_(torch.randn(model.final_logits_bias.shape, generator=g) * 0.5)
        model.final_logits_bias[0, 2] += eos_bias
    return model


def save_model(tokenizer_dir, out_dir, name, seed, eos_bias=4.0, **config):
    """make_bart's `name` re-drawn by spread_weights, saved with the tokenizer of tokenizer_dir
    (and `config`'s generation settings) in out_dir; returns HF's reload of it and the tokenizer."""
    shutil.copytree(tokenizer_dir, out_dir, dirs_exist_ok=True)
    tok = AutoTokenizer.from_pretrained(out_dir)
    model = spread_weights(make_bart(name, len(tok), seed=seed, **config), seed, eos_bias)
    model.save_pretrained(out_dir)
    return BartForConditionalGeneration.from_pretrained(out_dir).eval(), tok


def random_batch(vocab_size, batch=3, source_len=11, target_len=7, seed=1):
    """Right-padded inputs of unequal lengths, labels with -100 padding, shifted decoder inputs."""
    input_ids, attention_mask, labels = padded_batch(vocab_size, batch, source_len, target_len, seed,
                                                     first_id=4, bos=0, eos=2, pad=1, source_step=3)
    from transformers.models.bart.modeling_bart import shift_tokens_right
    decoder_input_ids = shift_tokens_right(labels, 1, 2)
    return dict(input_ids=input_ids, attention_mask=attention_mask,
                decoder_input_ids=decoder_input_ids, labels=labels)
