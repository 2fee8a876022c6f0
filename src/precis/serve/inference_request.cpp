#include "precis/serve/inference_request.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <iterator>
#include <optional>

#include "precis/core/json_input.h"
#include "precis/tokenize/utf8.h"

namespace precis::serve {

namespace {

using nlohmann::json;

// Thrown inside the parser only; parse_inference_request turns it into a RequestError.
struct Invalid {
  std::string message;
};

std::string field(const std::string& key) { return "parameters." + key; }

// A client's key quoted for a message, cut short: keys are echoed, and may be megabytes.
std::string quoted(const std::string& key) {
  return "\"" + (key.size() > 40 ? key.substr(0, 40) + "..." : key) + "\"";
}

// Short rendering of a wrong value for a message (a huge value is not echoed back whole).
std::string shown(const json& v) {
  std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
  return s.size() > 40 ? s.substr(0, 40) + "..." : s;
}

// The checks name the field as the message shows it (`name`: "parameters.num_beams", or
// "parameters.generate_parameters.num_beams").
int64_t integer_at_least(const json& v, const std::string& name, int64_t lowest) {
  if (!v.is_number_integer()) throw Invalid{name + " must be an integer, found " + shown(v)};
  if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX))
    throw Invalid{name + " is too large: " + shown(v)};
  int64_t n = v.get<int64_t>();
  if (n < lowest)
    throw Invalid{name + " must be at least " + std::to_string(lowest) + ", found " + shown(v)};
  return n;
}

double finite_number(const json& v, const std::string& name) {
  if (!v.is_number()) throw Invalid{name + " must be a number, found " + shown(v)};
  double x = v.get<double>();
  if (!std::isfinite(x)) throw Invalid{name + " must be finite, found " + shown(v)};
  return x;
}

double positive_number(const json& v, const std::string& name) {
  double x = finite_number(v, name);
  if (!(x > 0)) throw Invalid{name + " must be greater than 0, found " + shown(v)};
  return x;
}

bool boolean(const json& v, const std::string& name) {
  if (!v.is_boolean()) throw Invalid{name + " must be true or false, found " + shown(v)};
  return v.get<bool>();
}

bool truncation(const json& v) {
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "longest_first" || s == "only_first") return true;
    if (s == "do_not_truncate") return false;
    // The spec's fourth strategy cuts the second text of a pair, and a summary's input is one
    // text: the tokenizer refuses it too ("Second sequence not provided").
    if (s == "only_second")
      throw Invalid{field("truncation") +
                    " \"only_second\" cuts the second text of a pair; a summarization input is "
                    "one text (use \"longest_first\", \"only_first\" or \"do_not_truncate\")"};
  }
  throw Invalid{
      field("truncation") +
      " must be true, false, \"longest_first\", \"only_first\" or \"do_not_truncate\", found " +
      shown(v)};
}

// The integer parameters and the least value each may take.
struct IntegerParameter {
  const char* key;
  int64_t lowest;
};
constexpr IntegerParameter kIntegerParameters[] = {
    {"max_length", 1}, {"max_new_tokens", 1},       {"min_length", 0}, {"min_new_tokens", 0},
    {"num_beams", 1},  {"no_repeat_ngram_size", 0}, {"top_k", 0},
};

// The generation settings a request may set, by GenerationConfig's names: flat in "parameters"
// (the pipeline's keywords) or in "parameters.generate_parameters" (today's task spec).
constexpr const char* kGenerationParameters[] = {
    "min_length",           "max_length",     "min_new_tokens",
    "max_new_tokens",       "num_beams",      "length_penalty",
    "no_repeat_ngram_size", "early_stopping", "do_sample",
    "temperature",          "top_k",          "top_p",
    "repetition_penalty"};
// The other keys of "parameters".
constexpr const char* kRequestParameters[] = {"truncation", "clean_up_tokenization_spaces",
                                              "generate_parameters"};

bool is_generation_parameter(const std::string& key) {
  for (const char* known : kGenerationParameters)
    if (key == known) return true;
  return false;
}

