#include "precis/serve/summarizer.h"

#include <algorithm>

#include "precis/core/error.h"
#include "precis/generate/generate.h"

namespace precis::serve {

namespace {

// A model with relative positions (T5) has no input limit of its own: the tokenizer's
// model_max_length (512 for the published T5 checkpoints) when it has one, else this.
constexpr size_t kUnlimitedDefaultInputTokens = 512;

AnyModel load_model(const std::filesystem::path& dir, Device device) {
  ScopedExecutionContext on(device);
  return load_any_model(dir);
}

}  // namespace

Summarizer::Summarizer(const std::filesystem::path& dir, const SummarizerLimits& limits,
                       Device device)
    : dir_(dir),
      device_(device),
      model_(load_model(dir, device)),
      tokens_(std::visit([](const auto& m) { return special_tokens(m.config); }, model_)),
      tokenizer_(tokenize::load_text_tokenizer(dir)),
      defaults_(generate::GenerationConfig::from_model_directory(dir, tokens_)),
      max_num_beams_(limits.max_num_beams) {
  // BART's encoder has max_position_embeddings positions; the tokenizer may promise fewer.
  const bool positions_limit = tokens_.max_positions < SpecialTokens::kNoPositionLimit;
  max_input_tokens_ =
      positions_limit ? size_t(tokens_.max_positions) : kUnlimitedDefaultInputTokens;
  if (auto m = tokenizer_->model_max_length())
    max_input_tokens_ = positions_limit ? std::min(max_input_tokens_, *m) : *m;
  if (limits.max_input_tokens)
    max_input_tokens_ = std::min(max_input_tokens_, *limits.max_input_tokens);
  check(max_input_tokens_ >= 2, dir.string() + ": the model takes fewer than 2 input tokens");
  if (limits.max_length) defaults_.max_length = *limits.max_length;
  std::visit(
      [&](const auto& m) {
        constant_ = std::make_unique<ConstantWeights>(m.arena.base(), m.arena.capacity());
      },
      model_);
}

std::unique_ptr<Summarizer> Summarizer::load(const std::filesystem::path& dir,
                                             const SummarizerLimits& limits, Device device) {
  return std::unique_ptr<Summarizer>(new Summarizer(dir, limits, device));
}

std::variant<std::vector<int32_t>, RequestError> Summarizer::encode(const std::string& text,
                                                                    bool truncate) const {
  std::vector<int32_t> ids =
      tokenizer_->encode(text, truncate ? std::optional<size_t>(max_input_tokens_) : std::nullopt);
  if (ids.size() > max_input_tokens_)
    return RequestError{400, "the input has " + std::to_string(ids.size()) +
                                 " tokens; this model takes at most " +
                                 std::to_string(max_input_tokens_) +
                                 " (set parameters.truncation to true to cut it)"};
  return ids;
}

generate::GenerationConfig Summarizer::config_for(const nlohmann::json& overrides) const {
  generate::GenerationConfig config = defaults_;
  config.update(overrides, "parameters");
  // The API returns one summary per input: a checkpoint's num_return_sequences is not used.
  config.num_return_sequences = 1;
  return config;
}

std::optional<RequestError> Summarizer::check_generation(const nlohmann::json& overrides) const {
  try {
    generate::ResolvedGeneration r = generate::resolve(config_for(overrides), tokens_);
    if (r.config.num_beams > max_num_beams_)
      return RequestError{400, "parameters.num_beams is " + std::to_string(r.config.num_beams) +
                                   "; this server allows at most " +
                                   std::to_string(max_num_beams_)};
    // Decoder positions are learned embeddings: no more tokens than the model has positions.
    if (r.config.max_length > tokens_.max_positions)
      return RequestError{400, "the summary would be up to " + std::to_string(r.config.max_length) +
                                   " tokens (max_length / max_new_tokens); this model has " +
                                   std::to_string(tokens_.max_positions) +
                                   " decoder positions"};
  } catch (const Error& e) {
    return RequestError{400, e.what()};
  }
  return std::nullopt;
}

std::vector<std::string> Summarizer::summarize(
    const std::string& key, const std::vector<std::vector<int32_t>>& inputs) const {
  const BatchSettings settings = parse_batch_key(key);
  generate::GenerationConfig config = config_for(settings.generation);
  ScopedExecutionContext on(device_);
  const ConstantWeightsScope constant(*constant_);
  generate::Generated out =
      std::visit([&](const auto& model) { return generate::generate(model, inputs, config); }, model_);
  std::vector<std::string> summaries;
  for (int64_t r = 0; r < out.rows; ++r)
    summaries.push_back(tokenizer_->decode(out.row(r), settings.clean_up_tokenization_spaces));
  return summaries;
}

}  // namespace precis::serve
