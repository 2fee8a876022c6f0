#include "precis/model/common/self_attention_cache.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "precis/kernels/copy.h"

namespace precis {

void SelfAttentionCache::lay_out(Arena& a, int64_t layers, int64_t rows, int64_t max_len,
                                 int64_t width, bool in_place) {
  rows_ = rows;
  max_len_ = max_len;
  width_ = width;
  in_place_ = in_place;
  layers_.assign(size_t(layers), {});
  for (auto& l : layers_) {
    l.k = a.alloc({rows, max_len, width});
    l.v = a.alloc({rows, max_len, width});
  }
  if (in_place) {
    key_rows_.assign(size_t(rows * max_len), 0);
    composed_.assign(key_rows_.size(), 0);
  } else {
    spare_slab_ = a.alloc({rows, max_len, width});
  }
  reset();
}

void SelfAttentionCache::reset() {
  pending_sources_.clear();
  length_ = 0;
  stored_rows_ = rows_;
}

void SelfAttentionCache::keep_rows(std::span<const int32_t> kept) {
  std::vector<int32_t> sources(kept.size());
  for (size_t i = 0; i < kept.size(); ++i) {
    check(kept[i] >= 0 && kept[i] < rows_,
          "keep_rows: row " + std::to_string(kept[i]) + " of " + std::to_string(rows_));
    sources[i] = pending_sources_.empty() ? kept[i] : pending_sources_[size_t(kept[i])];
  }
  const int64_t rows = int64_t(kept.size());
  if (!in_place_) {  // the next grow() gathers the kept rows as it re-lays the layers out
    pending_sources_ = std::move(sources);
    rows_ = rows;
    return;
  }
  // In place (the CPU's host memory): position p of kept row i is in the row the table names;
  // each position moves to row i of the slab, through a buffer (rows may swap).
  const size_t span =
      size_t(width_) * dtype_size(layers_.empty() ? DType::F32 : layers_[0].k.dtype);
  std::vector<char> moved(size_t(rows * length_) * span);
  for (auto& layer : layers_) {
    for (Tensor* cache : {&layer.k, &layer.v}) {
      check(cache->device.is_cpu(), "keep_rows: an in-place cache outside host memory");
      char* slab = static_cast<char*>(cache->ptr);
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t p = 0; p < length_; ++p) {
          const int64_t held = key_rows_[size_t(sources[size_t(i)] * max_len_ + p)];
          std::memcpy(moved.data() + size_t(i * length_ + p) * span,
                      slab + size_t(held * max_len_ + p) * span, span);
        }
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t p = 0; p < length_; ++p)
          std::memcpy(slab + size_t(i * max_len_ + p) * span,
                      moved.data() + size_t(i * length_ + p) * span, span);
      *cache = cache->slice(0, rows);
    }
  }
  key_rows_.assign(size_t(rows * max_len_), 0);
  composed_.assign(key_rows_.size(), 0);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t p = 0; p < length_; ++p) key_rows_[size_t(i * max_len_ + p)] = int32_t(i);
  pending_sources_.clear();
  rows_ = rows;
}

void SelfAttentionCache::reorder(std::span<const int32_t> sources) {
  check(int64_t(sources.size()) == rows_, "reorder: " + std::to_string(sources.size()) +
                                              " sources for " + std::to_string(rows_) + " rows");
  for (int32_t s : sources)
    check(s >= 0 && s < rows_, "reorder: source row " + std::to_string(s) + " out of range");
  if (pending_sources_.empty()) {
    pending_sources_.assign(sources.begin(), sources.end());
  } else {  // two reorders before a step compose
    std::vector<int32_t> composed(static_cast<size_t>(rows_));
    for (int64_t r = 0; r < rows_; ++r) composed[size_t(r)] = pending_sources_[size_t(sources[r])];
    pending_sources_ = std::move(composed);
  }
}

void SelfAttentionCache::grow(int64_t t) {
  const int64_t w = width_, R = rows_;
  length_ = t + 1;
  if (in_place_) {
    // Row r continues row sources[r]: its first t positions are where that row's are.
    if (!pending_sources_.empty()) {
      for (int64_t r = 0; r < R; ++r)
        std::copy_n(key_rows_.begin() + pending_sources_[size_t(r)] * max_len_, t,
                    composed_.begin() + r * max_len_);
      key_rows_.swap(composed_);  // positions t.. are written before they are read
    }
    for (int64_t r = 0; r < R; ++r) key_rows_[size_t(r * max_len_ + t)] = int32_t(r);
    pending_sources_.clear();
    return;
  }
  for (auto& layer : layers_) {
    for (Tensor* cache : {&layer.k, &layer.v}) {
      Tensor next = spare_slab_.prefix({R, t + 1, w});
      gather_rows(cache->prefix({stored_rows_, t, w}), pending_sources_, next);
      Tensor old_slab = *cache;  // becomes the spare
      old_slab.shape = Shape({R, max_len_, w});
      spare_slab_ = old_slab;
      *cache = next;
    }
  }
  stored_rows_ = R;
  pending_sources_.clear();
}

AttentionMask SelfAttentionCache::reading(AttentionMask mask) const {
  if (!in_place_) return mask;
  mask.key_rows = Tensor{const_cast<int32_t*>(key_rows_.data()), Shape({rows_, max_len_}),
                         DType::I32, Device::cpu()};
  mask.live_keys = length_;
  return mask;
}

void SelfAttentionCache::append(size_t layer, const Tensor& k_new, const Tensor& v_new, int64_t t) {
  append_rows(k_new.view({rows_, width_}), t, layers_[layer].k);
  append_rows(v_new.view({rows_, width_}), t, layers_[layer].v);
}

}  // namespace precis