std::string known_list(std::initializer_list<const char* const*> lists,
                       std::initializer_list<size_t> sizes) {
  std::string list;
  auto size = sizes.begin();
  for (const char* const* names : lists) {
    for (size_t i = 0; i < *size; ++i) list += (list.empty() ? "" : ", ") + std::string(names[i]);
    ++size;
  }
  return list;
}

// Copies one generation setting into `generation` under GenerationConfig's name, checked;
// `name` is the field as messages show it.
void generation_parameter(const std::string& key, const json& v, const std::string& name,
                          InferenceRequest& r) {
  json& g = r.generation;
  if (g.contains(key))  // flat, then again in generate_parameters (read last)
    throw Invalid{name + " is also given as " + field(key) + "; give it once"};
  for (const IntegerParameter& p : kIntegerParameters) {
    if (key == p.key) {
      g[key] = integer_at_least(v, name, p.lowest);
      return;
    }
  }
  if (key == "length_penalty")
    g[key] = finite_number(v, name);
  else if (key == "temperature" || key == "repetition_penalty")
    g[key] = positive_number(v, name);
  else if (key == "do_sample")
    g[key] = boolean(v, name);
  else if (key == "top_p") {
    double p = positive_number(v, name);
    if (p > 1) throw Invalid{name + " must be in (0, 1], found " + shown(v)};
    g[key] = p;
  } else if (key == "early_stopping") {
    if (!v.is_boolean() && v != "never")
      throw Invalid{name + " must be true, false or \"never\", found " + shown(v)};
    g[key] = v;
  }
}

// "parameters.generate_parameters": GenerationConfig's keys, each at most once with the flat ones.
void generate_parameters(const json& v, InferenceRequest& r) {
  const std::string name = field("generate_parameters");
  if (!v.is_object()) throw Invalid{name + " must be an object, found " + shown(v)};
  for (const auto& [key, value] : v.items()) {
    if (!is_generation_parameter(key))
      throw Invalid{"unknown generation parameter " + quoted(key) + " in " + name + "; known: " +
                    known_list({kGenerationParameters}, {std::size(kGenerationParameters)})};
    if (!value.is_null()) generation_parameter(key, value, name + "." + key, r);
  }
}

// One key of "parameters", checked; null values are the defaults, as the API allows.
void parameter(const std::string& key, const json& v, InferenceRequest& r) {
  if (is_generation_parameter(key)) {
    if (!v.is_null()) generation_parameter(key, v, field(key), r);
    return;
  }
  if (key == "truncation") {
    if (!v.is_null()) r.truncate = truncation(v);
  } else if (key == "clean_up_tokenization_spaces") {
    if (!v.is_null()) r.clean_up_tokenization_spaces = boolean(v, field(key));
  } else if (key == "generate_parameters") {
    if (!v.is_null()) generate_parameters(v, r);
  } else {
    throw Invalid{"unknown parameter " + quoted(key) + "; known: " +
                  known_list({kRequestParameters, kGenerationParameters},
                             {std::size(kRequestParameters), std::size(kGenerationParameters)})};
  }
}

void inputs(const json& v, const RequestLimits& limits, InferenceRequest& r) {
  if (v.is_string()) {
    r.inputs.push_back(v.get<std::string>());
    return;
  }
  if (!v.is_array())
    throw Invalid{"\"inputs\" must be a string or a list of strings, found " + shown(v)};
  if (v.empty()) throw Invalid{"\"inputs\" is an empty list; give at least one text"};
  if (v.size() > limits.max_inputs)
    throw Invalid{"\"inputs\" holds " + std::to_string(v.size()) + " texts; at most " +
                  std::to_string(limits.max_inputs) + " per request"};
  r.inputs_was_list = true;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string())
      throw Invalid{"\"inputs\"[" + std::to_string(i) + "] must be a string, found " + shown(v[i])};
    r.inputs.push_back(v[i].get<std::string>());
  }
}

