#include "precis/platform/sagemaker_hyperparameters.h"

#include <algorithm>
#include <cctype>

#include "precis/core/error.h"
#include "precis/core/json_input.h"

namespace precis::platform {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string trimmed(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::optional<json> parsed(const std::string& text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}

// str() of a Python list of strings, ['a', 'b']: the quotes swapped for JSON's. Only lists
// whose items hold neither kind of quote, so the swap cannot change an item.
std::optional<json> python_string_list(const std::string& text) {
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') return std::nullopt;
  if (text.find('"') != std::string::npos) return std::nullopt;
  std::string swapped = text;
  std::replace(swapped.begin(), swapped.end(), '\'', '"');
  std::optional<json> j = parsed(swapped);
  if (!j || !j->is_array()) return std::nullopt;
  for (const json& item : *j)
    if (!item.is_string()) return std::nullopt;
  return j;
}

bool switch_value(const json& v, const std::string& key, const fs::path& file) {
  std::string s = v.is_string() ? trimmed(v.get<std::string>()) : v.dump();
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (s == "true" || s == "\"true\"") return true;
  if (s == "false" || s == "\"false\"") return false;
  throw Error(file.string() + ": " + key + ": expected true or false, found " + v.dump());
}

}  // namespace

json decode_hyperparameter(const std::string& text) {
  const std::string t = trimmed(text);
  if (!t.empty() && (t.front() == '"' || t.front() == '[' || t.front() == '{')) {
    if (std::optional<json> j = parsed(t)) {
      if (j->is_string() || j->is_array() || j->is_object()) return *j;
    }
    if (std::optional<json> list = python_string_list(t)) return *list;
  }
  return text;
}

SageMakerHyperparameters read_hyperparameters(const fs::path& file) {
  SageMakerHyperparameters h;
  std::error_code ec;
  if (!fs::exists(file, ec)) return h;
  const json j = read_json_file(file);
  if (!j.is_object())
    throw Error(file.string() + ": expected a JSON object of hyperparameters (name: string)");
  for (const auto& [key, raw] : j.items()) {
    const json value = raw.is_string() ? decode_hyperparameter(raw.get<std::string>()) : raw;
    if (key == "sagemaker_distributed_dataparallel_enabled" || key == "sagemaker_mpi_enabled") {
      h.data_parallel = h.data_parallel || switch_value(value, key, file);
    } else if (key == "sagemaker_mpi_num_of_processes_per_host") {
      const std::string s = value.is_string() ? trimmed(value.get<std::string>()) : value.dump();
      size_t used = 0;
      long long n = 0;
      try {
        n = std::stoll(s, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != s.size() || s.empty() || n < 1)
        throw Error(file.string() + ": " + key + ": expected a positive integer, found " +
                    raw.dump());
      h.processes_per_host = n;
    }
    if (key.rfind("sagemaker_", 0) == 0) continue;
    h.options.emplace_back(key, value);
  }
  return h;
}

}  // namespace precis::platform
