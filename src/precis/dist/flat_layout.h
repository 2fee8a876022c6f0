// Where each trainable tensor sits in the flat parameter range (model/common/flat_parameters.h
// lays a model's tensors out and describes them so): what the gradient buckets, the sharded
// optimizer and the weight-decay mask need to know of a model, and nothing of its family.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "precis/core/tensor.h"

namespace precis::dist {

struct FlatTensor {
  std::string name;  // Hugging Face name
  int64_t offset;    // in floats from the start of the range
  int64_t numel;
  bool decays;  // takes weight decay (ParamRole::Trainable: not a bias or LayerNorm weight)
  int stage;    // the backward stage after which its gradient is final (bart_stages.h, t5_stages.h)
};

struct FlatLayout {
  std::vector<FlatTensor> tensors;  // trainable tensors in visit (address) order
  int64_t size = 0;                 // floats from the first tensor's start to the last's end
};

// A model's gradients as data parallelism's buckets see them: the flat range, where each tensor
// sits, and the backward stage after which all are final.
struct FlatGradients {
  Tensor flat;
  FlatLayout layout;
  int final_stage = 0;
};

// Hugging Face's two parameter groups as bits over [begin, end) of the range: bit j (bit
// j % 32 of word j / 32) is set iff element begin + j belongs to a tensor that decays. Gaps
// have no decay.
std::vector<uint32_t> weight_decay_mask(const FlatLayout& layout, int64_t begin, int64_t end);

}  // namespace precis::dist
