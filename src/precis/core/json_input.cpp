#include "precis/core/json_input.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "precis/core/error.h"

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
  std::ifstream in(path, std::ios::binary);
  check(bool(in), path.string() + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  check(!in.bad(), path.string() + ": read error");
  return parse_json(text.str(), path.string());
}

std::string json_quoted(std::string_view s) {
  return nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace precis
