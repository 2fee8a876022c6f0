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

#include "precis/eval/python_text.h"
#include "precis/eval/sentence_split.h"
#include "precis/eval/summarization_metrics.h"
#include "test_support.h"

TEST(RougeSentenceSplit, RuleBasedSplitsTheCasesAsNltk) {
  const auto cases = nlohmann::json::parse(precis::testing::read_all(
      std::string(PRECIS_SOURCE_DIR) + "/tests/unit/data/sentence_split_cases.json"))["rule_based"];
  ASSERT_GE(cases.size(), 20u);
  const auto rules = precis::eval::SentenceSplitter::rule_based();
  for (const nlohmann::json& c : cases) {
    const auto text = c.at("text").get<std::string>();
    const auto expected = c.at("sentences").get<std::vector<std::string>>();
    SCOPED_TRACE(text);
    const auto sentences = rules.split(precis::eval::python_text::strip(text));
    EXPECT_EQ(std::vector<std::string>(sentences.begin(), sentences.end()), expected);
    std::string lines;
    for (const std::string& s : expected) lines += (lines.empty() ? "" : "\n") + s;
    EXPECT_EQ(rules.on_lines(text), lines);
  }
}

// run_summarization strips each decoded prediction with Python's str.strip() before it splits
// and scores it, and writes it so stripped to generated_predictions.txt: U+3000, U+001C, U+0085
// and U+2029 are Python whitespace ("\u3000One. Two.\x1c\x85".strip() == "One. Two.").
TEST(RougeSentenceSplit, MetricsStripPredictionsAsPython) {
  const std::vector<std::string> predictions = {"\u3000One. Two.\x1c\u0085", "  \u2029"};
  const auto scores = precis::eval::score_texts(predictions, {"One. Two.", "x"}, 0);
  EXPECT_EQ(scores.predictions, (std::vector<std::string>{"One. Two.", ""}));
}
