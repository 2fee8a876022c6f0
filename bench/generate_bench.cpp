// Times precis's generate() on already-tokenized inputs with the checkpoint's generation
// config (bart-large-cnn's beam search when the checkpoint says so). Prints one JSON line:
// the best wall time over ITERATIONS runs, the generated ids of the last run, and the decoder
// steps taken. Driven by bench/generate.py, which runs transformers (and CTranslate2, when
// installed) on the same model and inputs in the same run.
//
//   generate_bench MODEL_DIR INPUTS_JSON ITERATIONS
//   INPUTS_JSON: {"inputs": [[ids...], ...]}
//
// With PRECIS_OP_PROFILE=1 it also prints to stderr where the runs went, op by op, per run,
// against this machine's sgemm rate measured after them (bench/gemm_rate.h).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gemm_rate.h"
#include "precis/core/error.h"
#include "precis/generate/generate.h"
#include "precis/kernels/op_profile.h"
#include "precis/model/bart/bart_model.h"
#include "precis/kernels/cpu/blas_core.h"

using namespace precis;

int main(int argc, char** argv) {
  precis::cpu::choose_blas_core(argv);  // OpenBLAS's best core for this CPU, as the CLI runs
  if (argc != 4) {
    std::fprintf(stderr, "usage: generate_bench MODEL_DIR INPUTS_JSON ITERATIONS\n");
    return 2;
  }
  try {
    BartModel model = BartModel::load(argv[1]);
    generate::GenerationConfig config =
        generate::GenerationConfig::from_model_directory(argv[1], special_tokens(model.config));
    std::ifstream in(argv[2]);
    check(bool(in), std::string(argv[2]) + ": cannot open");
    nlohmann::json j = nlohmann::json::parse(in);
    std::vector<std::vector<int32_t>> inputs =
        j.at("inputs").get<std::vector<std::vector<int32_t>>>();
    const int iterations = std::max(1, std::stoi(argv[3]));
    double best = 1e30, total = 0;
    generate::Generated out;
    op_profile_phase("generate");
    for (int i = 0; i < iterations; ++i) {
      auto start = std::chrono::steady_clock::now();
      out = generate::generate(model, inputs, config);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      best = std::min(best, s);
      total += s;
    }
    if (op_profile_enabled())
      std::fprintf(stderr, "%s", op_profile_table(iterations, total / iterations, bench::sgemm_gflops()).c_str());
    std::vector<std::vector<int32_t>> sequences;
    for (int64_t r = 0; r < out.rows; ++r)
      sequences.emplace_back(out.row(r).begin(), out.row(r).end());
    nlohmann::json result = {{"seconds", best}, {"sequences", sequences}};
    std::printf("%s\n", result.dump().c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "generate_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
