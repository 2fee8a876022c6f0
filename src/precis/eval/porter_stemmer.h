// The Porter stemmer exactly as NLTK's `PorterStemmer()` runs it in its default mode,
// NLTK_EXTENSIONS (nltk/stem/porter.py, NLTK >= 3.2.2). rouge_score stems every token
// longer than 3 characters with it, so ROUGE with use_stemmer=True depends on each quirk:
// the irregular-forms pool, the two-letter *o rule, `ies`/`ied` on four-letter words,
// the recursive `alli` in step 2 and the `logi` condition on the word minus three letters.
#pragma once

#include <string>
#include <string_view>

namespace precis::eval {

// Stems one lower-case ASCII word. Words of at most two characters come back unchanged.
// Characters other than a-z are treated as consonants, as NLTK does.
std::string porter_stem(std::string_view word);

}  // namespace precis::eval
