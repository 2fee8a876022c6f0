// JSON that users hand precis (config.json, generation_config.json, tokenizer files, the
// safetensors header, a checkpoint index, trainer_state.json) is parsed here, so that every
// reader refuses the same hostile inputs the same way. Nesting deeper than kMaxJsonNesting is
// refused before parsing: nlohmann parses deep nesting fine, but printing such a value (the
// dump() in an error message) recurses once per level and overflows the stack.
#pragma once

#include <cstddef>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace precis {

// Real configs and tokenizer files nest fewer than 10 levels.
inline constexpr size_t kMaxJsonNesting = 256;

// Deepest nesting of arrays and objects in a JSON text (brackets inside strings skipped).
size_t json_nesting_depth(std::string_view text);

// Parses `text`. Throws precis::Error "<where>: not valid JSON: ..." on a syntax error, and
// "<where>: JSON nested deeper than 256 levels" before parsing such a text.
nlohmann::json parse_json(std::string_view text, const std::string& where);

// A string as JSON writes it, for one-line error messages: quoted, control characters
// escaped, invalid UTF-8 replaced.
std::string json_quoted(std::string_view s);

// Reads and parses a file (errors name the file): "<path>: cannot open" when it cannot be read.
nlohmann::json read_json_file(const std::filesystem::path& path);

// A JSON file looked at without insisting on it (which model family or tokenizer a directory
// holds): the parsed value, or a discarded value when the file is missing or not JSON.
nlohmann::json peek_json_file(const std::filesystem::path& path);

// j[key] when j is an object with a string there, else "".
std::string string_field_or_empty(const nlohmann::json& j, const char* key);

}  // namespace precis
