// Token ids index tables (embeddings, the vocabulary of the loss), so every op that reads them
// checks them first: an id outside its table is a user's error (a tokenizer that does not
// match the model), reported by value, never a read out of bounds.
#pragma once

#include <cstdint>
#include <optional>

#include "precis/core/tensor.h"

namespace precis {

struct InvalidId {
  int64_t index = -1;  // flat position of the first invalid id; -1: every id is valid
  int32_t id = 0;
};

// What a caller already knows of a tensor of ids: every id is in [0, below) (labels: or -100),
// checked on the host where the ids were built (data::collate). An op whose table has at least
// `below` rows skips its own check, which on a GPU is a host read: a wait for the queue to drain.
struct CheckedIds {
  int64_t below = 0;  // 0: nothing is known
  bool covers(int64_t limit) const { return below > 0 && below <= limit; }
};

// The first id of `ids` (I32) outside [0, limit) other than `allowed` (labels' ignore index).
// One pass in order on the CPU.
InvalidId first_invalid_id(const Tensor& ids, int64_t limit,
                           std::optional<int32_t> allowed = std::nullopt);

}  // namespace precis
