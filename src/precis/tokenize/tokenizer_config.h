// What transformers' tokenizer_config.json says that every tokenizer family reads alike.
#pragma once

#include <cstddef>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace precis::tokenize {

// tokenizer.model_max_length: nullopt when the config has none, or has HF's int(1e30) for
// "no limit" (anything past 2^53). Throws naming `where` when it is not a non-negative number.
std::optional<size_t> model_max_length_from(const nlohmann::json& config, const std::string& where);

// The same, read from dir/tokenizer_config.json; nullopt when there is no such file.
std::optional<size_t> model_max_length_in(const std::filesystem::path& dir);

}  // namespace precis::tokenize
