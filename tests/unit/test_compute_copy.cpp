// The 16-bit compute copy of the weights (train/compute_copy.h): every tensor of the fp32
// master rounded to bf16 or fp16 as torch's .to() rounds (core/dtype.h's conversions, checked
// against torch in test_core), the trainable ones at the master's element offsets in one flat
// buffer, refreshed by one conversion after the master changes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "precis/kernels/elementwise.h"
#include "precis/kernels/fill.h"
#include "precis/model/bart/bart_init.h"
#include "precis/model/t5/t5_init.h"
#include "precis/train/compute_copy.h"

#include "small_t5.h"

namespace precis {
namespace {

// T5 v1.1 (untied, gated FFN) at a small size whose tensors are not multiples of the alignment.
T5Config tiny_t5() {
  return testing::small_t5("t5-v1_1-small", {.vocab_size = 301, .d_model = 40, .d_ff = 72,
                                             .d_kv = 10, .num_heads = 4, .num_layers = 2,
                                             .num_decoder_layers = 1});
}

// Every tensor, the buffers (BART's final_logits_bias starts at zero) included, drawn anew.
template <class Config>
void randomise_every_tensor(const Config& c, ParamsOf<Config>& p) {
  uint64_t stream = 0;
  visit_parameters(c, p, [&](const std::string&, Tensor& t, Shape, ParamRole) {
    fill_normal(t, 0.5, 3, stream++);
  });
}

// Each tensor of `copy` against the master's elements rounded to `dtype`; returns how many
// elements were compared.
template <class Config>
int64_t expect_rounded_master(const Config& c, ParamsOf<Config>& master, ParamsOf<Config>& copy,
                              DType dtype) {
  std::vector<Tensor> wanted;
  visit_parameters(c, master, [&](const std::string&, Tensor& t, Shape, ParamRole) { wanted.push_back(t); });
  size_t i = 0;
  int64_t compared = 0;
  visit_parameters(c, copy, [&](const std::string& name, Tensor& t, Shape shape, ParamRole) {
    const Tensor& m = wanted[i++];
    ASSERT_EQ(t.dtype, dtype) << name;
    ASSERT_EQ(t.shape, shape) << name;
    const uint16_t* bits = t.data<const uint16_t>();
    for (int64_t e = 0; e < t.numel(); ++e, ++compared) {
      const float x = m.f32()[e];
      const uint16_t want = dtype == DType::BF16 ? float_to_bf16(x) : float_to_f16(x);
      ASSERT_EQ(bits[e], want) << name << "[" << e << "] of " << x;
    }
  });
  return compared;
}

template <class Config>
void check_compute_copy(const Config& c, DType dtype) {
  using Model = typename ModelFamily<Config>::Model;
  Model model = Model::allocate(c);
  randomise_every_tensor(c, model.params);
  train::ComputeCopy<Config> copy(c, model.params, dtype);
  copy.refresh(model.params);
  const int64_t compared = expect_rounded_master(c, model.params, copy.params(), dtype);
  EXPECT_GT(compared, 0);
  // The trainable tensors sit at the master's element offsets of one flat range.
  const dist::FlatLayout layout = flat_layout(c, model.params);
  EXPECT_EQ(copy.flat().numel(), layout.size);
  size_t next = 0;
  visit_parameters(c, copy.params(), [&](const std::string& name, Tensor& t, Shape, ParamRole role) {
    if (role == ParamRole::Buffer) return;
    const int64_t offset = (static_cast<const char*>(t.ptr) - static_cast<const char*>(copy.flat().ptr)) / 2;
    EXPECT_EQ(offset, layout.tensors[next++].offset) << name;
  });
  if (c.tie_word_embeddings) {
    EXPECT_EQ(copy.params().lm_head.ptr, copy.params().shared.ptr);
  }
  // A changed master (an optimizer step) reaches the copy at the next refresh.
  visit_parameters(c, model.params, [&](const std::string&, Tensor& t, Shape, ParamRole) {
    scale_in_place(t, -1.5f);
  });
  copy.refresh(model.params);
  expect_rounded_master(c, model.params, copy.params(), dtype);
}

TEST(ComputeCopy, BartInBf16AndFp16WithItsBufferAndTiedHead) {
  BartConfig c = bart_config_from("bart-tiny");
  c.vocab_size = 301;  // tensors whose sizes are not multiples of the alignment
  for (DType dtype : {DType::BF16, DType::F16}) {
    SCOPED_TRACE(dtype_name(dtype));
    check_compute_copy(c, dtype);
  }
}

TEST(ComputeCopy, T5UntiedInBf16) {
  const T5Config c = tiny_t5();
  check_compute_copy(c, DType::BF16);
}

// mixed(): the weights the model multiplies by and their biases from the copy, every other
// tensor the master's.
template <class Config>
void check_mixed(const Config& c, const std::vector<std::string>& from_copy) {
  using Model = typename ModelFamily<Config>::Model;
  Model model = Model::allocate(c);
  train::ComputeCopy<Config> copy(c, model.params, DType::BF16);
  ParamsOf<Config> mixed = copy.mixed(model.params);
  // The LM head multiplies: from the copy, tied (the copy's shared embedding) or not. (Checked
  // first: visiting a tied struct ties its head to its shared embedding again.)
  EXPECT_EQ(mixed.lm_head.dtype, DType::BF16);
  if (c.tie_word_embeddings) {
    EXPECT_EQ(mixed.lm_head.ptr, copy.params().shared.ptr);
  }
  EXPECT_EQ(mixed.shared.ptr, model.params.shared.ptr);  // looked up: the fp32 master
  std::vector<Tensor> master;
  visit_parameters(c, model.params, [&](const std::string&, Tensor& t, Shape, ParamRole) { master.push_back(t); });
  size_t i = 0, copied = 0;
  visit_parameters(c, mixed, [&](const std::string& name, Tensor& t, Shape, ParamRole) {
    const Tensor& m = master[i++];
    bool expected = false;
    for (const std::string& suffix : from_copy) expected = expected || name.ends_with(suffix);
    EXPECT_EQ(t.dtype, expected ? DType::BF16 : DType::F32) << name;
    EXPECT_EQ(t.ptr == m.ptr, !expected) << name;
    copied += expected;
  });
  EXPECT_GT(copied, 0u);
}

TEST(ComputeCopy, MixedTakesTheMultipliedWeightsFromTheCopy) {
  // BART's linear layers' biases too (autocast casts F.linear's bias), not its LayerNorms'.
  check_mixed(bart_config_from("bart-tiny"),
              {"proj.weight", "fc1.weight", "fc2.weight", "lm_head.weight", "proj.bias", "fc1.bias",
               "fc2.bias"});
  const T5Config c = tiny_t5();
  check_mixed(c, {"q.weight", "k.weight", "v.weight", "o.weight", "wi_0.weight", "wi_1.weight",
                  "wo.weight", "lm_head.weight"});
}

TEST(ComputeCopy, OnlySixteenBitTypes) {
  BartConfig c = bart_config_from("bart-tiny");
  BartModel model = BartModel::allocate(c);
  EXPECT_THROW(train::ComputeCopy<BartConfig>(c, model.params, DType::F32), Error);
}

}  // namespace
}  // namespace precis
