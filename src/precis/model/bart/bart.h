// BART (BartForConditionalGeneration): post-LN encoder-decoder with learned positions
// (offset 2), layernorm_embedding, no final layer norm, LM head tied to the embeddings
// plus final_logits_bias (transformers 4.44 models/bart/modeling_bart.py,
// BartForConditionalGeneration.forward).
#pragma once

#include <functional>

#include <vector>

#include "precis/data/seq2seq_batch.h"
#include "precis/kernels/cross_entropy.h"
#include "precis/model/bart/bart_params.h"
#include "precis/model/common/dropout_context.h"
#include "precis/model/common/layers.h"

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
  Tensor logits;  // (B, T, V)
  Tensor losses;  // (B*T) per-token loss

  const Tensor& encoder_output() const;  // (B, S, d)
  const Tensor& decoder_output() const;  // (B, T, d)
};

// Gradient scratch for one step: activation gradients, reused layer after layer.
struct BartGradScratch {
  Tensor d_hidden;         // (B, max(S, T), d) gradient of the running hidden state
  Tensor d_branch;         // (B, max(S, T), d) gradient of a block's output branch
  Tensor d_ffn;            // (B, max(S, T), max ffn)
  Tensor d_encoder_output; // (B, S, d) summed over the decoder's cross-attentions
  AttentionGradScratch attention;
  // Optional: called as the backward ends each stage (bart_stages.h: after each decoder layer,
  // the last first, after the decoder embeddings, after each encoder layer, the last first).
  // Data parallelism starts all-reducing the gradients that are final by then.
  std::function<void(int stage)> stage_done;
};

// Lays out the activations for a (batch, source_len, target_len) step; `training` keeps
// what the backward needs (attention probabilities). Use a measuring arena to size it.
BartActivations allocate_activations(const BartConfig& config, Arena& arena, int64_t batch,
                                     int64_t source_len, int64_t target_len, bool training);

// One encoder layer's share of allocate_activations.
BartEncoderLayerActivations allocate_encoder_layer(const BartConfig& config, Arena& arena,
                                                   int64_t batch, int64_t source_len,
                                                   bool training);

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

// Cross-entropy of acts.logits against batch.labels (torch's mean over non-ignored tokens).
CrossEntropyResult bart_loss(const Seq2SeqBatch& batch, BartActivations& acts,
                             float label_smoothing = 0.0f);

}  // namespace precis
