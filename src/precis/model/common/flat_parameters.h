// The trainable parameters (or their gradients, or optimizer state with their layout) seen
// as one flat float buffer: allocate_parameters lays the trainable tensors out first and in
// visit order in one arena, so from the first tensor to the end of the last is one range,
// with only alignment gaps between tensors. Collectives run on the whole range (or on
// byte ranges of it), and each tensor is found at its offset.
#pragma once

#include "precis/dist/flat_layout.h"
#include "precis/model/common/seq2seq_family.h"

namespace precis {

// The layout of `params`' trainable tensors; throws if they are not one ascending range.
template <class Config>
dist::FlatLayout flat_layout(const Config& config, ParamsOf<Config>& params);

// The range as one 1-D tensor, a typed flat buffer (pointer, count, dtype and device are the
// parameters'): what the collectives, the optimizer, the gradient norm and zeroing run on,
// once per step instead of once per tensor. The alignment gaps are zeros (Arena::zeros) and
// stay zeros through every one of them.
template <class Config>
Tensor flat_tensor(const Config& config, ParamsOf<Config>& params);

// What the gradient all-reduce's buckets need (dist/gradient_buckets.h).
template <class Config>
dist::FlatGradients flat_gradients(const Config& config, ParamsOf<Config>& grads) {
  return {flat_tensor(config, grads), flat_layout(config, grads), final_backward_stage(config)};
}

}  // namespace precis
