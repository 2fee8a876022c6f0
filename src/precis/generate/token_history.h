// The decoder tokens of every row so far (start token first), kept twice: on the decoding
// device for the logits processors (kernels/decoding.h reads it there), and on the host for the
// beam scorer and the output. Beam search reorders rows between steps, and drops the rows of an
// input whose search has ended from the device copy (keep_rows): the device holds the live rows,
// in order, the host every row.
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

  // Appends one token per row (host ids, every row).
  void append(std::span<const int32_t> tokens);
  // Row r becomes row sources[r]'s history, then takes tokens[r] (every row). A live row's
  // source must be live, but for a row whose input ends at this step (its device row stays).
  void reorder_and_append(std::span<const int32_t> sources, std::span<const int32_t> tokens);
  // Only rows `kept` (row ids, ascending, live) stay live on the device.
  void keep_rows(std::span<const int32_t> kept);

  // (live rows, max_length, 1) I32 on the device; the first length() of each row are valid.
  const Tensor& device_tokens() const { return tokens_; }
  int64_t length() const { return length_; }
  const std::vector<std::vector<int32_t>>& rows() const { return host_; }
  const std::vector<int32_t>& live() const { return live_; }  // row ids of the device's rows

 private:
  // The live rows' entries of a row-indexed host vector, on the device in step_.
  void upload_live(std::span<const int32_t> per_row);

  Arena arena_;
  Tensor tokens_, spare_, step_;  // spare_: the reorder's target; step_: one token per row
  int64_t length_ = 1;
  std::vector<std::vector<int32_t>> host_;
  std::vector<int32_t> live_;  // ascending row ids
};

}  // namespace precis::generate
