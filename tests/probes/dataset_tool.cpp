// Reads a dataset file with precis::data and prints its records as JSON lines
// {"text", "summary", "line"}, then the counts as one JSON object on stderr, for the oracle
// test that compares with Python's json and csv modules.
//
//   dataset_tool FILE [--text_column C] [--summary_column C] [--field F] [--skip_bad]
//                [--max_samples N] [--max_record_bytes N] [--no_na_values]
#include <cstdio>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "precis/core/error.h"
#include "precis/data/dataset.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: dataset_tool FILE [options]\n");
    return 2;
  }
  precis::data::ReadOptions options;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--text_column")
      options.text_column = value();
    else if (arg == "--summary_column")
      options.summary_column = value();
    else if (arg == "--field")
      options.field = value();
    else if (arg == "--skip_bad")
      options.skip_bad_records = true;
    else if (arg == "--max_samples")
      options.max_samples = std::stoull(value());
    else if (arg == "--max_record_bytes")
      options.max_record_bytes = std::stoull(value());
    else if (arg == "--no_na_values")
      options.csv_na_values = false;
    else {
      std::fprintf(stderr, "dataset_tool: unknown option %s\n", arg.c_str());
      return 2;
    }
  }
  try {
    auto stats = precis::data::read_records(argv[1], options, [](precis::data::Record&& r) {
      nlohmann::json j = {{"text", r.text}, {"summary", r.summary}, {"line", r.line}};
      std::cout << j.dump() << '\n';
    });
    nlohmann::json counts = {{"rows", stats.rows},
                             {"kept", stats.kept},
                             {"dropped_empty", stats.dropped_empty},
                             {"skipped_bad", stats.skipped_bad}};
    std::cout.flush();
    std::cerr << counts.dump() << '\n';
  } catch (const precis::Error& e) {
    std::cout.flush();
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
