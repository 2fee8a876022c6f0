// The decoder self-attention's key/value cache shared by the incremental decoders. Per
// layer, the keys and values of the tokens fed so far, laid out (R, t, width) contiguous for
// the current length t. Each step re-lays it out to (R, t + 1, width) and, in the same copy,
// gathers rows by the pending beam reorder; the new token's key and value then fill the last
// slot. The copy is what reorder_cache's index_select costs anyway.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "precis/core/arena.h"

namespace precis {

class SelfAttentionCache {
 public:
  // Lays out `layers` slabs of (rows, max_len, width) for keys and for values, plus a spare.
  void lay_out(Arena& arena, int64_t layers, int64_t rows, int64_t max_len, int64_t width);

  // Forget reorders (a new batch).
  void reset() { pending_sources_.clear(); }
  // From the next grow() on, row r continues what row sources[r] holds now (composes).
  void reorder(std::span<const int32_t> sources);
  // Before feeding position t: every layer becomes (R, t + 1, width), the pending reorder
  // applied to its first t positions.
  void grow(int64_t t);
  // Writes the new position's key and value (R, 1, width) into slot t of a layer.
  void append(size_t layer, const Tensor& k_new, const Tensor& v_new, int64_t t);

  const Tensor& keys(size_t layer) const { return layers_[layer].k; }
  const Tensor& values(size_t layer) const { return layers_[layer].v; }

 private:
  struct Layer {
    Tensor k, v;  // (R, length, width) live part of a slab of R * max_len * width
  };
  std::vector<Layer> layers_;
  Tensor spare_slab_;  // the slab the next re-layout copies into (then swapped in)
  std::vector<int32_t> pending_sources_;  // empty: identity
  int64_t rows_ = 0, max_len_ = 0, width_ = 0;
};

}  // namespace precis
