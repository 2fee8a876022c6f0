#include "precis/eval/rouge_tokenize.h"

#include "precis/eval/porter_stemmer.h"

namespace precis::eval {

std::vector<std::string> rouge_words(std::string_view text) {
  std::vector<std::string> words;
  std::string current;
  auto end_word = [&] {
    if (!current.empty()) words.push_back(std::move(current));
    current.clear();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 'a' && c <= 'z') {
      current.push_back(static_cast<char>(c));
    } else if (c >= 'A' && c <= 'Z') {
      current.push_back(static_cast<char>(c - 'A' + 'a'));
    } else if (c >= '0' && c <= '9') {
      current.push_back(static_cast<char>(c));
    } else if (c == 0xC4 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0xB0) {
      // U+0130 lower-cases to "i" + U+0307; the combining dot ends the word.
      current.push_back('i');
      end_word();
      i += 1;
    } else if (c == 0xE2 && i + 2 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0x84 &&
               static_cast<unsigned char>(text[i + 2]) == 0xAA) {
      current.push_back('k');  // U+212A KELVIN SIGN lower-cases to ASCII "k".
      i += 2;
    } else {
      end_word();  // In valid UTF-8 the bytes of other characters never look like ASCII.
    }
  }
  end_word();
  return words;
}

const std::string& CachedStemmer::stem(const std::string& word) {
  auto it = stems_.find(word);
  if (it == stems_.end()) it = stems_.emplace(word, porter_stem(word)).first;
  return it->second;
}

std::vector<std::string> rouge_tokenize(std::string_view text, CachedStemmer* stemmer) {
  std::vector<std::string> words = rouge_words(text);
  if (stemmer != nullptr)
    for (std::string& w : words)
      if (w.size() > 3) w = stemmer->stem(w);
  return words;
}

}  // namespace precis::eval
