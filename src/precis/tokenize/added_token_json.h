// One entry of tokenizer.json's "added_tokens", read the same way for every model type (BPE and
// Unigram files alike), so that the checks cannot drift apart between the loaders.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "precis/tokenize/added_tokens.h"

namespace precis::tokenize {

// {"id": 50265, "content": "<x>", "single_word": false, "lstrip": false, "rstrip": false,
// "normalized": true, "special": false}: the id an integer in [0, 2^31) (token ids are int32:
// a larger one would be narrowed into another token's), the content non-empty UTF-8, each flag
// a boolean where given (absent or null: tokenizers' defaults). `where` names the entry
// ("tokenizer.json: added_tokens[3]") in the error.
AddedToken read_added_token(const nlohmann::json& entry, const std::string& where);

// tokenizer_config.json's "added_tokens_decoder": {"50265": {"content": "<x>", ...}}: the id from
// the key (a decimal integer in [0, 2^31)), the rest as above.
AddedToken read_keyed_added_token(const std::string& key, const nlohmann::json& entry,
                                  const std::string& where);

}  // namespace precis::tokenize
