// precis's side of scripts/gpu-check.sh's training benchmark, on the shapes bench/gpu/hf_peer.py
// gives the peer: bart-large (facebook/bart-large-cnn's config, vocabulary 50264), random
// weights (initialize_bart), one batch of random tokens, and the trainer's step: forward, loss,
// backward, clipping, AdamW over fp32 master weights, in bf16 or fp16 mixed precision
// (train/compute_copy.h: the 16-bit activations and weights the trainer uses under --bf16 and
// --fp16) or fp32, on the GPU. The batch's ids are known to be in the vocabulary (the trainer
// checks them on the host as it collates), and each step reads its loss and gradient norm back
// once, as the trainer does, which also waits for the step; the median after warm-up is
// reported as one JSON line in hf_peer.py's shape, with the bytes the step's arenas hold.
//
//   precis_gpu_train_bench DTYPE BATCH SOURCE TARGET STEPS [--tiny]
//     DTYPE bf16, fp16 or fp32; --tiny: a two-layer model, on the CPU when no GPU is present
//     (a dry run of the driver itself, fp32 only there)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bart_large.h"
#include "gpu_backend.h"
#include "precis/kernels/copy.h"
#include "precis/kernels/elementwise.h"
#include "precis/kernels/fill.h"
#include "precis/model/bart/bart.h"
#include "precis/model/bart/bart_init.h"
#include "precis/model/bart/bart_model.h"
#include "precis/model/common/seq2seq_family.h"
#include "precis/train/compute_copy.h"
#include "precis/train/optimizer.h"
#include "precis/kernels/cpu/blas_core.h"

using namespace precis;

namespace {

// A batch of random tokens on `device`: every source token real, labels the targets.
Seq2SeqBatch random_batch(const BartConfig& c, Arena& arena, int64_t B, int64_t S, int64_t T) {
  std::mt19937 rng(0);
  std::uniform_int_distribution<int32_t> token(3, int32_t(c.vocab_size) - 1);
  std::vector<int32_t> ids(size_t(B * S)), mask(size_t(B * S), 1), labels(size_t(B * T)),
      decoder(size_t(B * T));
  for (int32_t& v : ids) v = token(rng);
  for (int32_t& v : labels) v = token(rng);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t)
      decoder[size_t(b * T + t)] = t == 0 ? int32_t(c.decoder_start_token_id) : labels[size_t(b * T + t - 1)];
  auto up = [&](std::vector<int32_t>& v, Shape shape) {
    Tensor t = arena.alloc(shape, DType::I32);
    copy(Tensor{v.data(), shape, DType::I32, Device::cpu()}, t);
    return t;
  };
  return {up(ids, {B, S}), up(mask, {B, S}), up(decoder, {B, T}), up(labels, {B, T}),
          CheckedIds{c.vocab_size}};
}

}  // namespace

