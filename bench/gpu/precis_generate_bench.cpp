// precis's side of scripts/gpu-check.sh's beam-search benchmark, on the inputs bench/gpu/
// hf_peer.py gives the peer: bart-large (vocabulary 50264) with random weights, BATCH random
// inputs of SOURCE tokens (BOS first, EOS last), bart-large-cnn's generation settings (4 beams,
// length 56 to 142, length penalty 2, trigram ban, forced BOS and EOS), fp32 or bf16, on the GPU:
// the KV cache, the logits processors and the beams' candidates on the device. With random weights
// no beam ends early, so every run decodes max_length tokens, as the peer's does. Prints one
// JSON line in hf_peer.py's shape: the best of ITERATIONS runs after one warm-up.
//
//   precis_gpu_generate_bench BATCH SOURCE ITERATIONS [--tiny] [--bf16]
//     --tiny: a two-layer model, on the CPU when no GPU is present (a dry run of the driver)
//     --bf16: mixed precision, as HF's generate() runs inside torch.autocast(bfloat16)
//             (the fp32 master's bf16 compute copy; kv_cached_decoder.h); the peer's bf16 figure
//             is HF's model cast to bf16 (hf_peer.py)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "bart_large.h"
#include "gpu_backend.h"
#include "precis/generate/generate.h"
#include "precis/kernels/cpu/blas_core.h"
#include "precis/model/bart/bart_init.h"
#include "precis/model/bart/bart_model.h"
#include "precis/train/compute_copy.h"

using namespace precis;

int main(int argc, char** argv) {
  precis::cpu::choose_blas_core(argv);  // OpenBLAS's best core for this CPU, as the CLI runs
  bool tiny = false, bf16 = false, known = argc >= 4;
  for (int i = 4; i < argc; ++i) {
    tiny |= std::strcmp(argv[i], "--tiny") == 0;
    bf16 |= std::strcmp(argv[i], "--bf16") == 0;
    known &= std::strcmp(argv[i], "--tiny") == 0 || std::strcmp(argv[i], "--bf16") == 0;
  }
  if (!known) {
    std::fprintf(stderr,
                 "usage: precis_gpu_generate_bench BATCH SOURCE ITERATIONS [--tiny] [--bf16]\n");
    return 2;
  }
  try {
    const int64_t B = std::stoll(argv[1]), S = std::stoll(argv[2]);
    const int iterations = std::max(1, std::stoi(argv[3]));
    const bool gpu = bench::install_gpu();
    check(gpu || tiny, "no GPU is present (run with --tiny for a dry run on the CPU)");
    check(gpu || !bf16, "--bf16 generation runs on CUDA (the CPU generates in fp32)");
    const Device device = gpu ? Device::cuda(0) : Device::cpu();
    ScopedExecutionContext on(device);

    const BartConfig c = bench::bart_large_config(tiny);
    BartModel master = BartModel::allocate(c);
    initialize_bart(master, 42);
    // Under --bf16 the model generates from the master's mixed-precision view.
    std::optional<train::ComputeCopy<BartConfig>> copy;
    BartModel mixed;
    if (bf16) {
      copy.emplace(c, master.params, DType::BF16);
      copy->refresh(master.params);
      mixed.config = c;
      mixed.params = copy->mixed(master.params);
    }
    const BartModel& model = bf16 ? mixed : master;
    const std::string dtype = bf16 ? "bf16" : "fp32";
    const generate::GenerationConfig config = generate::GenerationConfig::from_json(
        {{"num_beams", 4}, {"max_length", 142}, {"min_length", 56}, {"length_penalty", 2.0},
         {"no_repeat_ngram_size", 3}, {"early_stopping", true}, {"bos_token_id", 0},
         {"pad_token_id", 1}, {"eos_token_id", 2}, {"decoder_start_token_id", 2},
         {"forced_bos_token_id", 0}, {"forced_eos_token_id", 2}},
        "bart-large-cnn's generation settings");
    std::mt19937 rng(1);
    std::uniform_int_distribution<int32_t> token(3, int32_t(c.vocab_size) - 1);
    std::vector<std::vector<int32_t>> inputs(static_cast<size_t>(B),
                                             std::vector<int32_t>(static_cast<size_t>(S)));
    for (auto& row : inputs) {
      for (int32_t& t : row) t = token(rng);
      row.front() = 0;
      row.back() = 2;
    }
    generate::Generated out = generate::generate(model, inputs, config);  // warm-up
    std::vector<double> runs;
    bench::measurement_starts();
    for (int i = 0; i < iterations; ++i) {
      auto start = std::chrono::steady_clock::now();
      out = generate::generate(model, inputs, config);  // returns host ids: the run is over
      runs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      if (bench::kCounted) break;  // one counted run
    }
    bench::measurement_ends("generate " + dtype + " " + std::to_string(B) + "x" +
                            std::to_string(S));
    const double best = *std::min_element(runs.begin(), runs.end());
    int64_t new_tokens = 0;
    for (int64_t r = 0; r < out.rows; ++r)
      for (int32_t t : out.row(r).subspan(1)) new_tokens += t != 1;
    nlohmann::json result = {{"what", "generate"},
                             {"peer", "precis"},
                             {"dtype", dtype},
                             {"device", device.name()},
                             {"batch", B},
                             {"source", S},
                             {"generated_len", out.width},
                             {"seconds", best},
                             {"tokens_per_s", double(new_tokens) / best},
                             {"runs_s", runs}};
    std::printf("%s\n", result.dump().c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "precis_gpu_generate_bench: error: %s\n", e.what());
    return 1;
  }
}
