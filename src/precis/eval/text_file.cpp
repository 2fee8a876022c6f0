#include "precis/eval/text_file.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "precis/core/error.h"
#include "precis/core/text_lines.h"

namespace precis::eval {
namespace {

// Lines without their "\n" or "\r\n" endings.
std::vector<std::string_view> split_lines(std::string_view content) {
  std::vector<std::string_view> lines = lines_with_endings(content);
  for (std::string_view& line : lines) {
    if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  }
  return lines;
}

bool is_blank(std::string_view line) {
  return line.find_first_not_of(" \t\r\f\v") == std::string_view::npos;
}

}  // namespace

std::vector<std::string> parse_texts(std::string_view content) {
  const std::vector<std::string_view> lines = split_lines(content);
  std::vector<std::string> json_texts;
  bool all_json = false;
  for (std::string_view line : lines) {
    if (is_blank(line)) continue;
    // nlohmann stops at a NUL byte: a line holding one is not a JSON string.
    const nlohmann::json value = line.find('\0') == std::string_view::npos
                                     ? nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false)
                                     : nlohmann::json();
    if (!value.is_string()) {
      all_json = false;
      break;
    }
    json_texts.push_back(value.get<std::string>());
    all_json = true;
  }
  if (all_json) return json_texts;
  return {lines.begin(), lines.end()};
}

std::vector<std::string> read_texts(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  check(static_cast<bool>(in), "cannot open '" + path + "' for reading");
  std::stringstream buffer;
  buffer << in.rdbuf();
  check(!in.bad(), "error while reading '" + path + "'");
  return parse_texts(buffer.str());
}

}  // namespace precis::eval
