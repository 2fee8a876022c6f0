"""Model FLOPs of one BART training step or forward, counted from the shapes, for MFU.

Multiply-accumulates (x2 for FLOPs) of every matrix product the model must do:
  encoder layer, per source token: q, k, v, o (4 d^2), the FFN (2 d f), and the scores and
    context over all S keys (2 S d);
  decoder layer, per target token: self q, k, v, o (4 d^2), cross q, o (2 d^2), the FFN (2 d f),
    causal self-attention over (T + 1) / 2 keys on average (2 (T + 1)/2 d), cross-attention over
    S keys (2 S d); per source token: the cross k, v projections (2 d^2);
  the LM head, per target token: d V.
A training step is 3x the forward (the backward computes two products for each forward one).
Padding counts as work (the batch is padded), embeddings, norms and softmax do not (they are
memory-bound and a few percent). The same formula will score precis's CUDA step.
"""


def bart_forward_macs(d_model, ffn, encoder_layers, decoder_layers, vocab, batch, source, target):
    enc_token = 4 * d_model**2 + 2 * d_model * ffn + 2 * source * d_model
    dec_token = (6 * d_model**2 + 2 * d_model * ffn + 2 * ((target + 1) / 2) * d_model
                 + 2 * source * d_model)
    cross_kv_per_source = 2 * d_model**2
    macs = batch * source * encoder_layers * enc_token
    macs += batch * target * decoder_layers * dec_token
    macs += batch * source * decoder_layers * cross_kv_per_source
    macs += batch * target * d_model * vocab
    return macs


def bart_train_flops(config, batch, source, target):
    macs = bart_forward_macs(config.d_model, config.encoder_ffn_dim, config.encoder_layers,
                             config.decoder_layers, config.vocab_size, batch, source, target)
    return 3 * 2 * macs
