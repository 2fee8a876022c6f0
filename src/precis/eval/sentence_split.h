// English sentence splitting for ROUGE-Lsum, standing in for run_summarization's
// `"\n".join(nltk.sent_tokenize(text.strip()))` (NLTK Punkt, English model), which needs
// trained parameters that precis does not ship. The rules follow Punkt's decisions where
// they are clear-cut (a period after an ordinary word ends a sentence whatever follows; `?`
// and `!` always do; closing quotes and brackets stay with the sentence they close) and use
// a hand-written list of abbreviations, initials and numbers where Punkt uses its trained
// tables. docs/rouge.md measures how often the two agree.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace precis::eval {

// Sentences of `text` as slices of it: each starts at a non-space character and ends at
// its closing punctuation; newlines inside a sentence are kept, as Punkt keeps them.
std::vector<std::string_view> split_sentences(std::string_view text);

// run_summarization's postprocess_text for one text: strip surrounding whitespace, then
// one sentence per line.
std::string sentences_on_lines(std::string_view text);

}  // namespace precis::eval
