#include "precis/model/common/kv_cached_decoder.h"

#include <string>

#include "precis/kernels/attention.h"
#include "precis/kernels/convert.h"
#include "precis/kernels/copy.h"
#include "precis/kernels/elementwise.h"
#include "precis/kernels/linear.h"

namespace precis {

KvCachedDecoder::KvCachedDecoder(int64_t batch, int64_t source_len, int64_t rows_per_input,
                                 int64_t max_target_len, DType compute)
    : batch_(batch),
      source_len_(source_len),
      group_(rows_per_input),
      rows_(batch * rows_per_input),
      max_target_len_(max_target_len),
      compute_(compute) {
  check(batch > 0 && source_len > 0 && rows_per_input > 0 && max_target_len > 0,
        "incremental decoder: batch, source length, rows per input and target length must be "
        "positive");
  check(compute == DType::F32 || (is_16_bit(compute) && !current_device().is_cpu()),
        std::string("incremental decoder: weights in ") + dtype_name(compute) + " on " +
            current_device().name() +
            ": mixed-precision generation runs on CUDA (the CPU generates in fp32)");
}

void KvCachedDecoder::lay_out(int64_t layers, int64_t d_model, int64_t attention_width,
                              int64_t heads, const std::function<void(Arena&)>& lay_out_step) {
  auto lay_out_all = [&](Arena& a) {
    a.set_element_type(compute_);
    source_ids_ = a.alloc({batch_, source_len_}, DType::I32);
    source_mask_ = a.alloc({batch_, source_len_}, DType::I32);
    encoder_out_ = a.alloc({batch_, source_len_, d_model});
    cross_.assign(size_t(layers), {});
    for (auto& l : cross_) {
      l.k = a.alloc({batch_, source_len_, attention_width});
      l.v = a.alloc({batch_, source_len_, attention_width});
    }
    self_cache_.lay_out(a, layers, rows_, max_target_len_, attention_width,
                        attention_reads_in_place(a.device(), attention_width / heads));
    tokens_ = a.alloc({rows_, 1}, DType::I32);
    if (compute_ != DType::F32) rounded_input_ = a.alloc({rows_, 1, d_model}, compute_);
    attn_.q = a.alloc({rows_, 1, attention_width});
    attn_.k_new = a.alloc({rows_, 1, attention_width});
    attn_.v_new = a.alloc({rows_, 1, attention_width});
    attn_.context = a.alloc({rows_, 1, attention_width});
    attn_.out = a.alloc({rows_, 1, d_model});
    lay_out_step(a);
  };
  arena_ = compute_arena(lay_out_all);
}

Arena KvCachedDecoder::compute_arena(const std::function<void(Arena&)>& lay_out_all) const {
  Arena measure = Arena::measuring();
  measure.set_element_type(compute_);
  lay_out_all(measure);
  Arena arena(measure.used());
  arena.set_element_type(compute_);
  lay_out_all(arena);
  return arena;
}

const Tensor& rounded_for_linear(const Tensor& x, const Tensor& rounded) {
  if (x.dtype == rounded.dtype || !rounded.ptr) return x;
  convert(x, rounded);
  return rounded;
}

void KvCachedDecoder::encode(const Tensor& input_ids, const Tensor& attention_mask) {
  check(input_ids.shape == Shape({batch_, source_len_}) && attention_mask.shape == input_ids.shape,
        "incremental decoder: inputs " + input_ids.describe() + " / mask " +
            attention_mask.describe() + " for a decoder laid out for [" + std::to_string(batch_) +
            ", " + std::to_string(source_len_) + "]");
  // The inputs, wherever the caller has them, on the model's device.
  copy(input_ids, source_ids_);
  copy(attention_mask, source_mask_);
  run_encoder(source_ids_);
  for (size_t i = 0; i < cross_.size(); ++i) {
    const AttentionParams& cross = cross_attention(i);
    linear_forward(encoder_out_, cross.k_proj.weight, cross.k_proj.bias, cross_[i].k);
    linear_forward(encoder_out_, cross.v_proj.weight, cross.v_proj.bias, cross_[i].v);
  }
  length_ = 0;
  self_cache_.reset();
}

void KvCachedDecoder::cached_self_attention(size_t layer, const AttentionParams& p, const Tensor& x,
                                            int64_t heads, float scale, const AttentionMask& mask,
                                            int64_t t) {
  linear_forward(x, p.q_proj.weight, p.q_proj.bias, attn_.q);
  linear_forward(x, p.k_proj.weight, p.k_proj.bias, attn_.k_new);
  linear_forward(x, p.v_proj.weight, p.v_proj.bias, attn_.v_new);
  self_cache_.append(layer, attn_.k_new, attn_.v_new, t);
  attention_forward(attn_.q, self_cache_.keys(layer), self_cache_.values(layer), heads, scale,
                    self_cache_.reading(mask), attn_.context, Tensor{});
  linear_forward(attn_.context, p.out_proj.weight, p.out_proj.bias, attn_.out);
}

void KvCachedDecoder::cached_cross_attention(size_t layer, const AttentionParams& p,
                                             const Tensor& x, int64_t heads, float scale,
                                             const AttentionMask& mask) {
  const int64_t width = attn_.q.size(2);
  linear_forward(x, p.q_proj.weight, p.q_proj.bias, attn_.q);
  attention_forward(attn_.q.view({batch_, group_, width}), cross_[layer].k, cross_[layer].v, heads,
                    scale, mask, attn_.context.view({batch_, group_, width}), Tensor{});
  linear_forward(attn_.context, p.out_proj.weight, p.out_proj.bias, attn_.out);
}

void KvCachedDecoder::keep_inputs(std::span<const int32_t> kept) {
  for (size_t i = 0; i < kept.size(); ++i)
    check(kept[i] >= 0 && kept[i] < batch_ && (i == 0 || kept[i] > kept[i - 1]),
          "keep_inputs: input " + std::to_string(kept[i]) + " of " + std::to_string(batch_) +
              " (ascending indices into the batch)");
  check(!kept.empty(), "keep_inputs: no input left");
  if (int64_t(kept.size()) == batch_) return;
  std::vector<int32_t> rows;
  for (int32_t input : kept)
    for (int64_t g = 0; g < group_; ++g) rows.push_back(int32_t(input * group_ + g));
  self_cache_.keep_rows(rows);
  // Each kept input's cross-attention keys, values and source mask move to position i: input
  // kept[i] >= i, and no earlier move wrote past position i - 1, so every source is intact.
  for (size_t i = 0; i < kept.size(); ++i) {
    if (kept[i] == int32_t(i)) continue;
    for (auto& layer : cross_)
      for (Tensor* t : {&layer.k, &layer.v})
        copy(t->slice(kept[i], kept[i] + 1), t->slice(int64_t(i), int64_t(i) + 1));
    copy(source_mask_.slice(kept[i], kept[i] + 1), source_mask_.slice(int64_t(i), int64_t(i) + 1));
  }
  batch_ = int64_t(kept.size());
  rows_ = batch_ * group_;
  for (auto& layer : cross_)
    for (Tensor* t : {&layer.k, &layer.v}) *t = t->slice(0, batch_);
  source_mask_ = source_mask_.slice(0, batch_);
  for (Tensor* t : {&tokens_, &attn_.q, &attn_.k_new, &attn_.v_new, &attn_.context, &attn_.out,
                    &rounded_input_})
    if (t->ptr) *t = t->slice(0, rows_);
  keep_rows(rows_);
}

const Tensor& KvCachedDecoder::step(std::span<const int32_t> tokens) {
  check(int64_t(tokens.size()) == rows_, "step: " + std::to_string(tokens.size()) + " tokens for " +
                                             std::to_string(rows_) + " rows");
  check(length_ < max_target_len_,
        "step: the decoder was laid out for " + std::to_string(max_target_len_) + " tokens");
  self_cache_.grow(length_);
  // The host's tokens, read only, as a tensor: feeding them is a copy to the model's device.
  const Tensor fed{const_cast<int32_t*>(tokens.data()), tokens_.shape, DType::I32, Device::cpu()};
  copy(fed, tokens_);
  const Tensor& logits = decode(length_);
  ++length_;
  return logits;
}

}  // namespace precis
