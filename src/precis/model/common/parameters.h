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

}  // namespace precis
