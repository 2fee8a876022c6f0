// The decoder tokens of every running row so far (start token first), kept twice: on the
// decoding device for the logits processors (kernels/decoding.h reads it there), and on the host
// for the beam scorer and the output. Beam search reorders rows between steps.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "precis/core/arena.h"
#include "precis/core/tensor.h"

namespace precis::generate {

class TokenHistory {
 public:
  // `rows` rows of at most max_length tokens each, starting with `start`, on `device`.
  TokenHistory(int64_t rows, int64_t max_length, int32_t start, Device device);

  // Appends one token per row (host ids).
  void append(std::span<const int32_t> tokens);
  // Row r becomes row sources[r]'s history, then takes tokens[r].
  void reorder_and_append(std::span<const int32_t> sources, std::span<const int32_t> tokens);

  // (rows, max_length, 1) I32 on the device; the first length() of each row are valid.
  const Tensor& device_tokens() const { return tokens_; }
  int64_t length() const { return length_; }
  const std::vector<std::vector<int32_t>>& rows() const { return host_; }

 private:
  Arena arena_;
  Tensor tokens_, spare_, step_;  // spare_: the reorder's target; step_: one token per row
  int64_t length_ = 1;
  std::vector<std::vector<int32_t>> host_;
};

}  // namespace precis::generate
