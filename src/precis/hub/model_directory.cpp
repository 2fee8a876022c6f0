#include "precis/hub/model_directory.h"

#include <string>

#include "precis/core/file_bytes.h"
#include "precis/core/json_input.h"

namespace precis::hub {

namespace {

namespace fs = std::filesystem;

// The file's JSON object, or nullopt when the file does not exist.
std::optional<nlohmann::json> read_json_object(const fs::path& file) {
  std::optional<std::string> bytes = read_file_bytes(file);
  if (!bytes) {
    check(!fs::exists(file), file.string() + ": cannot open for reading");
    return std::nullopt;
  }
  nlohmann::json j = parse_json(*bytes, file.string());
  check(j.is_object(),
        file.string() + ": expected a JSON object, found " + std::string(j.type_name()));
  return j;
}

}  // namespace

ModelDirectory read_model_directory(const fs::path& dir) {
  check(fs::is_directory(dir), dir.string() + ": not a directory");
  ModelDirectory m;
  m.dir = dir;
  auto config = read_json_object(dir / "config.json");
  check(config.has_value(), dir.string() + ": not a model directory (no config.json)");
  m.config = *config;
  m.args = read_json_object(dir / "training_args.json");
  m.state = read_json_object(dir / "trainer_state.json");
  m.eval = read_json_object(dir / "eval_results.json");
  m.predict = read_json_object(dir / "predict_results.json");
  m.job = read_json_object(dir / "job_summary.json");
  return m;
}

}  // namespace precis::hub
