// A tiny BART and a tiny T5 train three steps on each CUDA backend of kernels/backends.h and
// on the CPU, from the same initial weights and batches, with dropout and label smoothing,
// gradient clipping and AdamW: every op through its CUDA twin's launcher and kernel bodies,
// the GEMMs through cuda/blas.h. In precis_unit_tests that is the kernel emulator (cuBLAS's
// semantics on a CPU loop); in precis_gpu_op_tests a GPU with cuBLASLt. The losses, the
// gradient norms and every parameter after the third step agree to fp32's 1e-5, and a second
// run on the device gives the same bits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "backends.h"
#include "precis/core/arena.h"
#include "precis/generate/generate.h"
#include "precis/kernels/copy.h"
#include "precis/model/bart/bart_init.h"
#include "precis/model/common/flat_parameters.h"
#include "precis/model/common/seq2seq_family.h"
#include "precis/model/t5/t5_init.h"
#include "small_t5.h"
#include "training_step_buffers.h"

#ifdef PRECIS_EMULATED_CUDA_BACKEND
#include "emulator/device_memory.h"
#endif
#include "precis/train/compute_copy.h"
#include "precis/train/optimizer.h"

namespace precis {
namespace {

void initialize_weights(BartModel& m, uint64_t seed) { initialize_bart(m, seed); }
void initialize_weights(T5Model& m, uint64_t seed) { initialize_t5(m, seed); }

// A right-padded batch of 3 rows as host vectors: source and target lengths differ per row,
// labels padded with -100.
struct HostBatch {
  int64_t rows = 3, source = 0, target = 0;
  std::vector<int32_t> input_ids, attention_mask, decoder_input_ids, labels;
};

HostBatch random_training_batch(int64_t vocab, int64_t S, int64_t T, uint32_t seed) {
  HostBatch b{3, S, T, {}, {}, {}, {}};
  uint32_t x = seed;
  auto next_token = [&] { return int32_t(3 + (x = x * 1664525u + 1013904223u) % uint32_t(vocab - 3)); };
  for (int64_t r = 0; r < b.rows; ++r) {
    for (int64_t j = 0; j < S; ++j) {
      const bool token = j < S - 2 * r;
      b.input_ids.push_back(token ? next_token() : 1);
      b.attention_mask.push_back(token);
    }
    for (int64_t j = 0; j < T; ++j) {
      const bool token = j < T - r;
      b.labels.push_back(token ? next_token() : -100);
    }
    // Teacher forcing: the decoder start token, then the labels shifted right (pad for -100).
    for (int64_t j = 0; j < T; ++j) {
      const int32_t previous = j == 0 ? 2 : b.labels[size_t(r * T + j - 1)];
      b.decoder_input_ids.push_back(previous == -100 ? 1 : previous);
    }
  }
  return b;
}

Tensor upload(Arena& arena, const std::vector<int32_t>& values, Shape shape) {
  Tensor t = arena.alloc(shape, DType::I32);
  copy(Tensor{const_cast<int32_t*>(values.data()), shape, DType::I32, Device::cpu()}, t);
  return t;
}

struct Trajectory {
  std::vector<double> losses, grad_norms;
  std::vector<std::vector<float>> grads;  // each step's, clipped, as the optimizer takes them
  std::vector<float> final_params;
};

constexpr double kLearningRate = 1e-3, kAdamEps = 1e-8;

// Three optimizer steps on `device` from `initial`'s weights, one batch each.
template <class Config>
Trajectory train_three_steps(const Config& c, const typename ModelFamily<Config>::Model& initial,
                             const std::vector<HostBatch>& batches, Device device) {
  using Model = typename ModelFamily<Config>::Model;
  ScopedExecutionContext on(device);
  Model model = Model::allocate(c), grads = Model::allocate(c);
  auto& init_params = const_cast<ParamsOf<Config>&>(initial.params);
  copy(flat_tensor(c, init_params), flat_tensor(c, model.params));
  train::zero_grads(c, grads.params);
  train::AdamW<Config> optimizer(c, {kLearningRate, 0.9, 0.999, kAdamEps, 0.01});

  Trajectory out;
  for (size_t step = 0; step < batches.size(); ++step) {
    const HostBatch& h = batches[step];
    const int64_t B = h.rows, S = h.source, T = h.target;
    Arena inputs(size_t(1) << 16);
    Seq2SeqBatch batch{upload(inputs, h.input_ids, {B, S}), upload(inputs, h.attention_mask, {B, S}),
                       upload(inputs, h.decoder_input_ids, {B, T}), upload(inputs, h.labels, {B, T})};
    testing::TrainingStepBuffers<Config> buffers(c, B, S, T);
    const DropoutContext dropout{true, 42, uint64_t(step), 0};
    model_forward(c, model.params, batch, buffers.acts, dropout);
    const CrossEntropyResult ce = model_loss(batch, buffers.acts, 0.1f);
    out.losses.push_back(ce.mean());
    model_backward(c, model.params, batch, buffers.acts, dropout, 0.1f,
                   float(1.0 / double(ce.counted)), grads.params, buffers.scratch);
    out.grad_norms.push_back(train::clip_grad_norm(c, grads.params, 1.0));
    const Tensor flat_grads = flat_tensor(c, grads.params);
    out.grads.emplace_back(size_t(flat_grads.numel()));
    copy(flat_grads, Tensor{out.grads.back().data(), flat_grads.shape, DType::F32, Device::cpu()});
    optimizer.step(model.params, grads.params, kLearningRate);
    train::zero_grads(c, grads.params);
  }
  const Tensor flat = flat_tensor(c, model.params);
  out.final_params.resize(size_t(flat.numel()));
  copy(flat, Tensor{out.final_params.data(), flat.shape, DType::F32, Device::cpu()});
  return out;
}

// In the emulator, device memory the host reads or writes directly (a crash on a GPU) stops the
// test with SIGSEGV where it happens: the model code, the optimizer and the clipping must move
// data only through ops.
struct GuardedDeviceMemory {
#ifdef PRECIS_EMULATED_CUDA_BACKEND
  GuardedDeviceMemory() { cuda_emulation::guard_device_memory(true); }
  ~GuardedDeviceMemory() { cuda_emulation::guard_device_memory(false); }
#endif
};

template <class Config>
void expect_cuda_training_matches_cpu(const Config& c) {
  [[maybe_unused]] GuardedDeviceMemory guard;
  std::vector<Device> gpus;
  for (Device d : testing::kernel_backends())
    if (!d.is_cpu()) gpus.push_back(d);
  if (gpus.empty()) GTEST_SKIP() << "no CUDA backend in this process (precis_gpu_op_tests without a GPU)";
  using Model = typename ModelFamily<Config>::Model;
  Model initial = Model::allocate(c);
  initialize_weights(initial, 11);
  std::vector<HostBatch> batches;
  // Small: in the emulator every CUDA thread is a host thread.
  for (uint32_t s = 0; s < 3; ++s) batches.push_back(random_training_batch(c.vocab_size, 6 + s, 4 + s, 1234 + s));

  const Trajectory cpu = train_three_steps(c, initial, batches, Device::cpu());
  const Trajectory gpu = train_three_steps(c, initial, batches, gpus.front());
  // Deterministic kernels: the same run again gives the same bits (in the emulator too, where
  // the threads' timing differs from run to run).
  const Trajectory again = train_three_steps(c, initial, batches, gpus.front());
  EXPECT_EQ(again.losses, gpu.losses);
  EXPECT_TRUE(again.final_params == gpu.final_params) << "a second run on the device differs";
  auto near = [](double expected) { return 1e-5 * std::max(1.0, std::abs(expected)); };
  for (size_t i = 0; i < cpu.losses.size(); ++i) {
    EXPECT_NEAR(gpu.losses[i], cpu.losses[i], near(cpu.losses[i])) << "loss of step " << i;
    EXPECT_NEAR(gpu.grad_norms[i], cpu.grad_norms[i], near(cpu.grad_norms[i])) << "grad norm of step " << i;
  }
  // The ops: each step's gradient within 1e-5 of the step's largest gradient element.
  for (size_t step = 0; step < cpu.grads.size(); ++step) {
    float largest = 0.0f;
    for (float g : cpu.grads[step]) largest = std::max(largest, std::abs(g));
    size_t off = 0;
    for (size_t i = 0; i < cpu.grads[step].size(); ++i)
      if (std::abs(gpu.grads[step][i] - cpu.grads[step][i]) > 1e-5 * largest && off++ < 10)
        ADD_FAILURE() << "step " << step << " gradient " << i << ": cuda " << gpu.grads[step][i]
                      << ", cpu " << cpu.grads[step][i];
    EXPECT_EQ(off, 0u) << "step " << step << ": gradients off by more than 1e-5 of the largest";
  }
  // The weights within 1e-5, plus what AdamW's first step makes of the two gradients' difference
  // where it is ill-conditioned: its update is lr · g / (|g| + eps), so a gradient that cancels to
  // about eps (4e-8 in T5 v1.1's case, its two sums 3e-9 apart in their last bits) moves the
  // weights by amounts 1% of lr apart. The term is exact for the first step and negligible
  // wherever |g| >> eps.
  ASSERT_EQ(gpu.final_params.size(), cpu.final_params.size());
  const auto first_update = [](float g) { return double(g) / (std::abs(double(g)) + kAdamEps); };
  size_t off = 0;
  for (size_t i = 0; i < cpu.final_params.size(); ++i) {
    const double conditioning =
        kLearningRate * std::abs(first_update(gpu.grads[0][i]) - first_update(cpu.grads[0][i]));
    if (std::abs(gpu.final_params[i] - cpu.final_params[i]) >
            near(cpu.final_params[i]) + conditioning &&
        off++ < 10)
      ADD_FAILURE() << "parameter " << i << ": cuda " << gpu.final_params[i] << ", cpu " << cpu.final_params[i];
  }
  EXPECT_EQ(off, 0u) << "parameters off by more than 1e-5 (and AdamW's first-step conditioning)";
  // The steps moved the weights: the comparison is not of two copies of the initial ones.
  const Tensor start = flat_tensor(c, initial.params);
  size_t moved = 0;
  for (size_t i = 0; i < cpu.final_params.size(); ++i) moved += cpu.final_params[i] != start.f32()[i];
  EXPECT_GT(moved, cpu.final_params.size() / 2);
}

// generate() with the model's weights on `device`: the ids and beam scores HF's generate() would
// give for each configuration below, computed there (the KV cache, the logits processors and
// beam search's candidates on that device too).
template <class Model>
std::vector<generate::Generated> generate_on(const Model& initial, Device device,
                                             const std::vector<generate::GenerationConfig>& configs) {
  using Config = decltype(Model::config);
  const Config& c = initial.config;
  ScopedExecutionContext on(device);
  Model model = Model::allocate(c);
  auto& init_params = const_cast<ParamsOf<Config>&>(initial.params);
  copy(flat_tensor(c, init_params), flat_tensor(c, model.params));
  const std::vector<std::vector<int32_t>> inputs{{5, 17, 9, 33, 4, 61, 2}, {12, 7, 90}, {44, 3, 8, 8, 8}};
  std::vector<generate::Generated> out;
  for (const auto& config : configs) out.push_back(generate::generate(model, inputs, config));
  return out;
}

// Greedy, beam search as bart-large-cnn's generation config sets it (4 beams, length penalty,
// no repeated trigram, minimum length, forced EOS), and sampling with temperature, top-k, top-p
// and a repetition penalty. Sampling draws differ by device (the CPU torch's stream, CUDA its
// own: kernels/decoding.h); test_decoding.cpp checks each step's draw of both.
std::vector<generate::GenerationConfig> generation_configs(int32_t eos) {
  generate::GenerationConfig greedy;
  greedy.max_length = 9;
  greedy.top_k = 0;
  generate::GenerationConfig beams = greedy;
  beams.num_beams = 4;
  beams.length_penalty = 2.0;
  beams.no_repeat_ngram_size = 3;
  beams.min_length = 4;
  beams.forced_eos_token_id = {eos};
  beams.early_stopping = generate::EarlyStopping::kTrue;
  beams.num_return_sequences = 2;
  generate::GenerationConfig sampling = greedy;
  sampling.do_sample = true;
  sampling.temperature = 0.7;
  sampling.top_k = 20;
  sampling.top_p = 0.9;
  sampling.repetition_penalty = 1.3;
  sampling.seed = 5;
  return {greedy, beams, sampling};
}

template <class Model>
void expect_cuda_generation_matches_cpu(const Model& model) {
  std::vector<Device> gpus;
  for (Device d : testing::kernel_backends())
    if (!d.is_cpu()) gpus.push_back(d);
  if (gpus.empty()) GTEST_SKIP() << "no CUDA backend in this process (precis_gpu_op_tests without a GPU)";
  [[maybe_unused]] GuardedDeviceMemory guard;
  const auto configs = generation_configs(model.config.eos_token_id);
  const auto cpu = generate_on(model, Device::cpu(), configs);
  const auto gpu = generate_on(model, gpus.front(), configs);
  const char* names[] = {"greedy", "beam search", "sampling"};
  for (size_t i = 0; i < configs.size(); ++i) {
    if (configs[i].do_sample) {  // other draws, so other tokens: only the layout is the same
      EXPECT_EQ(gpu[i].rows, cpu[i].rows) << names[i];
      continue;
    }
    EXPECT_EQ(gpu[i].sequences, cpu[i].sequences) << names[i];
    ASSERT_EQ(gpu[i].sequence_scores.size(), cpu[i].sequence_scores.size()) << names[i];
    for (size_t r = 0; r < cpu[i].sequence_scores.size(); ++r)
      EXPECT_NEAR(gpu[i].sequence_scores[r], cpu[i].sequence_scores[r], 1e-5) << names[i] << " row " << r;
  }
  // Beam search is not greedy here: the comparison covers what beams add.
  EXPECT_NE(cpu[1].sequences, cpu[0].sequences);
}

// Mixed-precision generation on the device (kv_cached_decoder.h): every configuration of
// generation_configs runs from a bf16 and an fp16 compute copy, the first step's logits (the
// same prefix for every run) are fp32 and within the 16-bit type's precision of the CPU's fp32
// logits, and differ from them (the 16-bit products are in effect). The oracle is HF's
// autocast (tests/oracle/test_generate_cuda.py); this runs the path under ASan and TSan.
template <class Model>
void expect_mixed_precision_generation_near_fp32(const Model& initial) {
  using Config = decltype(Model::config);
  std::vector<Device> gpus;
  for (Device d : testing::kernel_backends())
    if (!d.is_cpu()) gpus.push_back(d);
  if (gpus.empty())
    GTEST_SKIP() << "no CUDA backend in this process (precis_gpu_op_tests without a GPU)";
  [[maybe_unused]] GuardedDeviceMemory guard;
  const Config& c = initial.config;
  const std::vector<std::vector<int32_t>> inputs{
      {5, 17, 9, 33, 4, 61, 2}, {12, 7, 90}, {44, 3, 8, 8, 8}};
  generate::GenerateOptions options;
  options.output_logits = true;
  auto configs = generation_configs(c.eos_token_id);
  const generate::Generated cpu = generate::generate(initial, inputs, configs[0], options);
  ScopedExecutionContext on(gpus.front());
  Model master = Model::allocate(c);
  auto& init_params = const_cast<ParamsOf<Config>&>(initial.params);
  copy(flat_tensor(c, init_params), flat_tensor(c, master.params));
  for (DType dtype : {DType::BF16, DType::F16}) {
    SCOPED_TRACE(dtype_name(dtype));
    train::ComputeCopy<Config> compute(c, master.params, dtype);
    compute.refresh(master.params);
    Model mixed;
    mixed.config = c;
    mixed.params = compute.mixed(master.params);
    // Four roundings' worth of the largest logit (bf16 keeps 8 significant bits, fp16 11):
    // measured 0.0024 (BART) and 0.0051 (T5) of it in bf16, 0.0003 and 0.0007 in fp16.
    float largest_logit = 0;
    for (size_t i = 0; i < size_t(cpu.vocab) * inputs.size(); ++i)
      largest_logit = std::max(largest_logit, std::abs(cpu.logits[i]));
    const float bound = 4.0f * std::ldexp(largest_logit, dtype == DType::BF16 ? -8 : -11);
    for (const auto& config : configs) {
      const generate::Generated out = generate::generate(mixed, inputs, config, options);
      ASSERT_EQ(out.rows, int64_t(inputs.size()) * config.num_return_sequences);
      ASSERT_GE(out.logits.size(), cpu.vocab * int64_t(inputs.size()));
      if (config.num_beams > 1) continue;  // beams' first step has K rows an input
      float largest = 0;
      size_t differ = 0;
      for (size_t i = 0; i < size_t(cpu.vocab) * inputs.size(); ++i) {
        largest = std::max(largest, std::abs(out.logits[i] - cpu.logits[i]));
        differ += out.logits[i] != cpu.logits[i];
      }
      EXPECT_LE(largest, bound);
      EXPECT_GT(differ, size_t(cpu.vocab)) << "the 16-bit logits are fp32's";
    }
  }
}

// The tiny models of these tests: small, since in the emulator every CUDA thread is a host thread.
BartConfig tiny_bart() {
  BartConfig c = bart_config_from("bart-tiny");
  c.vocab_size = 128;
  c.d_model = 32;
  c.encoder_ffn_dim = c.decoder_ffn_dim = 48;
  c.max_position_embeddings = 64;
  c.encoder_layers = c.decoder_layers = 1;
  return c;
}

T5Config tiny_t5(const char* preset) {
  return testing::small_t5(preset, {.vocab_size = 128, .d_model = 32, .d_ff = 48, .d_kv = 8,
                                    .num_heads = 4, .num_layers = 1, .num_decoder_layers = 1});
}

TEST(CudaGeneration, TinyBartMatchesTheCpu) {
  BartModel model = BartModel::allocate(tiny_bart());
  initialize_weights(model, 21);
  expect_cuda_generation_matches_cpu(model);
}

TEST(CudaGeneration, TinyT5MatchesTheCpu) {
  T5Model model = T5Model::allocate(tiny_t5("t5-v1_1-small"));
  initialize_weights(model, 22);
  expect_cuda_generation_matches_cpu(model);
}

TEST(CudaGeneration, TinyBartInMixedPrecisionStaysNearFp32) {
  BartModel model = BartModel::allocate(tiny_bart());
  initialize_weights(model, 21);
  expect_mixed_precision_generation_near_fp32(model);
}

TEST(CudaGeneration, TinyT5InMixedPrecisionStaysNearFp32) {
  T5Model model = T5Model::allocate(tiny_t5("t5-v1_1-small"));
  initialize_weights(model, 22);
  expect_mixed_precision_generation_near_fp32(model);
}

TEST(CudaTraining, TinyBartMatchesTheCpu) { expect_cuda_training_matches_cpu(tiny_bart()); }

TEST(CudaTraining, TinyT5MatchesTheCpu) {
  for (const char* name : {"t5-tiny", "t5-v1_1-small"}) {
    SCOPED_TRACE(name);
    expect_cuda_training_matches_cpu(tiny_t5(name));
  }
}

}  // namespace
}  // namespace precis
