// precis's side of bench/t5_generate.py: generate() for a T5 checkpoint on already-tokenized
// inputs, one run at a time on request, so the driver can interleave precis's runs with
// transformers' generate() under the same machine load.
//
//   t5_generate_bench MODEL_DIR INPUTS_JSON
//   INPUTS_JSON: {"inputs": [[ids...], ...]} (any lengths; padded here as generate() does)
//
// Protocol (one JSON object per line on stdout): {"ready": true} once the model is loaded;
// then for each line on stdin, a JSON object of generation settings with transformers' names
// (applied over the checkpoint's GenerationConfig, as generate(**kwargs) does), one run's
// {"seconds", "sequences"}; end of input ends the process.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "precis/core/error.h"
#include "precis/generate/generate.h"
#include "precis/model/t5/t5_model.h"
#include "precis/kernels/cpu/blas_core.h"

using namespace precis;

int main(int argc, char** argv) {
  precis::cpu::choose_blas_core(argv);  // OpenBLAS's best core for this CPU, as the CLI runs
  if (argc != 3) {
    std::fprintf(stderr, "usage: t5_generate_bench MODEL_DIR INPUTS_JSON\n");
    return 2;
  }
  try {
    T5Model model = T5Model::load(argv[1]);
    const generate::GenerationConfig defaults = generate::GenerationConfig::from_model_directory(
        argv[1], special_tokens(model.config));
    std::ifstream in(argv[2]);
    check(bool(in), std::string(argv[2]) + ": cannot open");
    auto inputs = nlohmann::json::parse(in).at("inputs").get<std::vector<std::vector<int32_t>>>();
    std::printf("%s\n", nlohmann::json({{"ready", true}}).dump().c_str());
    std::fflush(stdout);

    std::string line;
    while (std::getline(std::cin, line)) {
      if (line.empty()) continue;
      generate::GenerationConfig config = defaults;
      config.update(nlohmann::json::parse(line), "stdin");
      auto start = std::chrono::steady_clock::now();
      generate::Generated out = generate::generate(model, inputs, config);
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::vector<std::vector<int32_t>> sequences;
      for (int64_t r = 0; r < out.rows; ++r)
        sequences.emplace_back(out.row(r).begin(), out.row(r).end());
      std::printf("%s\n",
                  nlohmann::json({{"seconds", seconds}, {"sequences", sequences}}).dump().c_str());
      std::fflush(stdout);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "t5_generate_bench: error: %s\n", e.what());
    return 1;
  }
}
