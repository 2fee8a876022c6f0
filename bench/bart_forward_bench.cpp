// Times precis's BART forward (encoder + decoder + LM head + loss) on random token ids of a
// given shape, after loading MODEL_DIR. Prints one JSON line. Driven by bench/forward.py,
// which times transformers on the same model and shapes in the same run.
//
//   bart_forward_bench MODEL_DIR BATCH SOURCE_LEN TARGET_LEN ITERATIONS [bf16]
//
// bf16: the linear layers' and attention's products in bf16 with fp32 sums, as `precis train
// --bf16` runs them on the CPU (kernels/matmul_precision.h).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "precis/kernels/constant_weights.h"
#include "precis/kernels/cpu/blas_core.h"
#include "precis/kernels/matmul_precision.h"
#include "precis/model/bart/bart.h"
#include "precis/model/bart/bart_model.h"
#include "precis/model/common/teacher_forcing.h"

using namespace precis;

int main(int argc, char** argv) {
  precis::cpu::choose_blas_core(argv);  // OpenBLAS's best core for this CPU, as the CLI runs
  const std::string mode = argc == 7 ? argv[6] : "";
  if (argc != 6 && !(argc == 7 && (mode == "bf16" || mode == "bf16-kept"))) {
    std::fprintf(stderr,
                 "usage: bart_forward_bench MODEL_DIR BATCH SOURCE_LEN TARGET_LEN ITERATIONS "
                 "[bf16|bf16-kept]\n");
    return 2;
  }
  try {
    BartModel model = BartModel::load(argv[1]);
    ScopedCpuMatmulPrecision precision(argc == 7 ? MatmulPrecision::kBf16 : MatmulPrecision::kFp32);
    const int64_t B = std::stoll(argv[2]), S = std::stoll(argv[3]), T = std::stoll(argv[4]);
    const int iterations = std::stoi(argv[5]);
    Arena inputs(size_t(4 * B * (2 * S + 2 * T) + 4096));
    Seq2SeqBatch batch{inputs.alloc({B, S}, DType::I32), inputs.alloc({B, S}, DType::I32),
                       inputs.alloc({B, T}, DType::I32), inputs.alloc({B, T}, DType::I32)};
    std::mt19937 rng(0);
    std::uniform_int_distribution<int32_t> token(4, int32_t(model.config.vocab_size) - 1);
    for (int64_t i = 0; i < B * S; ++i) batch.input_ids.i32()[i] = token(rng), batch.attention_mask.i32()[i] = 1;
    for (int64_t i = 0; i < B * T; ++i) batch.labels.i32()[i] = token(rng);
    for (int64_t b = 0; b < B; ++b) {
      batch.decoder_input_ids.i32()[b * T] = model.config.decoder_start_token_id;
      for (int64_t t = 1; t < T; ++t) batch.decoder_input_ids.i32()[b * T + t] = batch.labels.i32()[b * T + t - 1];
    }
    Arena measure = Arena::measuring();
    allocate_activations(model.config, measure, B, S, T, false);
    Arena arena(measure.used());
    BartActivations acts = allocate_activations(model.config, arena, B, S, T, false);
    // bf16-kept: the weights hold still across the forwards, so their AMX packing is done once
    // (kernels/constant_weights.h), as torch reuses its bf16 weight copies within one autocast.
    std::optional<ConstantWeightsScope> kept;
    if (mode == "bf16-kept") kept.emplace(model.arena.base(), model.arena.capacity());
    std::vector<double> seconds;
    double loss = 0;
    for (int i = 0; i < iterations + 1; ++i) {  // the first run warms up and is not counted
      auto start = std::chrono::steady_clock::now();
      bart_forward(model.config, model.params, batch, acts);
      loss = model_loss(batch, acts).mean();
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (i > 0) seconds.push_back(s);
    }
    std::sort(seconds.begin(), seconds.end());
    double mean = 0;
    for (double s : seconds) mean += s / double(seconds.size());
    std::printf("{\"mean_s\": %.6f, \"median_s\": %.6f, \"min_s\": %.6f, \"loss\": %.6f, \"activation_bytes\": %zu}\n",
                mean, seconds[seconds.size() / 2], seconds.front(), loss, measure.used());
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "bart_forward_bench: error: %s\n", e.what());
    return 1;
  }
}
