// Where settings come from: the config file (`--config job.json|job.yaml`, each value
// located by file and line for messages) and the command line (`--name value`,
// `--name=value`, bare `--flag` and HF's `--no_flag` for booleans, lists for report_to),
// collected as name/value pairs in order so that the command line overrides the file.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "precis/core/error.h"
#include "precis/core/file_bytes.h"
#include "precis/train/training_arguments_parsing.h"

namespace precis::train::parsing {

std::string normalise_name(std::string_view name) {
  std::string out(name);
  std::replace(out.begin(), out.end(), '-', '_');
  return out;
}

namespace {

json yaml_to_json(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar: {
      // Plain (unquoted) null spellings are null; everything else stays text and is
      // converted per option type, as a SageMaker string would be.
      const std::string& s = node.Scalar();
      if (node.Tag() == "?" && (s == "~" || s == "null" || s == "Null" || s == "NULL"))
        return nullptr;
      return s;
    }
    case YAML::NodeType::Sequence: {
      json out = json::array();
      for (const auto& item : node) out.push_back(yaml_to_json(item));
      return out;
    }
    case YAML::NodeType::Map: {
      json out = json::object();
      for (const auto& kv : node) out[kv.first.as<std::string>()] = yaml_to_json(kv.second);
      return out;
    }
  }
  return nullptr;
}

// 1-based line of a top-level `"key":` in JSON text, 0 when not found (nlohmann keeps no
// positions in its DOM).
size_t json_key_line(const std::string& text, const std::string& key) {
  std::string quoted = json(key).dump();
  for (size_t pos = text.find(quoted); pos != std::string::npos; pos = text.find(quoted, pos + 1)) {
    size_t after = pos + quoted.size();
    while (after < text.size() && std::isspace(static_cast<unsigned char>(text[after]))) ++after;
    if (after < text.size() && text[after] == ':')
      return size_t(std::count(text.begin(), text.begin() + long(pos), '\n')) + 1;
  }
  return 0;
}

}  // namespace

std::vector<Setting> read_config_file(const std::string& path) {
  std::filesystem::path p(path);
  std::string name = p.filename().string();
  const std::string text = read_existing_file(p, "--config " + path + ": cannot open the file");
  std::string extension = lower(p.extension().string());

  auto located = [&](size_t line) { return line ? path + ":" + std::to_string(line) : path; };
  std::vector<Setting> settings;
  if (extension == ".yaml" || extension == ".yml") {
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      throw Error(located(size_t(e.mark.line + 1)) + ": invalid YAML: " + e.msg);
    }
    if (root.IsNull()) return settings;
    if (!root.IsMap())
      throw Error(path + ": expected a YAML mapping of hyperparameters (name: value)");
    for (const auto& kv : root) {
      if (!kv.first.IsScalar())
        throw Error(located(size_t(kv.first.Mark().line + 1)) + ": expected a name as key");
      std::string key = kv.first.Scalar();
      size_t line = size_t(kv.first.Mark().line + 1);
      settings.push_back({key, yaml_to_json(kv.second), {located(line) + ": " + key}, true});
    }
    return settings;
  }
  if (extension != ".json")
    throw Error("--config " + path + ": expected a .json, .yaml or .yml file");
  if (size_t nul = text.find('\0'); nul != std::string::npos)  // nlohmann would stop there
    throw Error(path + ": invalid JSON: a NUL byte at offset " + std::to_string(nul));
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    // e.what() reads "[json.exception.parse_error.101] parse error at line 3, column 5: ..."
    std::string what = e.what();
    size_t at = what.find("] ");
    throw Error(path + ": invalid JSON: " + (at == std::string::npos ? what : what.substr(at + 2)));
  }
  if (!root.is_object())
    throw Error(path + ": expected a JSON object of hyperparameters ({\"name\": value, ...})");
  for (const auto& [key, value] : root.items())
    settings.push_back({key, value, {located(json_key_line(text, key)) + ": " + key}, true});
  return settings;
}

// Splits the command line into settings; the config file's path comes out separately.
std::vector<Setting> read_command_line(const std::vector<std::string>& argv,
                                       std::optional<std::string>& config_path) {
  std::vector<Setting> settings;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& token = argv[i];
    if (token == "--help" || token == "-h") throw HelpRequested(training_arguments_help());
    if (!token.starts_with("--") || token.size() == 2)
      throw Error("unexpected argument \"" + token + "\": options are written --name value");
    std::string body = token.substr(2);
    std::optional<std::string> inline_value;
    if (size_t eq = body.find('='); eq != std::string::npos) {
      inline_value = body.substr(eq + 1);
      body.resize(eq);
    }
    std::string name = normalise_name(body);
    std::string label = "--" + name;
    bool next_is_value = i + 1 < argv.size() && !argv[i + 1].starts_with("--");

    if (name == "config") {
      if (config_path) throw Error("--config given twice");
      if (inline_value)
        config_path = *inline_value;
      else if (i + 1 < argv.size())
        config_path = argv[++i];
      else
        throw Error("--config: expected a file name");
      continue;
    }

    // Booleans: bare --flag is true; --flag VALUE and --flag=VALUE take a value; HF's
    // --no_flag sets false.
    const Option* option = find_option(name);
    const IgnoredOption* ignored = option ? nullptr : find_ignored(name);
    bool is_bool = (option && is_bool_option(*option)) || (ignored && ignored->kind == Kind::kBool);
    if (!option && !ignored && name.starts_with("no_")) {
      std::string positive = name.substr(3);
      const Option* o = find_option(positive);
      const IgnoredOption* g = o ? nullptr : find_ignored(positive);
      if ((o && is_bool_option(*o)) || (g && g->kind == Kind::kBool)) {
        if (inline_value) throw Error(label + ": takes no value");
        settings.push_back({positive, false, {label}, false});
        continue;
      }
    }
    json value;
    if (inline_value) {
      value = *inline_value;
    } else if (is_bool) {
      value = next_is_value ? json(argv[++i]) : json(true);
    } else if (ignored && ignored->kind == Kind::kList) {
      json list = json::array();
      while (i + 1 < argv.size() && !argv[i + 1].starts_with("--")) list.push_back(argv[++i]);
      if (list.empty()) throw Error(label + ": expected one or more values");
      value = list;
    } else if (i + 1 < argv.size()) {
      // A value may start with a single dash (--max_steps -1); one with two needs --name=VALUE.
      if (!next_is_value) throw Error(label + ": expected a value (write --" + name + "=VALUE)");
      value = argv[++i];
    } else {
      throw Error(label + ": expected a value");
    }
    settings.push_back({name, value, {label}, false});
  }
  return settings;
}

}  // namespace precis::train::parsing
