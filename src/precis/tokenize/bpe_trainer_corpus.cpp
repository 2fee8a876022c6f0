#include "precis/tokenize/bpe_trainer_corpus.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "precis/core/error.h"
#include "precis/core/file_bytes.h"
#include "precis/core/text_lines.h"
#include "precis/tokenize/utf8.h"

namespace precis::tokenize {

namespace fs = std::filesystem;

namespace {

std::string where(const fs::path& file, size_t line) {
  return file.string() + ":" + std::to_string(line + 1);
}

// The texts of one JSON line, or the error to report.
struct JsonLineTexts {
  std::vector<std::string> texts;
  std::optional<std::string> error;
};

JsonLineTexts parse_json_line(std::string_view line, const TrainingFileOptions& options) {
  JsonLineTexts out;
  if (size_t nul = line.find('\0'); nul != std::string_view::npos) {  // nlohmann would stop there
    out.error = "not valid JSON: a NUL byte at column " + std::to_string(nul + 1);
    return out;
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(line);
  } catch (const nlohmann::json::parse_error& e) {
    out.error = std::string("not valid JSON: ") + e.what();
    return out;
  }
  if (j.is_string()) {
    out.texts.push_back(j.get<std::string>());
    return out;
  }
  if (!j.is_object()) {
    out.error = "expected a JSON object (or string), found " + std::string(j.type_name());
    return out;
  }
  if (options.text_fields.empty()) {
    for (const auto& [key, value] : j.items())
      if (value.is_string()) out.texts.push_back(value.get<std::string>());
    return out;
  }
  for (const std::string& field : options.text_fields) {
    auto it = j.find(field);
    if (it == j.end() || !it->is_string()) {
      out.error = "no string field \"" + field + "\"" +
                  (it == j.end() ? std::string() : " (found " + std::string(it->type_name()) + ")");
      return out;
    }
    out.texts.push_back(it->get<std::string>());
  }
  return out;
}

}  // namespace

bool is_json_lines_file(const fs::path& file) {
  std::string ext = file.extension().string();
  return ext == ".jsonl" || ext == ".json";
}

void count_file_words(const fs::path& file, const TrainingFileOptions& options,
                      WordCounts& counts) {
  std::string content = read_existing_file(file, file.string() + ": cannot open for reading");
  std::vector<std::string_view> lines = lines_with_endings(content);
  if (!is_json_lines_file(file)) {
    size_t bad = find_invalid_utf8(content);
    if (bad != std::string::npos) {
      size_t line = size_t(std::count(content.begin(), content.begin() + bad, '\n'));
      throw Error(where(file, line) + ": not valid UTF-8 (byte " + std::to_string(bad) +
                  " of the file)");
    }
    counts.add_texts(lines);
    return;
  }
  std::vector<JsonLineTexts> parsed(lines.size());
#pragma omp parallel for schedule(dynamic, 256)
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find_first_not_of(" \t\r\n") == std::string_view::npos) continue;
    parsed[i] = parse_json_line(lines[i], options);
  }
  std::vector<std::string> texts;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (parsed[i].error) throw Error(where(file, i) + ": " + *parsed[i].error);
    for (std::string& t : parsed[i].texts) texts.push_back(std::move(t));
  }
  try {
    counts.add_texts(texts);
  } catch (const Error& e) {
    // nlohmann rejects invalid UTF-8 while parsing, so this is not expected; say where anyway.
    throw Error(file.string() + ": " + e.what());
  }
}

}  // namespace precis::tokenize
