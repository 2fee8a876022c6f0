// Encode throughput of precis's byte-level BPE tokenizer, excluding process start and
// loading: reads JSON lines of texts (one JSON string per line), encodes them one by one on
// one thread and then with encode_batch (OpenMP, all threads), best of --repeat runs after a
// warm-up pass each (so both sides run with a warm word cache, as HF's BPE cache is).
// Prints one JSON object. Driven by bench/tokenizer_throughput.py.
//   tokenize_bench MODEL_DIR TEXTS.jsonl [REPEAT]
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "precis/core/error.h"
#include "precis/tokenize/tokenizer.h"

using precis::tokenize::Tokenizer;

namespace {

template <class F>
double best_seconds(int repeat, F&& run) {
  run();  // warm-up
  double best = 1e30;
  for (int r = 0; r < repeat; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    run();
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s MODEL_DIR TEXTS.jsonl [REPEAT]\n", argv[0]);
    return 2;
  }
  try {
    Tokenizer tokenizer = Tokenizer::from_directory(argv[1]);
    int repeat = argc > 3 ? std::stoi(argv[3]) : 3;
    std::ifstream in(argv[2]);
    precis::check(in.good(), std::string(argv[2]) + ": cannot open");
    std::vector<std::string> texts;
    size_t bytes = 0;
    for (std::string line; std::getline(in, line);) {
      if (line.empty()) continue;
      texts.push_back(nlohmann::json::parse(line).get<std::string>());
      bytes += texts.back().size();
    }
    size_t tokens = 0;
    double single = best_seconds(repeat, [&] {
      tokens = 0;
      for (const std::string& t : texts) tokens += tokenizer.encode(t).size();
    });
    double batch = best_seconds(repeat, [&] { (void)tokenizer.encode_batch(texts); });
    nlohmann::ordered_json out = {{"texts", texts.size()},
                                  {"bytes", bytes},
                                  {"tokens", tokens},
                                  {"threads", omp_get_max_threads()},
                                  {"single_mb_s", bytes / single / 1e6},
                                  {"batch_mb_s", bytes / batch / 1e6}};
    std::printf("%s\n", out.dump().c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tokenize_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
