// The flat layout the weight-decay mask's tests read: a weight, a bias (TrainableNoDecay) and a
// second weight, in that order. A bias that starts past the weight's end leaves the alignment's
// gap between them; the second weight follows the bias directly.
#pragma once

#include <cstdint>

#include "precis/model/common/flat_parameters.h"

namespace precis::testing {

inline dist::FlatLayout weight_bias_weight(int64_t weight, int64_t bias_offset, int64_t bias,
                                           int64_t second_weight) {
  dist::FlatLayout layout;
  layout.tensors = {dist::FlatTensor{"w", 0, weight, true, 0},
                    dist::FlatTensor{"b", bias_offset, bias, false, 0},
                    dist::FlatTensor{"w2", bias_offset + bias, second_weight, true, 0}};
  layout.size = bias_offset + bias + second_weight;
  return layout;
}

}  // namespace precis::testing
