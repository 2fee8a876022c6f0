// The model behind the server: a checkpoint, its tokenizer and its generation defaults, with
// the checks a request needs before it is queued (input length, generation settings) and
// the batch work the batcher runs. Loaded with the same library calls as `precis generate`
// (load_any_model: the family config.json's model_type names, the checkpoint's tokenizer,
// GenerationConfig::from_model_directory), so a summary equals the pipeline's: generate() ids
// decoded with skip_special_tokens.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "precis/generate/generation_config.h"
#include "precis/kernels/constant_weights.h"
#include "precis/model/families.h"
#include "precis/serve/inference_request.h"
#include "precis/tokenize/text_tokenizer.h"

namespace precis::serve {

struct SummarizerLimits {
  std::optional<size_t> max_input_tokens;  // below the model's own limit, if given
  int64_t max_num_beams = 8;
  // max_length of the requests that set none, if not the checkpoint's generation config's.
  std::optional<int64_t> max_length;
};

class Summarizer {
 public:
  // The model's weights and every generation on `device` (the batcher's thread names it).
  static std::unique_ptr<Summarizer> load(const std::filesystem::path& dir,
                                          const SummarizerLimits& limits = {},
                                          Device device = Device::cpu());

  // The input's token ids (special tokens included), cut to the input limit when
  // `truncate`; a 400 naming the limit when the input is longer and not truncated.
  std::variant<std::vector<int32_t>, RequestError> encode(const std::string& text,
                                                          bool truncate) const;

  // The request's overrides applied to the checkpoint's defaults and resolved as generate()
  // does; a 400 with generate()'s message when the combination is invalid, or when it asks
  // for more beams or decoder tokens than this server allows.
  std::optional<RequestError> check_generation(const nlohmann::json& overrides) const;

  // Batch work: `key` is the requests' batch_key (generation overrides, decoding); one summary
  // per input, in order.
  std::vector<std::string> summarize(const std::string& key,
                                     const std::vector<std::vector<int32_t>>& inputs) const;

  const generate::GenerationConfig& defaults() const { return defaults_; }
  size_t max_input_tokens() const { return max_input_tokens_; }
  const std::filesystem::path& directory() const { return dir_; }

 private:
  Summarizer(const std::filesystem::path& dir, const SummarizerLimits& limits, Device device);
  generate::GenerationConfig config_for(const nlohmann::json& overrides) const;

  std::filesystem::path dir_;
  Device device_;
  AnyModel model_;
  SpecialTokens tokens_;  // the special tokens and decoder positions generate() checks against
  std::unique_ptr<tokenize::TextTokenizer> tokenizer_;
  generate::GenerationConfig defaults_;
  size_t max_input_tokens_ = 0;
  int64_t max_num_beams_ = 8;
  // The model's packed (or int8) weights, made on the first request and kept for the next.
  std::unique_ptr<ConstantWeights> constant_;
};

}  // namespace precis::serve
