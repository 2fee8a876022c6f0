"""Tiny random T5 checkpoints made with the real transformers classes."""
import torch
from transformers import T5Config, T5ForConditionalGeneration

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
}


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
    g = torch.Generator().manual_seed(seed)
    input_ids = torch.randint(2, vocab_size, (batch, source_len), generator=g)
    attention_mask = torch.ones_like(input_ids)
    labels = torch.randint(2, vocab_size, (batch, target_len), generator=g)
    for b in range(batch):
        src = source_len - 4 * b
        tgt = target_len - 2 * b
        input_ids[b, src - 1] = 1
        input_ids[b, src:] = 0
        attention_mask[b, src:] = 0
        labels[b, tgt - 1] = 1
        labels[b, tgt:] = -100
    decoder_input_ids = torch.zeros_like(labels)
    decoder_input_ids[:, 1:] = labels[:, :-1]
    decoder_input_ids[decoder_input_ids == -100] = 0
    return dict(input_ids=input_ids, attention_mask=attention_mask,
                decoder_input_ids=decoder_input_ids, labels=labels)
