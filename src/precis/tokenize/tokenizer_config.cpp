#include "precis/tokenize/tokenizer_config.h"

#include "precis/core/error.h"
#include "precis/core/json_input.h"

namespace precis::tokenize {

std::optional<size_t> model_max_length_from(const nlohmann::json& config, const std::string& where) {
  auto m = config.find("model_max_length");
  if (m == config.end() || m->is_null()) return std::nullopt;
  check(m->is_number() && m->get<double>() >= 0,
        where + ": \"model_max_length\" should be a number, found " + m->dump());
  if (m->get<double>() >= 9007199254740992.0) return std::nullopt;
  return m->get<size_t>();
}

std::optional<size_t> model_max_length_in(const std::filesystem::path& dir) {
  const std::filesystem::path path = dir / "tokenizer_config.json";
  if (!std::filesystem::exists(path)) return std::nullopt;
  const nlohmann::json config = read_json_file(path);
  check(config.is_object(), path.string() + ": should hold a JSON object");
  return model_max_length_from(config, path.string());
}

}  // namespace precis::tokenize
