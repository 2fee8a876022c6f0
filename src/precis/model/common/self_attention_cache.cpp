#include "precis/model/common/self_attention_cache.h"

#include <string>

#include "precis/kernels/copy.h"

namespace precis {

void SelfAttentionCache::lay_out(Arena& a, int64_t layers, int64_t rows, int64_t max_len,
                                 int64_t width) {
  rows_ = rows;
  max_len_ = max_len;
  width_ = width;
  layers_.assign(size_t(layers), {});
  for (auto& l : layers_) {
    l.k = a.alloc({rows, max_len, width});
    l.v = a.alloc({rows, max_len, width});
  }
  spare_slab_ = a.alloc({rows, max_len, width});
  pending_sources_.clear();
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
  for (auto& layer : layers_) {
    for (Tensor* cache : {&layer.k, &layer.v}) {
      Tensor next = spare_slab_.prefix({R, t + 1, w});
      gather_rows(cache->prefix({R, t, w}), pending_sources_, next);
      Tensor old_slab = *cache;  // becomes the spare
      old_slab.shape = Shape({R, max_len_, w});
      spare_slab_ = old_slab;
      *cache = next;
    }
  }
  pending_sources_.clear();
}

void SelfAttentionCache::append(size_t layer, const Tensor& k_new, const Tensor& v_new, int64_t t) {
  append_rows(k_new.view({rows_, width_}), t, layers_[layer].k);
  append_rows(v_new.view({rows_, width_}), t, layers_[layer].v);
}

}  // namespace precis
