// T5 (transformers 4.44 models/t5/modeling_t5.py, T5ForConditionalGeneration): pre-norm
// encoder-decoder with RMSNorm, a relative position bias computed from block 0's table and
// reused by every block of its stack, unscaled attention, ReLU or gated-GELU feed-forwards,
// and an LM head tied to the embeddings with a d_model^-0.5 rescale (v1.0) or untied (v1.1 /
// FLAN-T5).
#pragma once

#include <vector>

#include "precis/data/seq2seq_batch.h"
#include "precis/kernels/cross_entropy.h"
#include "precis/model/common/dropout_context.h"
#include "precis/model/common/seq2seq_grad_scratch.h"
#include "precis/model/t5/t5_layers.h"

namespace precis {

struct T5EncoderBlockActivations {
  RmsNormActivations self_attn_norm;
  AttentionActivations self_attn;
  Tensor residual1;  // (B, S, d)
  RmsNormActivations ffn_norm;
  T5FeedForwardActivations ffn;
  Tensor residual2;  // (B, S, d) the block's output
};

struct T5DecoderBlockActivations {
  RmsNormActivations self_attn_norm;
  AttentionActivations self_attn;
  Tensor residual1;  // (B, T, d)
  RmsNormActivations cross_attn_norm;
  AttentionActivations cross_attn;
  Tensor residual2;
  RmsNormActivations ffn_norm;
  T5FeedForwardActivations ffn;
  Tensor residual3;  // the block's output
};

struct T5Activations {
  int64_t batch = 0, source_len = 0, target_len = 0;
  Tensor encoder_embedded;  // (B, S, d) after dropout
  Tensor encoder_bias;      // (H, S, S) relative position bias of the encoder
  std::vector<T5EncoderBlockActivations> encoder_blocks;
  RmsNormActivations encoder_final_norm;  // out (after dropout) is the encoder output
  Tensor decoder_embedded;  // (B, T, d)
  Tensor decoder_bias;      // (H, T, T)
  std::vector<T5DecoderBlockActivations> decoder_blocks;
  RmsNormActivations decoder_final_norm;
  Tensor head_input;          // (B, T, d) decoder output times lm_head_scale
  Tensor rounded_head_input;  // (B, T, d) mixed precision only: head_input rounded
  Tensor logits;              // (B, T, V)
  Tensor losses;              // (B*T)

  const Tensor& encoder_output() const { return encoder_final_norm.out; }
  // What the LM head multiplies.
  const Tensor& head_linear_input() const {
    return rounded_head_input.ptr ? rounded_head_input : head_input;
  }
  const Tensor& decoder_output() const { return decoder_final_norm.out; }
};

// The stages that stage_done reports (t5_stages.h): the decoder's final norm with an untied
// LM head, each decoder block, the last first, the encoder's final norm, each encoder block,
// the last first.
struct T5GradScratch : Seq2SeqGradScratch {
  Tensor d_normed;  // (B, max(S, T), d) gradient of a sub-layer's normalised input (F32)
  Tensor d_scores;  // (B, H, max(S, T), max(S, T)) self-attention scores, for the bias
  T5FeedForwardGradScratch ffn;
};

T5Activations allocate_activations(const T5Config& config, Arena& arena, int64_t batch,
                                   int64_t source_len, int64_t target_len, bool training);
T5GradScratch allocate_grad_scratch(const T5Config& config, Arena& arena, int64_t batch,
                                    int64_t source_len, int64_t target_len);

// Encoder, decoder and LM head: fills `acts` up to acts.logits. batch.decoder_input_ids are
// the labels shifted right with decoder_start_token_id (= pad), as BART's.
void t5_forward(const T5Config& config, const T5Params& params, const Seq2SeqBatch& batch,
                T5Activations& acts, const DropoutContext& dropout = {});

// The encoder alone (what generation runs once): fills acts up to encoder_output(). Ids
// `known` to be in the vocabulary (CheckedIds) are not checked again.
void t5_encoder_forward(const T5Config& config, const T5Params& params, const Tensor& input_ids,
                        const Tensor& attention_mask, T5Activations& acts,
                        const DropoutContext& dropout = {}, CheckedIds known = {});

// Backward of loss_scale * Σ per-token loss; parameter gradients accumulate into `grads`,
// acts.logits is overwritten with its gradient. `dropout`: the forward's context.
void t5_backward(const T5Config& config, const T5Params& params, const Seq2SeqBatch& batch,
                 T5Activations& acts, const DropoutContext& dropout, float label_smoothing,
                 float loss_scale, T5Params& grads, T5GradScratch& scratch);

}  // namespace precis
