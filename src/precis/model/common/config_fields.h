// Reading and writing config.json fields, shared by the model configs (BART, T5). Reading
// checks ranges and names the file and field in errors; a missing or null key leaves the
// default. A config lists its plain fields once, as calls on a `Fields` (ConfigFieldReader or
// ConfigFieldWriter, which have the same methods), and from_json and to_json both run that list.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "precis/core/error.h"
#include "precis/core/file_bytes.h"
#include "precis/core/hf_semantics.h"
#include "precis/core/json_input.h"

namespace precis {

// A model directory's config.json, parsed; errors name the file.
inline nlohmann::json read_model_config(const std::filesystem::path& path) {
  return parse_json(
      read_existing_file(path,
                         path.string() + ": cannot open (a model directory needs a config.json)"),
      path.string());
}

// config_name's config.json, when it is not a preset: the file itself, or the config.json of a
// directory of that name. Anything else is an error listing `presets`.
inline std::filesystem::path config_name_file(const std::string& name_or_path,
                                              const std::string& presets) {
  std::filesystem::path p(name_or_path);
  if (std::filesystem::is_directory(p)) p /= "config.json";
  check(std::filesystem::is_regular_file(p), "config_name " + json_quoted(name_or_path) +
                                                 " is neither a preset (" + presets +
                                                 ") nor a config.json file or model directory");
  return p;
}

// config.json's model_type, which must be `expected`: `loader` names the loader in the error.
inline std::string expect_model_type(const nlohmann::json& j, const std::string& source,
                                     const std::string& expected, const std::string& loader) {
  check(j.is_object(), source + ": expected a JSON object, found " + std::string(j.type_name()));
  auto type = j.find("model_type");
  check(type != j.end() && type->is_string(),
        source + ": no \"model_type\" string; expected \"" + expected + "\"");
  std::string found = type->get<std::string>();
  check(found == expected, source + ": model_type \"" + found + "\" is not supported by " + loader +
                               " (expected \"" + expected + "\")");
  return found;
}

// A config.json as save_pretrained writes it, before the family's own fields: model_type,
// the one architecture, and the keys every encoder-decoder config precis writes holds.
inline nlohmann::json encoder_decoder_config_json(const std::string& model_type,
                                                  const char* architecture) {
  nlohmann::json j;
  j["model_type"] = model_type;
  j["architectures"] = {architecture};
  j["is_encoder_decoder"] = true;
  j["use_cache"] = true;
  j["torch_dtype"] = "float32";
  // The release whose semantics wrote it (--hf_semantics), as save_pretrained records its own.
  j["transformers_version"] = std::string(transformers_version_of(hf_semantics()));
  return j;
}

// Sizes beyond these are refused before anything is allocated (a corrupt or hostile config).
namespace config_limits {
constexpr int64_t kMaxWidth = 1 << 16, kMaxLayers = 1024, kMaxVocab = 1 << 24;
}  // namespace config_limits

struct ConfigFieldReader {
  const nlohmann::json& j;
  const std::string& source;

  std::string where(const char* key) const { return source + ": field \"" + key + "\""; }

  // The value at `key`; nullptr when the key is missing or null (the default stays).
  const nlohmann::json* present(const char* key) const {
    auto it = j.find(key);
    return it == j.end() || it->is_null() ? nullptr : &*it;
  }

  // `found`: the value as the error shows it.
  template <class T>
  void check_range(const char* key, T v, T lo, T hi, const std::string& found) const {
    check(v >= lo && v <= hi, where(key) + " must be in [" + std::to_string(lo) + ", " +
                                  std::to_string(hi) + "], found " + found);
  }

  void integer(const char* key, int64_t& out, int64_t lo, int64_t hi) const {
    const nlohmann::json* it = present(key);
    if (!it) return;
    check(it->is_number_integer(), where(key) + " must be an integer, found " + it->dump());
    int64_t v = it->get<int64_t>();
    check_range(key, v, lo, hi, std::to_string(v));
    out = v;
  }
  void token(const char* key, int32_t& out) const {
    int64_t v = out;
    integer(key, v, 0, int64_t(1) << 24);
    out = int32_t(v);
  }
  void optional_token(const char* key, std::optional<int32_t>& out) const {
    auto it = j.find(key);
    if (it == j.end()) return;
    if (it->is_null()) {
      out.reset();
      return;
    }
    int32_t v = 0;
    token(key, v);
    out = v;
  }
  void real(const char* key, double& out, double lo, double hi) const {
    const nlohmann::json* it = present(key);
    if (!it) return;
    check(it->is_number(), where(key) + " must be a number, found " + it->dump());
    double v = it->get<double>();
    check_range(key, v, lo, hi, it->dump());
    out = v;
  }
  void text(const char* key, std::string& out) const {
    const nlohmann::json* it = present(key);
    if (!it) return;
    check(it->is_string(), where(key) + " must be a string");
    out = it->get<std::string>();
  }
  void boolean(const char* key, bool& out) const {
    const nlohmann::json* it = present(key);
    if (!it) return;
    check(it->is_boolean(), where(key) + " must be true or false, found " + it->dump());
    out = it->get<bool>();
  }
};

// The keys of HF's PretrainedConfig that both families' configs hold, in the order each reads
// them (BART's has a BOS, T5's none). Fields: ConfigFieldReader or ConfigFieldWriter.
template <class Fields, class Config>
void pretrained_token_fields(const Fields& f, Config& c) {
  f.boolean("tie_word_embeddings", c.tie_word_embeddings);
  f.token("pad_token_id", c.pad_token_id);
  if constexpr (requires { c.bos_token_id; }) f.token("bos_token_id", c.bos_token_id);
  f.token("eos_token_id", c.eos_token_id);
  f.token("decoder_start_token_id", c.decoder_start_token_id);
}

// ConfigFieldReader's methods, writing each value under its key (ranges are for reading).
struct ConfigFieldWriter {
  nlohmann::json& j;

  void integer(const char* key, int64_t v, int64_t, int64_t) const { j[key] = v; }
  void token(const char* key, int32_t v) const { j[key] = v; }
  // An unset token is written as null.
  void optional_token(const char* key, const std::optional<int32_t>& v) const {
    j[key] = v ? nlohmann::json(*v) : nullptr;
  }
  void real(const char* key, double v, double, double) const { j[key] = v; }
  void text(const char* key, const std::string& v) const { j[key] = v; }
  void boolean(const char* key, bool v) const { j[key] = v; }
};

}  // namespace precis
