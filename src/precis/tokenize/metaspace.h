// HF `tokenizers`' Metaspace pre-tokenizer and decoder (SentencePiece's whitespace handling):
// spaces become the replacement "▁", a "▁" is prepended (to every piece of text between added
// tokens, to the text's first piece only, or never), and the text is split before every "▁".
// Decoding turns "▁" back into spaces and drops those of the first token.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace precis::tokenize {

struct Metaspace {
  enum class PrependScheme { kAlways, kFirst, kNever };

  std::string replacement = "\xe2\x96\x81";  // "▁", UTF-8
  PrependScheme prepend_scheme = PrependScheme::kAlways;
  bool split = true;

  // From a {"type": "Metaspace", ...} object: replacement, prepend_scheme ("always", "first",
  // "never"; default always), split (default true), and the older add_prefix_space (false means
  // never). Throws precis::Error naming `where` and `field` (e.g. "pre_tokenizer").
  static Metaspace from_json(const nlohmann::json& config, const std::string& where,
                             const std::string& field);

  // The pre-tokens of one normalized piece of text; `starts_text` says whether the piece begins
  // at offset 0 of the input (what prepend_scheme "first" asks).
  std::vector<std::string> pre_tokenize(std::string_view normalized, bool starts_text) const;

  // decode_chain: each token with "▁" made a space, except in the first token, where the "▁"
  // are dropped (unless the scheme is never).
  std::vector<std::string> decode(const std::vector<std::string>& tokens) const;
};

}  // namespace precis::tokenize
