// precis's side of bench/t5_train_step.py: a T5 training step (forward + loss + backward +
// gradient clipping + AdamW, fp32, dropout as the checkpoint says) on one fixed batch, run
// one step at a time on request so the driver can interleave precis's steps with
// transformers' and compare medians taken under the same machine load.
//
//   t5_train_bench MODEL_DIR BATCH_JSON
//   BATCH_JSON: {"input_ids": [[...] x B], "labels": [[...] x B]} (no padding: every row full)
//
// Protocol (one JSON object per line on stdout): {"ready": ...} once the model and every
// buffer are allocated; then for each line "step" read on stdin, one step's timing
// {"seconds", "forward_backward_s", "optimizer_s", "loss"}; at "quit" or end of input,
// {"peak_rss_mb"} (ru_maxrss: model, gradients, AdamW state, activations, the runtime).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "precis/core/error.h"
#include "precis/model/t5/t5.h"
#include "precis/model/t5/t5_model.h"
#include "precis/model/common/teacher_forcing.h"
#include "precis/train/optimizer.h"
#include "precis/kernels/cpu/blas_core.h"

using namespace precis;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// (B, L) I32 from a JSON list of B equal-length rows.
Tensor rows_to_tensor(const std::vector<std::vector<int32_t>>& rows, Arena& arena,
                      const std::string& what) {
  check(!rows.empty(), what + ": no rows");
  const int64_t B = int64_t(rows.size()), L = int64_t(rows[0].size());
  Tensor t = arena.alloc({B, L}, DType::I32);
  for (int64_t b = 0; b < B; ++b) {
    check(int64_t(rows[b].size()) == L, what + ": rows of different lengths");
    std::copy(rows[b].begin(), rows[b].end(), t.i32() + b * L);
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  precis::cpu::choose_blas_core(argv);  // OpenBLAS's best core for this CPU, as the CLI runs
  if (argc != 3) {
    std::fprintf(stderr, "usage: t5_train_bench MODEL_DIR BATCH_JSON\n");
    return 2;
  }
  try {
    T5Model model = T5Model::load(argv[1]);
    const T5Config& c = model.config;
    std::ifstream in(argv[2]);
    check(bool(in), std::string(argv[2]) + ": cannot open");
    nlohmann::json j = nlohmann::json::parse(in);
    auto source = j.at("input_ids").get<std::vector<std::vector<int32_t>>>();
    auto target = j.at("labels").get<std::vector<std::vector<int32_t>>>();
    const int64_t B = int64_t(source.size()), S = int64_t(source[0].size()),
                  T = int64_t(target[0].size());
    check(int64_t(target.size()) == B, "input_ids and labels have different batch sizes");

    Arena inputs(size_t(4 * B * (2 * S + 2 * T)) + 4096);
    Seq2SeqBatch batch;
    batch.input_ids = rows_to_tensor(source, inputs, "input_ids");
    batch.labels = rows_to_tensor(target, inputs, "labels");
    batch.attention_mask = inputs.alloc({B, S}, DType::I32);
    batch.decoder_input_ids = inputs.alloc({B, T}, DType::I32);
    for (int64_t i = 0; i < B * S; ++i) batch.attention_mask.i32()[i] = 1;
    for (int64_t b = 0; b < B; ++b) {  // T5's _shift_right
      batch.decoder_input_ids.i32()[b * T] = c.decoder_start_token_id;
      for (int64_t t = 1; t < T; ++t)
        batch.decoder_input_ids.i32()[b * T + t] = batch.labels.i32()[b * T + t - 1];
    }

    Arena measure = Arena::measuring();
    allocate_activations(c, measure, B, S, T, true);
    allocate_grad_scratch(c, measure, B, S, T);
    Arena arena(measure.used());
    T5Activations acts = allocate_activations(c, arena, B, S, T, true);
    T5GradScratch scratch = allocate_grad_scratch(c, arena, B, S, T);
    T5Model grads = T5Model::allocate(c);
    train::AdamW<T5Config> optimizer(c, {1e-5, 0.9, 0.999, 1e-8, 0.01});
    std::printf(
        "%s\n",
        nlohmann::json({{"ready", true}, {"parameters", parameter_count(c)}}).dump().c_str());
    std::fflush(stdout);

    std::string line;
    for (uint64_t step = 0; std::getline(std::cin, line) && line == "step"; ++step) {
      auto start = Clock::now();
      DropoutContext dropout{true, 42, step, 0};
      t5_forward(c, model.params, batch, acts, dropout);
      CrossEntropyResult ce = model_loss(batch, acts);
      t5_backward(c, model.params, batch, acts, dropout, 0.0f, float(1.0 / double(ce.counted)),
                  grads.params, scratch);
      const double forward_backward = seconds_since(start);
      auto update = Clock::now();
      optimizer.clipped_step(model.params, grads.params, 1e-5, 1.0);  // as the trainer steps
      const double optimizer_s = seconds_since(update);
      nlohmann::json out = {{"seconds", seconds_since(start)},
                            {"forward_backward_s", forward_backward},
                            {"optimizer_s", optimizer_s},
                            {"loss", ce.mean()}};
      std::printf("%s\n", out.dump().c_str());
      std::fflush(stdout);
    }
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    std::printf("%s\n",
                nlohmann::json({{"peak_rss_mb", double(usage.ru_maxrss) / 1024.0}}).dump().c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "t5_train_bench: error: %s\n", e.what());
    return 1;
  }
}
