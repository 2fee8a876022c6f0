// precis's rule-based English sentence splitter: what rougeLsum's sentence splitting falls back
// to where NLTK's Punkt tables are not found (sentence_split.h). The rules follow Punkt's
// decisions where they are clear-cut (a period after an ordinary word ends a sentence whatever
// follows; `?` and `!` always do; closing quotes and brackets stay with the sentence they
// close) and use a hand-written list of abbreviations, initials and numbers where Punkt uses
// its trained tables. docs/rouge.md measures how often the two agree.
#pragma once

#include <string_view>
#include <vector>

namespace precis::eval {

// Sentences of `text` as slices of it: each starts at a non-space character and ends at its
// closing punctuation; newlines inside a sentence are kept, as Punkt keeps them.
std::vector<std::string_view> rule_based_sentences(std::string_view text);

}  // namespace precis::eval
