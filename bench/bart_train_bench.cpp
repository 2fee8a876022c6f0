// Times precis's BART training step (forward + backward + clipping + AdamW) on random
// tokens of a given shape, after loading MODEL_DIR; prints one JSON line with the median
// step time, tokens/s and peak resident memory. Driven by bench/train_step.py.
//
//   bart_train_bench MODEL_DIR BATCH SOURCE_LEN TARGET_LEN ITERATIONS [bf16]
//
// bf16: the linear layers' and attention's products in bf16 with fp32 sums, as `precis train --bf16` on the CPU
// (kernels/matmul_precision.h).
//
// With PRECIS_OP_PROFILE=1 it also prints to stderr where the timed steps went, op by op and
// phase by phase, against this machine's sgemm rate measured after them (bench/gemm_rate.h).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "gemm_rate.h"
#include "precis/kernels/matmul_precision.h"
#include "precis/kernels/op_profile.h"
#include "precis/model/bart/bart.h"
#include "precis/model/bart/bart_model.h"
#include "precis/model/common/teacher_forcing.h"
#include "precis/train/optimizer.h"
#include "precis/kernels/cpu/blas_core.h"

using namespace precis;

int main(int argc, char** argv) {
  precis::cpu::choose_blas_core(argv);  // OpenBLAS's best core for this CPU, as the CLI runs
  if (argc != 6 && !(argc == 7 && std::string(argv[6]) == "bf16")) {
    std::fprintf(stderr, "usage: bart_train_bench MODEL_DIR BATCH SOURCE_LEN TARGET_LEN ITERATIONS [bf16]\n");
    return 2;
  }
  try {
    BartModel model = BartModel::load(argv[1]);
    ScopedCpuMatmulPrecision precision(argc == 7 ? MatmulPrecision::kBf16 : MatmulPrecision::kFp32);
    const int64_t B = std::stoll(argv[2]), S = std::stoll(argv[3]), T = std::stoll(argv[4]);
    const int iterations = std::stoi(argv[5]);
    const BartConfig& c = model.config;
    Arena inputs(size_t(4 * B * (2 * S + 2 * T)) + 4096);
    Seq2SeqBatch batch{inputs.alloc({B, S}, DType::I32), inputs.alloc({B, S}, DType::I32),
                       inputs.alloc({B, T}, DType::I32), inputs.alloc({B, T}, DType::I32)};
    std::mt19937 rng(0);
    std::uniform_int_distribution<int32_t> token(4, int32_t(c.vocab_size) - 1);
    for (int64_t i = 0; i < B * S; ++i) batch.input_ids.i32()[i] = token(rng), batch.attention_mask.i32()[i] = 1;
    for (int64_t i = 0; i < B * T; ++i) batch.labels.i32()[i] = token(rng);
    for (int64_t b = 0; b < B; ++b) {
      batch.decoder_input_ids.i32()[b * T] = c.decoder_start_token_id;
      for (int64_t t = 1; t < T; ++t) batch.decoder_input_ids.i32()[b * T + t] = batch.labels.i32()[b * T + t - 1];
    }
    Arena measure = Arena::measuring();
    allocate_activations(c, measure, B, S, T, true);
    allocate_grad_scratch(c, measure, B, S, T);
    Arena arena(measure.used());
    BartActivations acts = allocate_activations(c, arena, B, S, T, true);
    BartGradScratch scratch = allocate_grad_scratch(c, arena, B, S, T);
    BartModel grads = BartModel::allocate(c);
    train::AdamW optimizer(c, {1e-5, 0.9, 0.999, 1e-8, 0.01});
    std::vector<double> seconds;
    double loss = 0;
    for (int i = 0; i < iterations + 1; ++i) {
      auto start = std::chrono::steady_clock::now();
      DropoutContext dropout{true, 42, uint64_t(i), 0};
      op_profile_phase("forward");
      bart_forward(c, model.params, batch, acts, dropout);
      CrossEntropyResult ce = model_loss(batch, acts);
      loss = ce.mean();
      op_profile_phase("backward");
      bart_backward(c, model.params, batch, acts, dropout, 0.0f, float(1.0 / double(ce.counted)), grads.params, scratch);
      op_profile_phase("optimizer");
      optimizer.clipped_step(model.params, grads.params, 1e-5, 1.0);  // as the trainer steps
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (i > 0) seconds.push_back(s);
      if (i == 0) op_profile_reset();  // the warm-up step is not timed
    }
    std::sort(seconds.begin(), seconds.end());
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    double median = seconds[seconds.size() / 2];
    if (op_profile_enabled()) {
      double mean = 0;
      for (double s : seconds) mean += s / double(seconds.size());
      std::fprintf(stderr, "%s", op_profile_table(iterations, mean, bench::sgemm_gflops()).c_str());
    }
    std::printf("{\"median_s\": %.6f, \"min_s\": %.6f, \"tokens_per_s\": %.1f, \"peak_rss_mb\": %.1f, \"loss\": %.6f}\n",
                median, seconds.front(), double(B * (S + T)) / median, double(usage.ru_maxrss) / 1024.0, loss);
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "bart_train_bench: error: %s\n", e.what());
    return 1;
  }
}
