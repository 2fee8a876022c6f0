// The parameter types both model families are made of (a linear layer, a norm, attention, a
// feed-forward) and how a parameter is visited: every tensor of a model is visited with its
// Hugging Face state-dict name and role, and loading, saving, the optimizer's groups and the
// gradient buckets all go through that one visit (bart_params.h, t5_params.h).
#pragma once

#include <functional>
#include <string>

#include "precis/core/tensor.h"

namespace precis {

struct LinearParams {
  Tensor weight;  // (out, in)
  Tensor bias;    // (out)
};

struct LayerNormParams {
  Tensor weight;  // (d)
  Tensor bias;    // (d)
};

struct AttentionParams {
  LinearParams q_proj, k_proj, v_proj, out_proj;  // each (d, d) + (d)
};

struct FeedForwardParams {
  LinearParams fc1;  // (ffn, d) + (ffn)
  LinearParams fc2;  // (d, ffn) + (d)
};

// How a tensor takes part in training.
enum class ParamRole {
  Trainable,         // in the optimizer; weight decay applies
  TrainableNoDecay,  // in the optimizer, no weight decay (biases and LayerNorm weights, as HF)
  Buffer,            // state but not a parameter (final_logits_bias)
};

using ParamVisitor =
    std::function<void(const std::string& hf_name, Tensor& slot, Shape shape, ParamRole role)>;

// The LM head (V, d) of either family: when tied, the shared embedding's own view, not visited
// (it is visited as the embedding); else its own tensor, "lm_head.weight".
inline void visit_lm_head(bool tied, Tensor& lm_head, const Tensor& shared, int64_t vocab,
                          int64_t d, const ParamVisitor& visit) {
  if (tied)
    lm_head = shared;
  else
    visit("lm_head.weight", lm_head, Shape{vocab, d}, ParamRole::Trainable);
}

}  // namespace precis
