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

// The range itself.
template <class Config>
std::span<float> flat_span(const Config& config, ParamsOf<Config>& params);

}  // namespace precis::dist
