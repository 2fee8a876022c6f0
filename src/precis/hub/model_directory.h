// A trained model's directory as the model card reads it: the files `precis train` writes to
// its output_dir, each a JSON object. config.json is required; a missing file is left unset, a
// malformed one throws precis::Error naming it (parsed through core/json_input.h).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "precis/core/error.h"

namespace precis::hub {

struct ModelDirectory {
  std::filesystem::path dir;
  nlohmann::json config;
  std::optional<nlohmann::json> args;     // training_args.json
  std::optional<nlohmann::json> state;    // trainer_state.json
  std::optional<nlohmann::json> eval;     // eval_results.json (validation split)
  std::optional<nlohmann::json> predict;  // predict_results.json (test split)
  std::optional<nlohmann::json> job;      // job_summary.json (world size of a data-parallel run)
};

ModelDirectory read_model_directory(const std::filesystem::path& dir);

// Runs `f`, turning nlohmann's type errors (a field of the wrong type) into an Error naming
// the file they came from.
template <typename F>
auto from_file(const std::filesystem::path& file, F&& f) {
  try {
    return f();
  } catch (const nlohmann::json::exception& e) {
    throw Error(file.string() + ": unexpected content (" + e.what() + ")");
  }
}

}  // namespace precis::hub
