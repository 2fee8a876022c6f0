#include "precis/generate/logits_processors.h"

#include <algorithm>

namespace precis::generate {

LogitsProcessing logits_processing(const ResolvedGeneration& g) {
  const GenerationConfig& c = g.config;
  LogitsProcessing p;
  p.repetition_penalty = float(c.repetition_penalty);
  p.no_repeat_ngram_size = c.no_repeat_ngram_size;
  p.eos_token_ids = g.eos_token_ids;
  for (const auto& word : c.bad_words_ids) {
    const auto& eos = p.eos_token_ids;
    bool is_eos = word.size() == 1 && std::find(eos.begin(), eos.end(), word[0]) != eos.end();
    if (!is_eos && std::find(p.bad_words.begin(), p.bad_words.end(), word) == p.bad_words.end())
      p.bad_words.push_back(word);
  }
  p.min_length = c.min_length;
  p.min_new_tokens = c.min_new_tokens.value_or(0);
  p.prompt_length = g.prompt_length;
  p.forced_bos_token_id = c.forced_bos_token_id;
  p.forced_eos_token_ids = c.forced_eos_token_id;
  p.max_length = c.max_length;
  return p;
}

LogitsWarping logits_warping(const ResolvedGeneration& g, int64_t min_keep) {
  const GenerationConfig& c = g.config;
  return {float(c.temperature), c.top_k, c.top_p, min_keep};
}

}  // namespace precis::generate
