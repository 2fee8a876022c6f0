// The backward's stages, against what data parallelism assumes of them: when the backward
// reports stage k, every gradient the model places at k or earlier (FlatTensor::stage, from
// bart_stages.h / t5_stages.h) is final (the
// rest of the backward adds nothing to it), for BART and for T5 with a tied and an untied
// LM head. A bucket's all-reduce starts at its stage, so a gradient still growing then would
// be averaged short.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <vector>

#include "precis/dist/gradient_buckets.h"
#include "precis/model/bart/bart_init.h"
#include "precis/model/common/flat_parameters.h"
#include "precis/model/t5/t5_init.h"
#include "small_t5.h"
#include "training_step_buffers.h"

namespace precis {
namespace {

void initialize(BartModel& m, uint64_t seed) { initialize_bart(m, seed); }
void initialize(T5Model& m, uint64_t seed) { initialize_t5(m, seed); }

// A right-padded batch of 3 rows, with labels padded by -100.
Seq2SeqBatch random_batch(Arena& arena, int64_t vocab, int64_t S, int64_t T) {
  const int64_t B = 3;
  Seq2SeqBatch b{arena.alloc({B, S}, DType::I32), arena.alloc({B, S}, DType::I32),
                 arena.alloc({B, T}, DType::I32), arena.alloc({B, T}, DType::I32)};
  uint32_t x = 12345;
  auto next_token = [&] { return int32_t(3 + (x = x * 1664525u + 1013904223u) % uint32_t(vocab - 3)); };
  for (int64_t r = 0; r < B; ++r) {
    for (int64_t j = 0; j < S; ++j) {
      const bool token = j < S - 2 * r;
      b.input_ids.i32()[r * S + j] = token ? next_token() : 1;
      b.attention_mask.i32()[r * S + j] = token;
    }
    for (int64_t j = 0; j < T; ++j) {
      const bool token = j < T - r;
      b.labels.i32()[r * T + j] = token ? next_token() : -100;
      b.decoder_input_ids.i32()[r * T + j] = j == 0 ? 2 : std::max(1, b.labels.i32()[r * T + j - 1]);
    }
  }
  return b;
}

template <class Config>
void expect_gradients_final_at_their_stage(const Config& c) {
  using Model = typename ModelFamily<Config>::Model;
  Model model = Model::allocate(c);
  initialize(model, 7);
  Model grads = Model::allocate(c);
  const Tensor flat_grads = flat_tensor(c, grads.params);
  std::span<float> flat(flat_grads.f32(), size_t(flat_grads.numel()));
  std::fill(flat.begin(), flat.end(), 0.0f);
  const dist::FlatLayout layout = flat_layout(c, grads.params);

  const int64_t S = 9, T = 6;
  Arena inputs(1 << 20);
  Seq2SeqBatch batch = random_batch(inputs, c.vocab_size, S, T);
  const int64_t B = batch.batch_size();
  testing::TrainingStepBuffers<Config> step(c, B, S, T);
  model_forward(c, model.params, batch, step.acts);
  const double counted = double(model_loss(batch, step.acts, 0.1f).counted);

  // At each reported stage, a copy of every gradient placed at it or before, taken once.
  std::vector<int> reported;
  std::map<std::string, std::vector<float>> at_stage;
  step.scratch.stage_done = [&](int stage) {
    reported.push_back(stage);
    for (const auto& t : layout.tensors)
      if (t.stage <= stage && !at_stage.count(t.name))
        at_stage[t.name].assign(flat.begin() + t.offset, flat.begin() + t.offset + t.numel);
  };
  model_backward(c, model.params, batch, step.acts, {}, 0.1f, float(1.0 / counted), grads.params,
                 step.scratch);

  // Stages 0 .. final - 1 come in order; the final one is the backward's end.
  const int final_stage = final_backward_stage(c);
  std::vector<int> expected(static_cast<size_t>(final_stage));
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(reported, expected);
  size_t before_final = 0;
  for (const auto& t : layout.tensors) {
    const int stage = t.stage;
    EXPECT_GE(stage, 0) << t.name;
    EXPECT_LE(stage, final_stage) << t.name;
    std::vector<float> now(flat.begin() + t.offset, flat.begin() + t.offset + t.numel);
    EXPECT_TRUE(std::any_of(now.begin(), now.end(), [](float v) { return v != 0.0f; })) << t.name << ": no gradient";
    if (stage == final_stage) continue;
    ++before_final;
    ASSERT_TRUE(at_stage.count(t.name)) << t.name;
    EXPECT_EQ(at_stage[t.name], now) << t.name << " changed after its stage " << stage;
  }
  // Most of the model is all-reduced while the backward still runs.
  EXPECT_GT(before_final, layout.tensors.size() / 2);
}

TEST(BackwardStages, BartGradientsAreFinalAtTheirStage) {
  BartConfig c = bart_config_from("bart-tiny");
  c.vocab_size = 300;
  c.encoder_layers = 3;
  expect_gradients_final_at_their_stage(c);
}

TEST(BackwardStages, T5GradientsAreFinalAtTheirStage) {
  for (const char* name : {"t5-tiny", "t5-v1_1-small"}) {
    SCOPED_TRACE(name);
    const T5Config c = testing::small_t5(name, {.vocab_size = 300, .d_model = 64, .d_ff = 96,
                                                .d_kv = 16, .num_heads = 4, .num_layers = 3,
                                                .num_decoder_layers = 2});
    expect_gradients_final_at_their_stage(c);
  }
}

}  // namespace
}  // namespace precis
