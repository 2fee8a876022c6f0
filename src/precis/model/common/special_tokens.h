// What generation takes from a model's config, the same for every family: the special token
// ids (GenerationConfig.from_model_config copies them from the PretrainedConfig), the
// vocabulary size (bad_words_ids are checked against it) and the longest sequence the model
// has positions for. bart_config.h and t5_config.h each give special_tokens(config).
#pragma once

#include <cstdint>
#include <optional>

namespace precis {

struct SpecialTokens {
  int64_t vocab_size = 0;
  int32_t pad_token_id = 1, bos_token_id = 0, eos_token_id = 2, decoder_start_token_id = 2;
  std::optional<int32_t> forced_bos_token_id = std::nullopt, forced_eos_token_id = std::nullopt;
  // BART: max_position_embeddings; T5's relative positions set no limit.
  static constexpr int64_t kNoPositionLimit = int64_t(1) << 20;
  int64_t max_positions = kNoPositionLimit;
};

// What every family's config gives alike: the vocabulary size and the pad, EOS and
// decoder-start ids. The family's special_tokens adds the rest.
template <class Config>
SpecialTokens pretrained_special_tokens(const Config& c) {
  return {.vocab_size = c.vocab_size,
          .pad_token_id = c.pad_token_id,
          .eos_token_id = c.eos_token_id,
          .decoder_start_token_id = c.decoder_start_token_id};
}

}  // namespace precis