// The API's "options" (use_cache, wait_for_model) mean nothing to a local server, but
// clients send them, so they are accepted when well-typed.
void options(const json& v) {
  if (!v.is_object()) throw Invalid{"\"options\" must be an object, found " + shown(v)};
  for (const auto& [key, value] : v.items()) {
    if (key != "use_cache" && key != "wait_for_model")
      throw Invalid{"unknown option " + quoted(key) + "; known: use_cache, wait_for_model"};
    if (!value.is_boolean() && !value.is_null())
      throw Invalid{"options." + key + " must be true or false, found " + shown(value)};
  }
}

// Checked before parsing (json_nesting_depth): a client has no reason to nest at all.
constexpr size_t kMaxNesting = 32;

InferenceRequest parse(std::string_view body, const RequestLimits& limits) {
  if (size_t bad = tokenize::find_invalid_utf8(body); bad != std::string_view::npos)
    throw Invalid{"request body is not valid UTF-8 (byte " + std::to_string(bad) + ")"};
  if (size_t nul = body.find('\0'); nul != std::string_view::npos)  // nlohmann would stop there
    throw Invalid{"malformed JSON: a NUL byte at offset " + std::to_string(nul)};
  if (json_nesting_depth(body) > kMaxNesting)
    throw Invalid{"JSON nested deeper than " + std::to_string(kMaxNesting) + " levels"};
  json j;
  try {
    j = json::parse(body);
  } catch (const json::exception& e) {  // syntax errors, and numbers out of double's range
    throw Invalid{std::string("malformed JSON: ") + e.what()};
  }
  if (!j.is_object())
    throw Invalid{
        "the body must be a JSON object {\"inputs\": ..., \"parameters\": {...}}, found " +
        shown(j)};
  InferenceRequest r;
  for (const auto& [key, value] : j.items()) {
    if (key != "inputs" && key != "parameters" && key != "options")
      throw Invalid{"unknown field " + quoted(key) + "; known: inputs, parameters, options"};
  }
  if (!j.contains("inputs"))
    throw Invalid{"missing field \"inputs\" (a string or a list of strings)"};
  inputs(j["inputs"], limits, r);
  if (j.contains("parameters") && !j["parameters"].is_null()) {
    const json& p = j["parameters"];
    if (!p.is_object()) throw Invalid{"\"parameters\" must be an object, found " + shown(p)};
    // generate_parameters last, so that a setting given twice is named in its object either way.
    for (const auto& [key, value] : p.items())
      if (key != "generate_parameters") parameter(key, value, r);
    if (p.contains("generate_parameters"))
      parameter("generate_parameters", p["generate_parameters"], r);
  }
  if (j.contains("options") && !j["options"].is_null()) options(j["options"]);
  return r;
}

}  // namespace

ParsedRequest parse_inference_request(std::string_view body, const RequestLimits& limits) {
  try {
    return parse(body, limits);
  } catch (const Invalid& e) {
    return RequestError{400, e.message};
  } catch (const std::exception& e) {  // allocation failure and the like: still a 4xx, not a crash
    return RequestError{400, std::string("invalid request: ") + e.what()};
  }
}

std::string batch_key(const InferenceRequest& r) {
  json key = {{"generation", r.generation}};
  if (r.clean_up_tokenization_spaces)
    key["clean_up_tokenization_spaces"] = *r.clean_up_tokenization_spaces;
  return key.dump();
}

BatchSettings parse_batch_key(const std::string& key) {
  const json j = json::parse(key);
  BatchSettings settings{j.at("generation"), std::nullopt};
  if (j.contains("clean_up_tokenization_spaces"))
    settings.clean_up_tokenization_spaces = j["clean_up_tokenization_spaces"].get<bool>();
  return settings;
}

std::string error_body(const std::string& message) {
  return nlohmann::json{{"error", message}}.dump(-1, ' ', false,
                                                 nlohmann::json::error_handler_t::replace);
}

}  // namespace precis::serve
