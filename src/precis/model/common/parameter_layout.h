// How a model's parameters sit in its arena, written once over the families' visit_parameters
// (bart_params.h, t5_params.h): each tensor zero-initialised in visiting order, trainable
// tensors first and contiguous (they are what the optimizer and the gradient buffer see), then
// the buffers; a tied lm_head is a second view of `shared`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "precis/core/arena.h"
#include "precis/model/common/parameters.h"

namespace precis {

// Params: BartParams or T5Params; Config: its config. Pass Arena::measuring() to size it.
// dtype: F32 for the master weights, gradients and optimizer state; BF16 or F16 for a 16-bit
// compute copy (compute_copy.h), laid out the same way.
template <class Config, class Params>
void lay_out_parameters(const Config& c, Params& p, Arena& arena, DType dtype = DType::F32) {
  visit_parameters(c, p, [&](const std::string&, Tensor& slot, Shape shape, ParamRole role) {
    if (role != ParamRole::Buffer) slot = arena.zeros(shape, dtype);
  });
  visit_parameters(c, p, [&](const std::string&, Tensor& slot, Shape shape, ParamRole role) {
    if (role == ParamRole::Buffer) slot = arena.zeros(shape, dtype);
  });
  if (c.tie_word_embeddings) p.lm_head = p.shared;
}

// Bytes lay_out_parameters needs.
template <class Params, class Config>
size_t measure_parameter_bytes(const Config& c, DType dtype = DType::F32) {
  Arena measure = Arena::measuring();
  Params p;
  lay_out_parameters(c, p, measure, dtype);
  return measure.used();
}

// Trainable elements (buffers not counted), as HF's num_parameters().
template <class Params, class Config>
int64_t count_trainable_parameters(const Config& c) {
  Params p;
  int64_t n = 0;
  visit_parameters(c, p, [&](const std::string&, Tensor&, Shape shape, ParamRole role) {
    if (role != ParamRole::Buffer) n += shape.numel();
  });
  return n;
}

}  // namespace precis
