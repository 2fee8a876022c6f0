// The tokenizer.json "normalizer" of SentencePiece-converted tokenizers (T5; written by
// transformers 4.44 convert_slow_tokenizer.py, SpmConverter.normalizer, or older converters):
// Precompiled(charsmap), Strip, Replace, and Sequence of those, applied in order to each piece
// of text between added tokens.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "precis/tokenize/precompiled_charsmap.h"

namespace precis::tokenize {

class NormalizerSequence {
 public:
  // Accepts null (no normalizer), Precompiled, Strip, Replace (a String pattern, or a Regex
  // that is one character repeated: "c+", "c{n,}", "c{n}", "c{n,m}", or a plain literal) and
  // Sequence. Throws precis::Error naming `where` (the file) and the field otherwise.
  static NormalizerSequence from_json(const nlohmann::json& config, const std::string& where);

  std::string normalize(std::string_view text) const;

 private:
  struct Step {
    enum class Kind { kPrecompiled, kStrip, kReplace } kind;
    PrecompiledCharsmap charsmap;                  // kPrecompiled
    bool strip_left = false, strip_right = false;  // kStrip
    // kReplace: `literal`, or (repeat_min > 0) runs of `literal` (one character) of
    // repeat_min..repeat_max copies, greedy; replaced by `content`.
    std::string literal, content;
    size_t repeat_min = 0, repeat_max = 0;
  };
  void add(const nlohmann::json& config, const std::string& where);
  static std::string apply(const Step& step, std::string_view text);

  std::vector<Step> steps_;
};

}  // namespace precis::tokenize
