// precis's rule-based splitter, the one rougeLsum falls back to without NLTK's Punkt tables, on
// the cases of tests/unit/data/sentence_split_cases.json ("rule_based"). Every expectation there
// is NLTK's: nltk.sent_tokenize(text.strip()) with the English Punkt model, what
// run_summarization does before rougeLsum. The oracle test tests/oracle/test_rouge.py
// (test_unit_test_expectations_are_nltk_punkts) checks each case against NLTK, and that
// precis's Punkt with NLTK's English tables gives the same; so a case added there must be one
// where Punkt's output is the expectation. Where the rules and Punkt part ways is measured there
// (test_rule_based_agreement_with_punkt_on_fixed_corpora).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "precis/eval/sentence_split.h"
#include "precis/eval/summarization_metrics.h"
#include "sentence_split_cases.h"
#include "test_support.h"

TEST(RougeSentenceSplit, RuleBasedSplitsTheCasesAsNltk) {
  const nlohmann::json cases = precis::testing::sentence_split_data("rule_based");
  ASSERT_GE(cases.size(), 20u);
  precis::testing::expect_splits_as_nltk(precis::eval::SentenceSplitter::rule_based(), cases);
}

// run_summarization strips each decoded prediction with Python's str.strip() before it splits
// and scores it, and writes it so stripped to generated_predictions.txt: U+3000, U+001C, U+0085
// and U+2029 are Python whitespace ("\u3000One. Two.\x1c\x85".strip() == "One. Two.").
TEST(RougeSentenceSplit, MetricsStripPredictionsAsPython) {
  const std::vector<std::string> predictions = {"\u3000One. Two.\x1c\u0085", "  \u2029"};
  const auto scores = precis::eval::score_texts(predictions, {"One. Two.", "x"}, 0);
  EXPECT_EQ(scores.predictions, (std::vector<std::string>{"One. Two.", ""}));
}
