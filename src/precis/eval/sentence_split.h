// English sentence splitting for ROUGE-Lsum, as run_summarization does it before scoring:
// `"\n".join(nltk.sent_tokenize(text.strip()))`, NLTK's Punkt with its English tables
// (punkt_tab/english). Those tables are NLTK data, which precis does not ship: where they are
// found (where NLTK looks for them, or in a directory given), the splitting is NLTK's Punkt
// exactly (punkt.h); where not, precis's rule-based splitter (sentence_rules.h), which agrees
// with Punkt on most text but not all (docs/rouge.md), after one warning.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "precis/eval/punkt.h"

namespace precis::eval {

class SentenceSplitter {
 public:
  // NLTK's Punkt with the tables of a punkt_tab language directory (e.g.
  // ~/nltk_data/tokenizers/punkt_tab/english); throws precis::Error when they cannot be read.
  static SentenceSplitter punkt(const std::filesystem::path& language_dir);
  // precis's rule-based English splitter.
  static SentenceSplitter rule_based();

  // Sentences of `text` (as slices of it): nltk.sent_tokenize(text).
  std::vector<std::string_view> split(std::string_view text) const;
  // run_summarization's postprocess_text for one text: Python's strip() (python_text::strip,
  // Unicode whitespace), then one sentence per line.
  std::string on_lines(std::string_view text) const;

  bool is_punkt() const { return punkt_ != nullptr; }
  // "punkt_tab DIR" or "rule-based", for reports.
  const std::string& description() const { return description_; }

 private:
  std::shared_ptr<const PunktParameters> punkt_;  // null: the rule-based splitter
  std::string description_;
};

// The directories NLTK searches for its data, in its order (nltk.data.path on Unix): each
// entry of $NLTK_DATA (split at ':'), ~/nltk_data, the ones under sys.prefix as a virtual
// environment in $VIRTUAL_ENV gives it (nltk_data, share/nltk_data, lib/nltk_data), then
// /usr/share/nltk_data, /usr/local/share/nltk_data, /usr/lib/nltk_data,
// /usr/local/lib/nltk_data.
std::vector<std::filesystem::path> nltk_data_path();

// The first DIR/tokenizers/punkt_tab/LANGUAGE that is a directory, DIR from nltk_data_path(),
// as nltk.data.find("tokenizers/punkt_tab/LANGUAGE/") finds it.
std::optional<std::filesystem::path> find_punkt_tab(std::string_view language = "english");

// The splitter rougeLsum uses where none is given (precis rouge, the metrics of train, eval and
// predict, precis compare), chosen on first use and named once on stderr then: Punkt with the
// English tables find_punkt_tab() finds (an error if they are malformed), its directory named;
// else the rule-based splitter, in a warning naming the directories searched and how to get
// the tables.
const SentenceSplitter& default_sentence_splitter();

// default_sentence_splitter().split(text) and .on_lines(text).
std::vector<std::string_view> split_sentences(std::string_view text);
std::string sentences_on_lines(std::string_view text);

}  // namespace precis::eval