int main(int argc, char** argv) {
  precis::cpu::choose_blas_core(argv);  // OpenBLAS's best core for this CPU, as the CLI runs
  if (argc < 6) {
    std::fprintf(stderr, "usage: precis_gpu_train_bench bf16|fp16|fp32 BATCH SOURCE TARGET STEPS [--tiny]\n");
    return 2;
  }
  try {
    const std::string dtype_name = argv[1];
    const int64_t B = std::stoll(argv[2]), S = std::stoll(argv[3]), T = std::stoll(argv[4]);
    const int steps = std::stoi(argv[5]);
    const bool tiny = argc > 6 && std::strcmp(argv[6], "--tiny") == 0;
    check(dtype_name == "bf16" || dtype_name == "fp16" || dtype_name == "fp32",
          "DTYPE: expected bf16, fp16 or fp32, found " + dtype_name);
    const bool gpu = bench::install_gpu();
    check(gpu || tiny, "no GPU is present (run with --tiny for a dry run on the CPU)");
    const Device device = gpu ? Device::cuda(0) : Device::cpu();
    const DType compute = !gpu || dtype_name == "fp32" ? DType::F32
                          : dtype_name == "bf16"        ? DType::BF16
                                                        : DType::F16;
    ScopedExecutionContext on(device);

    const BartConfig c = bench::bart_large_config(tiny);
    BartModel model = BartModel::allocate(c), grads = BartModel::allocate(c);
    initialize_bart(model, 42);
    train::zero_grads(c, grads.params);
    train::AdamW<BartConfig> optimizer(c, {5e-5, 0.9, 0.999, 1e-8, 0.01});
    std::unique_ptr<train::ComputeCopy<BartConfig>> copy16;
    BartParams params = model.params;
    if (compute != DType::F32) {
      copy16 = std::make_unique<train::ComputeCopy<BartConfig>>(c, model.params, compute);
      copy16->refresh(model.params);
      params = copy16->mixed(model.params);
    }
    Arena inputs(size_t(4 * B * (2 * S + 2 * T)) + 4 * Arena::kAlignment);
    const Seq2SeqBatch batch = random_batch(c, inputs, B, S, T);
    Arena measure = Arena::measuring();
    measure.set_element_type(compute);
    allocate_activations(c, measure, B, S, T, true);
    allocate_grad_scratch(c, measure, B, S, T);
    Arena arena(measure.used());
    arena.set_element_type(compute);
    BartActivations acts = allocate_activations(c, arena, B, S, T, true);
    BartGradScratch scratch = allocate_grad_scratch(c, arena, B, S, T);
    // fp16: HF's initial loss scale; no step of random data overflows it.
    const double loss_scale = compute == DType::F16 ? 65536.0 : 1.0;

    // The step's loss and gradient's Σ g², where the step leaves them: its one read.
    Arena report_arena(Arena::kAlignment);
    const Tensor report = report_arena.zeros(Shape{2}, DType::F64);
    const double label_tokens = double(B * T);  // random labels: none is -100

    std::vector<double> seconds;
    double loss = 0, norm = 0;
    const int warmup = 2;
    for (int i = 0; i < warmup + steps; ++i) {
      if (i == warmup) bench::measurement_starts();
      auto start = std::chrono::steady_clock::now();
      const DropoutContext dropout{true, 42, uint64_t(i), 0};
      bart_forward(c, params, batch, acts, dropout);
      accumulate_model_loss(batch, acts, 0.0f, label_tokens, 1.0, report.slice(0, 1));
      bart_backward(c, params, batch, acts, dropout, 0.0f, float(loss_scale / label_tokens),
                    grads.params, scratch);
      if (loss_scale != 1.0) scale_in_place(flat_tensor(c, grads.params), float(1.0 / loss_scale));
      optimizer.clipped_step(model.params, grads.params, 5e-5, 1.0, false, report.slice(1, 2),
                             copy16 ? copy16->flat() : Tensor{});
      if (copy16) copy16->refresh_buffers(model.params);
      double host[2];
      copy(report, Tensor{host, report.shape, DType::F64, Device::cpu()});  // waits for the step
      zero(report);
      loss = host[0];
      norm = std::sqrt(host[1]);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (i >= warmup) seconds.push_back(s);
      if (bench::kCounted && i == warmup) break;  // the counted step is the first after warm-up
    }
    bench::measurement_ends("train " + dtype_name + " " + std::to_string(B) + "x(" + std::to_string(S) + "+" +
                            std::to_string(T) + ")");
    std::sort(seconds.begin(), seconds.end());
    const double median = seconds[seconds.size() / 2];
    const size_t state_bytes = 2 * model.arena.capacity() + optimizer.state_bytes() +
                               (copy16 ? copy16->flat().nbytes() : 0) + arena.capacity();
    std::printf(
        "{\"what\": \"train\", \"peer\": \"precis\", \"dtype\": \"%s\", \"device\": \"%s\", "
        "\"batch\": %lld, \"source\": %lld, \"target\": %lld, \"step_ms\": %.2f, "
        "\"tokens_per_s\": %.0f, \"loss\": %.6f, \"grad_norm\": %.6f, \"arena_gib\": %.2f}\n",
        dtype_name.c_str(), device.name().c_str(), (long long)B, (long long)S, (long long)T,
        median * 1e3, double(B * (S + T)) / median, loss, norm, double(state_bytes) / double(1 << 30));
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "precis_gpu_train_bench: error: %s\n", e.what());
    return 1;
  }
}
