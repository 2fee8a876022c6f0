// A checkpoint's tokenizer (byte-level BPE, or T5's Unigram tokenizer.json or spiece.model,
// in AutoTokenizer's order) called as transformers' tokenizer(texts, truncation=...,
// max_length=..., padding=...) and decode(): precis.AutoTokenizer's engine, and the
// pipeline's.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "precis/core/error.h"
#include "precis/tokenize/sentencepiece_tokenizer.h"
#include "precis/tokenize/text_tokenizer.h"
#include "precis/tokenize/tokenizer.h"
#include "precis/tokenize/unigram_tokenizer.h"

namespace precis::python {

using Ids = std::vector<int32_t>;

class CheckpointTokenizer {
  template <class T>
  static constexpr bool kIsBpe = std::is_same_v<std::decay_t<T>, tokenize::Tokenizer>;

 public:
  explicit CheckpointTokenizer(const std::string& dir) : tokenizer_(load(dir)) {}

  // HF's truncation rule: truncation=True (or a max_length with truncation unset) cuts to
  // max_length, else to model_max_length; truncation=False never cuts.
  std::optional<size_t> truncation_length(std::optional<bool> truncation,
                                          std::optional<int64_t> max_length) const {
    if (truncation == false || (!truncation && !max_length)) return std::nullopt;
    if (max_length) {
      check(*max_length > 0, "max_length must be positive, found " + std::to_string(*max_length));
      return size_t(*max_length);
    }
    return model_max_length();
  }

  std::vector<Ids> encode(const std::vector<std::string>& texts, bool add_special_tokens,
                          std::optional<size_t> max_length) const {
    return std::visit(
        [&](const auto& tokenizer) {
          if constexpr (kIsBpe<decltype(tokenizer)>) {
            tokenize::EncodeOptions options;
            options.add_special_tokens = add_special_tokens;
            options.max_length = max_length;
            return tokenizer.encode_batch(texts, options);
          } else {
            std::vector<Ids> all;
            for (const std::string& text : texts) {
              if (add_special_tokens) {
                all.push_back(tokenizer.encode_truncated(text, max_length.value_or(0)));
              } else {
                all.push_back(tokenizer.encode(text, false));
                if (max_length && all.back().size() > *max_length) all.back().resize(*max_length);
              }
            }
            return all;
          }
        },
        tokenizer_);
  }

  // input_ids and attention_mask, padded on the right with pad_token_id as padding=True
  // ("longest") or "max_length" pads them; "do_not_pad" leaves the lengths.
  std::pair<std::vector<Ids>, std::vector<Ids>> call(const std::vector<std::string>& texts,
                                                     bool add_special_tokens,
                                                     std::optional<bool> truncation,
                                                     std::optional<int64_t> max_length,
                                                     const std::string& padding) const {
    check(padding == "longest" || padding == "max_length" || padding == "do_not_pad",
          "padding must be True, False, \"longest\", \"max_length\" or \"do_not_pad\", found \"" +
              padding + "\"");
    std::vector<Ids> ids = encode(texts, add_special_tokens, truncation_length(truncation, max_length));
    size_t width = 0;
    if (padding == "longest")
      for (const Ids& row : ids) width = std::max(width, row.size());
    if (padding == "max_length") {
      check(max_length.has_value() || model_max_length().has_value(),
            "padding=\"max_length\" needs max_length (the tokenizer sets no model_max_length)");
      width = size_t(max_length ? *max_length : int64_t(*model_max_length()));
    }
    std::vector<Ids> mask;
    for (Ids& row : ids) {
      mask.emplace_back(row.size(), 1);
      if (row.size() < width) {
        mask.back().resize(width, 0);
        row.resize(width, pad_token_id());
      }
    }
    return {std::move(ids), std::move(mask)};
  }

  std::string decode(const Ids& ids, bool skip_special_tokens,
                     std::optional<bool> clean_up_tokenization_spaces) const {
    return std::visit(
        [&](const auto& tokenizer) {
          if constexpr (kIsBpe<decltype(tokenizer)>) {
            tokenize::DecodeOptions options;
            options.skip_special_tokens = skip_special_tokens;
            options.clean_up_tokenization_spaces = clean_up_tokenization_spaces;
            return tokenizer.decode(ids, options);
          } else {
            check(clean_up_tokenization_spaces.value_or(true),
                  "clean_up_tokenization_spaces=False: T5's tokenizer always cleans up (transformers "
                  "4.44 default)");
            return tokenizer.decode(ids, skip_special_tokens);
          }
        },
        tokenizer_);
  }

  int32_t pad_token_id() const {
    return std::visit(
        [](const auto& tokenizer) {
          if constexpr (kIsBpe<decltype(tokenizer)>) return tokenizer.pad_token_id();
          else return int32_t(tokenizer.pad_id());
        },
        tokenizer_);
  }

  // SentencePiece's tokenizers (T5's) always clean up; byte-level BPE follows its setting.
  bool always_cleans_up() const { return !std::holds_alternative<tokenize::Tokenizer>(tokenizer_); }

  std::optional<size_t> model_max_length() const {
    if (auto* bpe = std::get_if<tokenize::Tokenizer>(&tokenizer_))
      return bpe->settings().model_max_length;
    return std::nullopt;
  }

  size_t size() const {
    return std::visit([](const auto& t) { return t.size(); }, tokenizer_);
  }

  void save(const std::string& dir) const {
    std::visit([&](const auto& t) { t.save(dir); }, tokenizer_);
  }

 private:
  using Any = std::variant<tokenize::Tokenizer, tokenize::UnigramTokenizer, tokenize::SentencePieceTokenizer>;

  static Any load(const std::string& dir) {
    switch (tokenize::tokenizer_kind(dir)) {
      case tokenize::TokenizerKind::kUnigramJson:
        return tokenize::UnigramTokenizer::from_directory(dir);
      case tokenize::TokenizerKind::kSpieceModel:
        return tokenize::SentencePieceTokenizer::from_directory(dir);
      case tokenize::TokenizerKind::kByteLevelBpe:
        break;
    }
    return tokenize::Tokenizer::from_directory(dir);
  }

  Any tokenizer_;
};

}  // namespace precis::python
