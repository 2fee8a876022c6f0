// transformers' clean_up_tokenization (decode's clean_up_tokenization_spaces): the spaces
// before punctuation and English contractions that word-joining decoders leave, removed.
#pragma once

#include <string>

namespace precis::tokenize {

// Python's str.replace for each pattern in turn: " ." -> ".", " ?", " !", " ,", " ' " -> "'",
// " n't", " 'm", " 's", " 've", " 're".
std::string clean_up_tokenization(std::string text);

}  // namespace precis::tokenize
