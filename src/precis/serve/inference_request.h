// A summarization request in the shape of the Hugging Face Inference API:
//   {"inputs": "text" | ["text", ...], "parameters": {...}, "options": {...}}
// "parameters" as today's task spec has them (huggingface_hub's InferenceClient.summarization:
// clean_up_tokenization_spaces, generate_parameters {GenerationConfig's keys}, truncation) and
// as the pipeline's keywords that older clients send flat (num_beams, max_length, ...).
// parsed and validated by a pure function (bytes in, typed request or an HTTP error out), so
// that it can be unit-tested case by case and fuzzed without a server or a model.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace precis::serve {

struct RequestLimits {
  size_t max_inputs = 64;  // texts in one request's "inputs" list
};

struct InferenceRequest {
  std::vector<std::string> inputs;
  bool inputs_was_list = false;
  // Generation overrides with GenerationConfig's key names (only the keys the client set);
  // an object, so its dump() is canonical (sorted keys) and can key the batcher.
  nlohmann::json generation = nlohmann::json::object();
  // The pipeline's truncation: true / "longest_first" / "only_first" (the default here) cut
  // inputs to the model's limit; false / "do_not_truncate" refuse longer inputs.
  bool truncate = true;
  // decode()'s clean_up_tokenization_spaces; nullopt: the tokenizer's own setting.
  std::optional<bool> clean_up_tokenization_spaces;
};

// What a batch shares, as the batcher's key: the generation overrides and the decoding. Requests
// with equal keys are generated together; the key's text is canonical (sorted keys).
std::string batch_key(const InferenceRequest& r);
struct BatchSettings {
  nlohmann::json generation;
  std::optional<bool> clean_up_tokenization_spaces;
};
BatchSettings parse_batch_key(const std::string& key);

// An answer the server gives instead of a summary: HTTP status and a message for the client.
struct RequestError {
  int status = 400;
  std::string message;
};

using ParsedRequest = std::variant<InferenceRequest, RequestError>;

// Never throws: malformed JSON, invalid UTF-8, wrong types, unknown keys and out-of-range
// values all come back as a RequestError naming the field and what was expected.
ParsedRequest parse_inference_request(std::string_view body, const RequestLimits& limits = {});

// {"error": message} as the API's error bodies are.
std::string error_body(const std::string& message);

}  // namespace precis::serve
