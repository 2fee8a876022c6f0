// The decoder self-attention's key/value cache shared by the incremental decoders: per layer,
// the keys and values of the tokens fed so far, and beam search's reorders of its rows. Two
// ways to apply a reorder, chosen where the cache is laid out:
// - in place (where attention_reads_in_place: the CPU's decoding kernel): the keys never move.
//   Position p of row r stays where row r wrote it, and a table key_rows[r, p] says which row
//   holds position p of what row r continues now; a reorder rewrites the table (rows x length
//   integers), and attention reads each key through it.
// - by copy (elsewhere): each step re-lays the layers out to (R, t + 1, width) and, in the same
//   copy, gathers the rows by the pending reorder (what reorder_cache's index_select costs).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "precis/core/arena.h"
#include "precis/kernels/attention.h"

namespace precis {

class SelfAttentionCache {
 public:
  // Lays out `layers` slabs of (rows, max_len, width) for keys and for values, plus a spare
  // (copying) or the table (in place).
  void lay_out(Arena& arena, int64_t layers, int64_t rows, int64_t max_len, int64_t width,
               bool in_place);

  // Forget reorders (a new batch).
  void reset();
  // From the next grow() on, row r continues what row sources[r] holds now (composes).
  void reorder(std::span<const int32_t> sources);
  // From the next grow() on, only rows `kept` remain (indices into the rows, a pending reorder
  // applied first), in that order: a finished input's rows leave the batch. In place, the kept
  // rows' positions are copied to the first rows (the table restarts as the identity).
  void keep_rows(std::span<const int32_t> kept);
  // Before feeding position t: every layer holds t + 1 positions per row, the pending reorder
  // applied to the first t.
  void grow(int64_t t);
  // Writes the new position's key and value (R, 1, width) into slot t of a layer.
  void append(size_t layer, const Tensor& k_new, const Tensor& v_new, int64_t t);

  // A layer's keys and values, (R, t + 1, width) by copy or (R, max_len, width) in place.
  const Tensor& keys(size_t layer) const { return layers_[layer].k; }
  const Tensor& values(size_t layer) const { return layers_[layer].v; }
  // `mask` with what attention needs to read the cache: in place, the table and the live
  // positions; by copy, nothing more.
  AttentionMask reading(AttentionMask mask) const;

 private:
  struct Layer {
    Tensor k, v;  // by copy: (R, length, width), the live part of a slab of R * max_len * width
  };
  std::vector<Layer> layers_;
  Tensor spare_slab_;  // by copy: the slab the next re-layout copies into (then swapped in)
  std::vector<int32_t> pending_sources_;  // empty: identity
  bool in_place_ = false;
  std::vector<int32_t> key_rows_, composed_;  // in place: (R, max_len), and the next table
  int64_t rows_ = 0, max_len_ = 0, width_ = 0, length_ = 0;
  int64_t stored_rows_ = 0;  // by copy: the rows the layers hold now (rows_ until keep_rows)
};

}  // namespace precis
