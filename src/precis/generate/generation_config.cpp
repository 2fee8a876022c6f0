#include "precis/generate/generation_config.h"

#include <fstream>
#include <nlohmann/json.hpp>

#include "precis/core/error.h"
#include "precis/core/json_input.h"

namespace precis::generate {

namespace {

using nlohmann::json;

std::string where(const std::string& source, const char* key) {
  return source + ": field \"" + key + "\"";
}

int64_t integer(const json& v, const std::string& source, const char* key) {
  check(v.is_number_integer(), where(source, key) + " must be an integer, found " + v.dump());
  return v.get<int64_t>();
}

double number(const json& v, const std::string& source, const char* key) {
  check(v.is_number(), where(source, key) + " must be a number, found " + v.dump());
  return v.get<double>();
}

bool boolean(const json& v, const std::string& source, const char* key) {
  check(v.is_boolean(), where(source, key) + " must be true or false, found " + v.dump());
  return v.get<bool>();
}

int32_t token(const json& v, const std::string& source, const char* key) {
  int64_t id = integer(v, source, key);
  check(id >= 0 && id <= INT32_MAX, where(source, key) + " must be a token id, found " + v.dump());
  return int32_t(id);
}

// An int or a list of ints (eos_token_id, forced_eos_token_id).
std::vector<int32_t> tokens(const json& v, const std::string& source, const char* key) {
  if (v.is_null()) return {};
  if (!v.is_array()) return {token(v, source, key)};
  std::vector<int32_t> out;
  for (const json& x : v) out.push_back(token(x, source, key));
  return out;
}

// Every key GenerationConfig() and PretrainedConfig share, with 4.44's defaults: a config.json
// holding any of them with another value "has non-default generation parameters".
bool has_non_default_generation_parameters(const json& c) {
  static const json defaults = {
      {"max_length", 20},
      {"min_length", 0},
      {"do_sample", false},
      {"early_stopping", false},
      {"num_beams", 1},
      {"num_beam_groups", 1},
      {"diversity_penalty", 0.0},
      {"temperature", 1.0},
      {"top_k", 50},
      {"top_p", 1.0},
      {"typical_p", 1.0},
      {"repetition_penalty", 1.0},
      {"length_penalty", 1.0},
      {"no_repeat_ngram_size", 0},
      {"encoder_no_repeat_ngram_size", 0},
      {"bad_words_ids", nullptr},
      {"num_return_sequences", 1},
      {"output_scores", false},
      {"return_dict_in_generate", false},
      {"forced_bos_token_id", nullptr},
      {"forced_eos_token_id", nullptr},
      {"remove_invalid_values", false},
      {"exponential_decay_length_penalty", nullptr},
      {"suppress_tokens", nullptr},
      {"begin_suppress_tokens", nullptr},
  };
  for (const auto& [key, value] : defaults.items())
    if (c.contains(key) && c[key] != value) return true;
  return false;
}

json read_json(const std::filesystem::path& path) { return read_json_file(path); }

}  // namespace

EarlyStopping early_stopping_from_string(const std::string& s) {
  if (s == "true" || s == "True") return EarlyStopping::kTrue;
  if (s == "false" || s == "False") return EarlyStopping::kFalse;
  if (s == "never") return EarlyStopping::kNever;
  throw Error("early_stopping must be true, false or \"never\", found \"" + s + "\"");
}

void GenerationConfig::update(const json& j, const std::string& source) {
  check(j.is_object(), source + ": generation settings must be a JSON object");
  for (const auto& [key, v] : j.items()) {
    const char* k = key.c_str();
    if (key == "max_length")
      max_length = integer(v, source, k);
    else if (key == "max_new_tokens")
      max_new_tokens = v.is_null() ? std::nullopt : std::optional(integer(v, source, k));
    else if (key == "min_length")
      min_length = integer(v, source, k);
    else if (key == "min_new_tokens")
      min_new_tokens = v.is_null() ? std::nullopt : std::optional(integer(v, source, k));
    else if (key == "do_sample")
      do_sample = boolean(v, source, k);
    else if (key == "num_beams")
      num_beams = integer(v, source, k);
    else if (key == "early_stopping") {
      if (v.is_string()) {
        check(v.get<std::string>() == "never",
              where(source, k) + " must be true, false or \"never\", found " + v.dump());
        early_stopping = EarlyStopping::kNever;
      } else {
        early_stopping = boolean(v, source, k) ? EarlyStopping::kTrue : EarlyStopping::kFalse;
      }
    } else if (key == "length_penalty")
      length_penalty = number(v, source, k);
    else if (key == "no_repeat_ngram_size")
      no_repeat_ngram_size = integer(v, source, k);
    else if (key == "repetition_penalty")
      repetition_penalty = number(v, source, k);
    else if (key == "bad_words_ids") {
      bad_words_ids.clear();
      if (v.is_null()) continue;
      check(v.is_array(), where(source, k) + " must be a list of lists of token ids");
      for (const json& word : v) {
        check(word.is_array() && !word.empty(),
              where(source, k) + " must be a list of non-empty lists of token ids");
        bad_words_ids.push_back(tokens(word, source, k));
      }
    } else if (key == "forced_bos_token_id")
      forced_bos_token_id = v.is_null() ? std::nullopt : std::optional(token(v, source, k));
    else if (key == "forced_eos_token_id")
      forced_eos_token_id = tokens(v, source, k);
    else if (key == "num_return_sequences")
      num_return_sequences = integer(v, source, k);
    else if (key == "temperature")
      temperature = number(v, source, k);
    else if (key == "top_k")
      top_k = integer(v, source, k);
    else if (key == "top_p")
      top_p = number(v, source, k);
    else if (key == "pad_token_id")
      pad_token_id = v.is_null() ? std::nullopt : std::optional(token(v, source, k));
    else if (key == "bos_token_id")
      bos_token_id = v.is_null() ? std::nullopt : std::optional(token(v, source, k));
    else if (key == "decoder_start_token_id")
      decoder_start_token_id = v.is_null() ? std::nullopt : std::optional(token(v, source, k));
    else if (key == "eos_token_id")
      eos_token_id = tokens(v, source, k);
    else if (key == "seed")
      seed = uint64_t(integer(v, source, k));
  }
}

GenerationConfig GenerationConfig::from_json(const json& j, const std::string& source) {
  GenerationConfig c;
  c.update(j, source);
  return c;
}

GenerationConfig GenerationConfig::from_file(const std::filesystem::path& path, const json& model_config_json,
                                             const SpecialTokens& model) {
  json generation_json = read_json(path);
  check(generation_json.is_object(),
        path.string() + ": expected a JSON object, found " + std::string(generation_json.type_name()));
  // generate()'s legacy rule: a generation config derived from the model config gives way
  // to config.json's own generation keys.
  bool from_model_config_flag = false;
  if (auto flag = generation_json.find("_from_model_config"); flag != generation_json.end() && !flag->is_null()) {
    check(flag->is_boolean(), path.string() + ": _from_model_config: expected true or false, found " + flag->dump());
    from_model_config_flag = flag->get<bool>();
  }
  if (from_model_config_flag && has_non_default_generation_parameters(model_config_json))
    return from_model_config(model_config_json, model, "config.json");
  return from_json(generation_json, path.string());
}

GenerationConfig GenerationConfig::from_model_config(const json& config_json,
                                                     const SpecialTokens& model,
                                                     const std::string& source) {
  GenerationConfig c;
  c.update(config_json, source);
  // The token ids as the model config resolved them (defaults and legacy keys included).
  c.pad_token_id = model.pad_token_id;
  c.bos_token_id = model.bos_token_id;
  c.eos_token_id = {model.eos_token_id};
  c.decoder_start_token_id = model.decoder_start_token_id;
  c.forced_bos_token_id = model.forced_bos_token_id;
  c.forced_eos_token_id.clear();
  if (model.forced_eos_token_id) c.forced_eos_token_id = {*model.forced_eos_token_id};
  return c;
}

GenerationConfig GenerationConfig::from_model_directory(const std::filesystem::path& dir,
                                                        const SpecialTokens& model) {
  const std::filesystem::path config_path = dir / "config.json";
  const std::filesystem::path generation_path = dir / "generation_config.json";
  json config_json = read_json(config_path);
  if (!std::filesystem::exists(generation_path))
    return from_model_config(config_json, model, config_path.string());
  return from_file(generation_path, config_json, model);
}

ResolvedGeneration resolve(const GenerationConfig& config, const SpecialTokens& model) {
  ResolvedGeneration r;
  r.config = config;
  r.semantics = hf_semantics();
  GenerationConfig& c = r.config;
  r.eos_token_ids = c.eos_token_id;
  r.decoder_start_token_id = c.decoder_start_token_id ? *c.decoder_start_token_id
                             : c.bos_token_id         ? *c.bos_token_id
                                                      : model.decoder_start_token_id;
  if (c.pad_token_id)
    r.pad_token_id = *c.pad_token_id;
  else if (!r.eos_token_ids.empty())
    r.pad_token_id = r.eos_token_ids[0];  // HF: warning only
  else
    r.pad_token_id = model.pad_token_id;

  if (c.max_new_tokens) c.max_length = *c.max_new_tokens + r.prompt_length;
  if (c.min_new_tokens) c.min_length = *c.min_new_tokens + r.prompt_length;

  check(c.max_length > r.prompt_length || c.max_new_tokens,
        "max_length (" + std::to_string(c.max_length) +
            ") must exceed the decoder prompt length (1): nothing would be generated");
  check(c.max_length >= 1, "max_length must be positive");
  check(!c.max_new_tokens || *c.max_new_tokens > 0, "max_new_tokens must be greater than 0");
  check(c.num_beams >= 1,
        "num_beams must be a positive integer, found " + std::to_string(c.num_beams));
  check(c.num_return_sequences >= 1, "num_return_sequences must be a positive integer");
  if (!c.do_sample && c.num_beams == 1)
    check(c.num_return_sequences == 1,
          "Greedy methods without beam search do not support `num_return_sequences` different "
          "than 1 (got " +
              std::to_string(c.num_return_sequences) + ").");
  if (c.num_beams > 1)
    check(c.num_return_sequences <= c.num_beams,
          "`num_return_sequences` (" + std::to_string(c.num_return_sequences) +
              ") has to be smaller or equal to `num_beams` (" + std::to_string(c.num_beams) + ").");
  check(c.repetition_penalty > 0, "`repetition_penalty` has to be a strictly positive float");
  check(c.no_repeat_ngram_size >= 0, "no_repeat_ngram_size must be >= 0");
  if (c.do_sample) {
    check(c.temperature > 0, "`temperature` has to be a strictly positive float");
    check(c.top_k >= 0, "`top_k` must be >= 0");
    check(c.top_p >= 0 && c.top_p <= 1.0, "`top_p` has to be a float >= 0 and <= 1");
  }
  for (const auto& word : c.bad_words_ids)
    for (int32_t id : word)
      check(id < model.vocab_size, "bad_words_ids: token " + std::to_string(id) +
                                       " is outside the vocabulary (" +
                                       std::to_string(model.vocab_size) + ")");
  return r;
}

}  // namespace precis::generate
