// T5's parameters (the state dict of T5ForConditionalGeneration, transformers 4.44
// models/t5/modeling_t5.py) as views into one flat arena, visited with their Hugging Face
// state-dict names. Projections have no biases: their LinearParams::bias stays undefined,
// which the shared layer functions and linear kernels skip.
#pragma once

#include <string>
#include <vector>

#include "precis/core/arena.h"
#include "precis/model/common/parameters.h"
#include "precis/model/t5/t5_config.h"

namespace precis {

// DenseReluDense: wi (relu) or wi_0 + wi_1 (gated), then wo.
struct T5FeedForwardParams {
  LinearParams wi;          // (d_ff, d), v1.0 only
  LinearParams wi_0, wi_1;  // (d_ff, d) each, gated only: act(wi_0 x) ⊙ wi_1 x
  LinearParams wo;          // (d, d_ff)
};

struct T5EncoderBlockParams {
  Tensor self_attn_norm;     // (d) layer.0.layer_norm
  AttentionParams self_attn;  // q, k, v (H·d_kv, d); o (d, H·d_kv)
  Tensor ffn_norm;           // (d) layer.1.layer_norm
  T5FeedForwardParams ffn;
};

struct T5DecoderBlockParams {
  Tensor self_attn_norm;       // layer.0.layer_norm
  AttentionParams self_attn;
  Tensor cross_attn_norm;      // layer.1.layer_norm
  AttentionParams cross_attn;  // EncDecAttention: queries from the decoder
  Tensor ffn_norm;             // layer.2.layer_norm
  T5FeedForwardParams ffn;
};

struct T5Params {
  Tensor shared;                  // (V, d) token embeddings of both stacks (and the tied head)
  Tensor encoder_relative_bias;   // (num_buckets, H) block 0's, reused by every encoder block
  std::vector<T5EncoderBlockParams> encoder_blocks;
  Tensor encoder_final_norm;      // (d)
  Tensor decoder_relative_bias;   // (num_buckets, H)
  std::vector<T5DecoderBlockParams> decoder_blocks;
  Tensor decoder_final_norm;      // (d)
  Tensor lm_head;                 // (V, d); the same view as `shared` when tied
};

// Every distinct tensor once, in HF state-dict order; a tied lm_head is not visited.
// Roles follow the Trainer's decay rule for T5: RMSNorm weights (T5LayerNorm is in
// ALL_LAYERNORM_LAYERS) and relative_attention_bias (its name holds "bias") get no decay.
void visit_parameters(const T5Config& config, T5Params& params, const ParamVisitor& visit);

void allocate_parameters(const T5Config& config, T5Params& params, Arena& arena);
size_t parameter_bytes(const T5Config& config);
int64_t parameter_count(const T5Config& config);

}  // namespace precis
