// The server's request body parser (the Hugging Face Inference API shape) on arbitrary bytes,
// then what the server does with an accepted request before generating: the parameters
// become GenerationConfig overrides and are validated by resolve() against a model's config.
// parse_inference_request never throws; the overrides it accepts must never make
// GenerationConfig::update throw anything but precis::Error.
#include <variant>

#include "fuzz_support.h"
#include "precis/generate/generation_config.h"
#include "precis/model/bart/bart_config.h"
#include "precis/serve/inference_request.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace precis::fuzz;
  precis::serve::RequestLimits limits;
  limits.max_inputs = 8;
  precis::serve::ParsedRequest parsed;
  try {
    parsed = precis::serve::parse_inference_request(as_text(data, size), limits);
  } catch (...) {
    std::fprintf(stderr, "precis fuzz: parse_inference_request threw\n");
    std::abort();
  }
  if (auto* error = std::get_if<precis::serve::RequestError>(&parsed)) {
    precis::serve::error_body(error->message);
    return 0;
  }
  const auto& request = std::get<precis::serve::InferenceRequest>(parsed);
  if (request.inputs.empty() || request.inputs.size() > limits.max_inputs) std::abort();
  // The batcher keys requests by their settings' canonical text, and the batch parses it back.
  const precis::serve::BatchSettings settings =
      precis::serve::parse_batch_key(precis::serve::batch_key(request));
  if (settings.generation != request.generation ||
      settings.clean_up_tokenization_spaces != request.clean_up_tokenization_spaces)
    std::abort();
  expect_only_precis_errors([&] {
    precis::BartConfig model;
    precis::generate::GenerationConfig config;
    config.update(settings.generation, "parameters");
    config.num_return_sequences = 1;
    precis::generate::resolve(config, precis::special_tokens(model));
  });
  return 0;
}
