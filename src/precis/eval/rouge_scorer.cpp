#include "precis/eval/rouge_scorer.h"

#include <string>
#include <unordered_map>

namespace precis::eval {
namespace {

// rouge_score's get_sents: text.split("\n") without the empty strings. A line of only
// spaces stays a sentence (with no token).
std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    if (end > start) lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// Token ids dense within one pair, so ROUGE-Lsum can count with plain arrays.
class PairVocabulary {
 public:
  TokenIds ids(const std::vector<std::string>& tokens) {
    TokenIds out;
    out.reserve(tokens.size());
    for (const std::string& t : tokens) out.push_back(ids_.emplace(t, static_cast<int32_t>(ids_.size())).first->second);
    return out;
  }
  int32_t size() const { return static_cast<int32_t>(ids_.size()); }

 private:
  std::unordered_map<std::string, int32_t> ids_;
};

}  // namespace

PairScores RougeScorer::score(std::string_view reference, std::string_view prediction) {
  CachedStemmer* stemmer = use_stemmer_ ? &stemmer_ : nullptr;
  PairVocabulary vocabulary;
  // "\n" is a separator for the tokenizer, so the whole text's tokens are its lines' tokens
  // end to end.
  auto sentences_of = [&](std::string_view text, TokenIds& all) {
    std::vector<TokenIds> sentences;
    for (std::string_view line : lines_of(text)) {
      sentences.push_back(vocabulary.ids(rouge_tokenize(line, stemmer)));
      all.insert(all.end(), sentences.back().begin(), sentences.back().end());
    }
    return sentences;
  };
  TokenIds reference_tokens, prediction_tokens;
  const std::vector<TokenIds> reference_sentences = sentences_of(reference, reference_tokens);
  const std::vector<TokenIds> prediction_sentences = sentences_of(prediction, prediction_tokens);

  PairScores scores;
  scores[kRouge1] = rouge_n(reference_tokens, prediction_tokens, 1);
  scores[kRouge2] = rouge_n(reference_tokens, prediction_tokens, 2);
  scores[kRougeL] = rouge_l(reference_tokens, prediction_tokens);
  scores[kRougeLsum] = rouge_lsum(reference_sentences, prediction_sentences, vocabulary.size());
  return scores;
}

}  // namespace precis::eval
