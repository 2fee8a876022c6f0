// NLTK's Punkt sentence tokenizer, inference only: what `nltk.sent_tokenize(text)` does with
// a trained parameter set (NLTK 3.9.1, nltk/tokenize/punkt.py: PunktSentenceTokenizer.tokenize
// with realign_boundaries, the default PunktLanguageVars and PunktToken). The parameters are
// read from a punkt_tab language directory, as nltk's PunktTokenizer loads them
// (load_punkt_params); precis does not ship them.
//
// Punkt (Kiss & Strunk 2006) in short: every ".", "?" or "!" followed by punctuation or by
// whitespace and a word is a candidate. For each, the word before it and the token after it
// are split into Punkt's word tokens and annotated in two passes: the first by type alone (a
// lone "." "?" "!" or a word ending in "." ends a sentence, unless the word is a known
// abbreviation or an ellipsis); the second by context (a known collocation joins the two
// words; after an abbreviation or ellipsis, a next word that the orthographic statistics say
// starts sentences, or a frequent sentence starter, ends the sentence; after an initial or a
// number, a next word that never starts sentences joins them). A sentence then ends after
// the candidate, and closing quotes and brackets that follow it move into that sentence.
//
// Text is UTF-8; Python's character classes and lower() are reproduced (python_text.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace precis::eval {

// nltk.tokenize.punkt.PunktParameters: the trained tables.
struct PunktParameters {
  std::unordered_set<std::string> abbrev_types;                // lower case, without the period
  std::set<std::pair<std::string, std::string>> collocations;  // (type, next type)
  std::unordered_set<std::string> sent_starters;               // frequent sentence starters
  std::unordered_map<std::string, int64_t> ortho_context;      // type -> kOrtho* flags
};

// The orthographic contexts a type was seen in during training (BEG = sentence-initial,
// MID = sentence-internal, UNK = unknown position; UC/LC = upper/lower-case first letter).
enum PunktOrtho : int64_t {
  kOrthoBegUc = 1 << 1,
  kOrthoMidUc = 1 << 2,
  kOrthoUnkUc = 1 << 3,
  kOrthoBegLc = 1 << 4,
  kOrthoMidLc = 1 << 5,
  kOrthoUnkLc = 1 << 6,
  kOrthoUc = kOrthoBegUc | kOrthoMidUc | kOrthoUnkUc,
  kOrthoLc = kOrthoBegLc | kOrthoMidLc | kOrthoUnkLc,
};

// The four files of a punkt_tab language directory (e.g. nltk_data/tokenizers/punkt_tab/
// english), UTF-8, one entry per line ("\n", "\r\n" or "\r"): abbrev_types.txt and
// sent_starters.txt one type per line; collocations.tab "TYPE<TAB>TYPE"; ortho_context.tab
// "TYPE<TAB>INTEGER" (a type given twice keeps its last value). Throws precis::Error naming
// the file, and the line for a malformed one.
PunktParameters load_punkt_parameters(const std::filesystem::path& language_dir);

// The sentences of `text`, as slices of it: PunktSentenceTokenizer(params).tokenize(text).
std::vector<std::string_view> punkt_sentences(const PunktParameters& params, std::string_view text);

}  // namespace precis::eval
