// BART (BartForConditionalGeneration): post-LN encoder-decoder with learned positions
// (offset 2), layernorm_embedding, no final layer norm, LM head tied to the embeddings
// plus final_logits_bias (transformers 4.44 models/bart/modeling_bart.py,
// BartForConditionalGeneration.forward).
#pragma once

#include <vector>

#include "precis/data/seq2seq_batch.h"
#include "precis/kernels/cross_entropy.h"
#include "precis/model/bart/bart_params.h"
#include "precis/model/common/dropout_context.h"
#include "precis/model/common/layers.h"
#include "precis/model/common/seq2seq_grad_scratch.h"

namespace precis {

struct BartEncoderLayerActivations {
  AttentionActivations self_attn;
  Tensor residual1;  // (B, S, d) input + self-attention
  LayerNormActivations self_attn_layer_norm;
  FeedForwardActivations ffn;
  Tensor residual2;  // (B, S, d)
  LayerNormActivations final_layer_norm;  // its out is the layer's output
};

struct BartDecoderLayerActivations {
  AttentionActivations self_attn;
  Tensor residual1;  // (B, T, d)
  LayerNormActivations self_attn_layer_norm;
  AttentionActivations encoder_attn;
  Tensor residual2;  // (B, T, d)
  LayerNormActivations encoder_attn_layer_norm;
  FeedForwardActivations ffn;
  Tensor residual3;  // (B, T, d)
  LayerNormActivations final_layer_norm;
};

struct BartActivations {
  int64_t batch = 0, source_len = 0, target_len = 0;
  Tensor encoder_embedded;  // (B, S, d) token * embed_scale + position
  LayerNormActivations encoder_layernorm_embedding;
  std::vector<BartEncoderLayerActivations> encoder_layers;
  Tensor decoder_embedded;  // (B, T, d)
  LayerNormActivations decoder_layernorm_embedding;
  std::vector<BartDecoderLayerActivations> decoder_layers;
  Tensor logits;          // (B, T, V) F32
  Tensor rounded_logits;  // (B, T, V) mixed precision only: lm_head's 16-bit product, and in
                          // the backward the logits' gradient rounded for it
  Tensor losses;          // (B*T) per-token loss

  // The stacks' outputs: their last norms (out (B, S|T, d), and the rounded copy).
  const LayerNormActivations& encoder_output() const;
  const LayerNormActivations& decoder_output() const;
};

// Gradient scratch for one step: activation gradients, reused layer after layer. The stages
// that stage_done reports (bart_stages.h): each decoder layer, the last first, the decoder
// embeddings, each encoder layer, the last first.
struct BartGradScratch : Seq2SeqGradScratch {
  Tensor d_ffn;  // (B, max(S, T), max ffn)
};

// Lays out the activations for a (batch, source_len, target_len) step; `training` keeps
// what the backward needs (attention probabilities). Use a measuring arena to size it.
BartActivations allocate_activations(const BartConfig& config, Arena& arena, int64_t batch,
                                     int64_t source_len, int64_t target_len, bool training);

// One encoder layer's share of allocate_activations.
BartEncoderLayerActivations allocate_encoder_layer(const BartConfig& config, Arena& arena,
                                                   int64_t batch, int64_t source_len,
                                                   bool training);

// One encoder layer, x -> LN(r1), r1 = x + SelfAttn(x) -> LN(r1' + FFN(r1')), into `acts`;
// `layer` numbers its dropout streams; x is the norm before it.
void bart_encoder_layer_forward(const BartConfig& config, const BartEncoderLayerParams& params,
                                const LayerNormActivations& x, const AttentionMask& source_mask,
                                const DropoutContext& dropout, uint32_t layer,
                                BartEncoderLayerActivations& acts);

BartGradScratch allocate_grad_scratch(const BartConfig& config, Arena& arena, int64_t batch,
                                      int64_t source_len, int64_t target_len);

// Encoder, decoder and LM head: fills `acts` up to acts.logits.
void bart_forward(const BartConfig& config, const BartParams& params, const Seq2SeqBatch& batch,
                  BartActivations& acts, const DropoutContext& dropout = {});

// Backward of loss_scale * Σ per-token loss (loss_scale = 1 / counted tokens gives the
// gradient of the mean). Parameter gradients accumulate into `grads` (+=); acts.logits is
// overwritten with its gradient. `dropout` must be the context the forward ran with.
void bart_backward(const BartConfig& config, const BartParams& params, const Seq2SeqBatch& batch,
                   BartActivations& acts, const DropoutContext& dropout, float label_smoothing,
                   float loss_scale, BartParams& grads, BartGradScratch& scratch);

}  // namespace precis
