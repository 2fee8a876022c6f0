// The trainable parameters (or their gradients, or optimizer state with their layout) seen
// as one flat float buffer: allocate_parameters lays the trainable tensors out first and in
// visit order in one arena, so from the first tensor to the end of the last is one range,
// with only alignment gaps between tensors. Collectives run on the whole range (or on
// byte ranges of it), and each tensor is found at its offset.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "precis/model/seq2seq_family.h"

namespace precis::dist {

struct FlatTensor {
  std::string name;  // Hugging Face name
  int64_t offset;    // in floats from the start of the range
  int64_t numel;
  ParamRole role;
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

// When a tensor's gradient is final during bart_backward: the backward stage (see
// BartGradScratch::stage_done) after which nothing adds to it. The LM head first, each
// decoder layer from the last, the decoder embeddings, each encoder layer from the last,
// and last the encoder embeddings with the shared token embedding.
int backward_stage(const BartConfig& config, const std::string& hf_name);
int final_backward_stage(const BartConfig& config);
// The same for t5_backward (T5GradScratch::stage_done): an untied LM head with the decoder's
// final norm first, each decoder block from the last (block 0 with the relative bias table
// every block adds to), the encoder's final norm, each encoder block from the last, and last
// the shared token embedding (a tied LM head is that tensor).
int backward_stage(const T5Config& config, const std::string& hf_name);
int final_backward_stage(const T5Config& config);

}  // namespace precis::dist
