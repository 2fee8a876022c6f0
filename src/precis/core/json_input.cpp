#include "precis/core/json_input.h"

#include <algorithm>
#include <optional>

#include "precis/core/error.h"
#include "precis/core/file_bytes.h"

namespace precis {

size_t json_nesting_depth(std::string_view text) {
  size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

nlohmann::json parse_json(std::string_view text, const std::string& where) {
  // nlohmann ends the input at a NUL byte and would accept "{}\0garbage"; JSON has no place
  // for one (json.loads refuses it).
  if (size_t nul = text.find('\0'); nul != std::string_view::npos)
    throw Error(where + ": not valid JSON: a NUL byte at offset " + std::to_string(nul));
  check(json_nesting_depth(text) <= kMaxJsonNesting,
        where + ": JSON nested deeper than " + std::to_string(kMaxJsonNesting) + " levels");
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(where + ": not valid JSON: " + e.what());
  }
}

nlohmann::json read_json_file(const std::filesystem::path& path) {
  return parse_json(read_existing_file(path, path.string() + ": cannot open"), path.string());
}

nlohmann::json peek_json_file(const std::filesystem::path& path) {
  std::optional<std::string> text;
  try {
    text = read_file_bytes(path);
  } catch (const Error&) {
    // A file that cannot be read is, for a peek, one that is not there.
  }
  if (!text) return nlohmann::json(nlohmann::json::value_t::discarded);
  return nlohmann::json::parse(*text, nullptr, false);
}

std::string string_field_or_empty(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string json_quoted(std::string_view s) {
  return nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace precis
