// Text to ROUGE tokens, exactly as rouge_score's DefaultTokenizer (rouge/tokenize.py):
// lower-case, every run of characters outside [a-z0-9] becomes a separator, and with
// stemming every token longer than 3 characters goes through NLTK's Porter stemmer.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace precis::eval {

// Splits UTF-8 text into lower-case [a-z0-9]+ words, unstemmed. Python's str.lower() maps
// only two non-ASCII characters onto ASCII letters: U+0130 (İ, to "i" plus a combining dot,
// which then separates) and U+212A (Kelvin sign, to "k"); every other non-ASCII character,
// and any byte that is not valid UTF-8, is a separator.
std::vector<std::string> rouge_words(std::string_view text);

// Stems words the way rouge_score does (only words longer than 3 characters), remembering
// each word's stem: a corpus repeats its words, and stemming dominates tokenisation.
class CachedStemmer {
 public:
  const std::string& stem(const std::string& word);

 private:
  std::unordered_map<std::string, std::string> stems_;
};

// rouge_score's tokenize(text, stemmer): words, stemmed when `stemmer` is not null.
std::vector<std::string> rouge_tokenize(std::string_view text, CachedStemmer* stemmer);

}  // namespace precis::eval
