// The trainable parameters (or their gradients, or optimizer state with their layout) seen
// as one flat float buffer: allocate_parameters lays the trainable tensors out first and in
// visit order in one arena, so from the first tensor to the end of the last is one range,
// with only alignment gaps between tensors. Collectives run on the whole range (or on
// byte ranges of it), and each tensor is found at its offset.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "precis/model/bart/bart_stages.h"
#include "precis/model/common/seq2seq_family.h"
#include "precis/model/t5/t5_stages.h"

namespace precis::dist {

struct FlatTensor {
  std::string name;  // Hugging Face name
  int64_t offset;    // in floats from the start of the range
  int64_t numel;
  ParamRole role;
  int stage;  // the backward stage after which its gradient is final (bart_stages.h, t5_stages.h)
};

struct FlatLayout {
  std::vector<FlatTensor> tensors;  // trainable tensors in visit (address) order
  int64_t size = 0;                 // floats from the first tensor's start to the last's end
};

// The layout of `params`' trainable tensors; throws if they are not one ascending range.
template <class Config>
FlatLayout flat_layout(const Config& config, ParamsOf<Config>& params);

// The range as one 1-D tensor, a typed flat buffer (pointer, count, dtype and device are the
// parameters'): what the collectives, the optimizer, the gradient norm and zeroing run on,
// once per step instead of once per tensor. The alignment gaps are zeros (Arena::zeros) and
// stay zeros through every one of them.
template <class Config>
Tensor flat_tensor(const Config& config, ParamsOf<Config>& params);

// Hugging Face's two parameter groups as bits over [begin, end) of the range: bit j (bit
// j % 32 of word j / 32) is set iff element begin + j belongs to a tensor that takes weight
// decay (ParamRole::Trainable: not a bias or LayerNorm weight). Gaps have no decay.
std::vector<uint32_t> weight_decay_mask(const FlatLayout& layout, int64_t begin, int64_t end);

}  // namespace precis::dist
