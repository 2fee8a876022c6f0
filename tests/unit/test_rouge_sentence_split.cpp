// precis's rule-based splitter, the one rougeLsum falls back to without NLTK's Punkt tables.
// Every expectation here is NLTK's: `"\n".join(nltk.sent_tokenize(text.strip()))` with the
// English Punkt model, what run_summarization does before rougeLsum. The oracle test
// tests/oracle/test_rouge.py (test_unit_test_expectations_are_nltk_punkts) reads each
// EXPECT_EQ(rule_based_lines(...), ...) of this file and checks it against NLTK, and checks
// that precis's Punkt with NLTK's English tables gives the same; so a case added here must be
// one where Punkt's output is the expectation. Where the rules and Punkt part ways is measured
// there (test_rule_based_agreement_with_punkt_on_fixed_corpora).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "precis/eval/sentence_split.h"
#include "precis/eval/summarization_metrics.h"

namespace {

std::string rule_based_lines(std::string_view text) {
  return precis::eval::SentenceSplitter::rule_based().on_lines(text);
}

}  // namespace

TEST(RougeSentenceSplit, PeriodsQuestionAndExclamation) {
  EXPECT_EQ(rule_based_lines("  One. Two? Three! Four  "), "One.\nTwo?\nThree!\nFour");
  EXPECT_EQ(rule_based_lines(""), "");
  EXPECT_EQ(rule_based_lines(" \n "), "");
  EXPECT_EQ(rule_based_lines("Is it? Yes. No!"), "Is it?\nYes.\nNo!");
  EXPECT_EQ(rule_based_lines("She scored 9.5 points! Amazing?"), "She scored 9.5 points!\nAmazing?");
  EXPECT_EQ(rule_based_lines("1. Buy milk. 2. Call Bob."), "1.\nBuy milk.\n2.\nCall Bob.");
}

TEST(RougeSentenceSplit, AbbreviationsInitialsAndNumbers) {
  EXPECT_EQ(rule_based_lines("Mr. Smith met Dr. Jones. They talked."), "Mr. Smith met Dr. Jones.\nThey talked.");
  EXPECT_EQ(rule_based_lines("J. R. R. Tolkien wrote it. The end."), "J. R. R. Tolkien wrote it.\nThe end.");
  EXPECT_EQ(rule_based_lines("The U.S. economy grew 3.5 percent. It slowed."),
            "The U.S. economy grew 3.5 percent.\nIt slowed.");
  EXPECT_EQ(rule_based_lines("The U.S. is big. So is Canada."), "The U.S. is big.\nSo is Canada.");
  EXPECT_EQ(rule_based_lines("It costs $3.50 per kg. That is cheap."), "It costs $3.50 per kg.\nThat is cheap.");
  EXPECT_EQ(rule_based_lines("Prices rose 4%. Sales fell."), "Prices rose 4%.\nSales fell.");
  EXPECT_EQ(rule_based_lines("They met on Jan. 5 and talked. It went well."),
            "They met on Jan. 5 and talked.\nIt went well.");
  EXPECT_EQ(rule_based_lines("The meeting is at 3 p.m. tomorrow. Bring notes."),
            "The meeting is at 3 p.m. tomorrow.\nBring notes.");
  EXPECT_EQ(rule_based_lines("Tom will call Ann at 6 p.m. She'll wait."), "Tom will call Ann at 6 p.m. She'll wait.");
  EXPECT_EQ(rule_based_lines("Ms. Lee and Mr. Park met. They agreed on the plan."),
            "Ms. Lee and Mr. Park met.\nThey agreed on the plan.");
}

TEST(RougeSentenceSplit, QuotesBracketsEllipsesAndNewlines) {
  EXPECT_EQ(rule_based_lines("He said \"Stop.\" Then he left."), "He said \"Stop.\"\nThen he left.");
  EXPECT_EQ(rule_based_lines("He said: \"No.\" She agreed."), "He said: \"No.\"\nShe agreed.");
  EXPECT_EQ(rule_based_lines("(It was late.) We slept."), "(It was late.)\nWe slept.");
  EXPECT_EQ(rule_based_lines("Wait... what happened... Nothing."), "Wait... what happened...\nNothing.");
  EXPECT_EQ(rule_based_lines("Amanda: hi\nJerry: hello. Bye."), "Amanda: hi\nJerry: hello.\nBye.");
  EXPECT_EQ(rule_based_lines("Jerry: Sure!\nAmanda: I'll bring you tomorrow :-)"),
            "Jerry: Sure!\nAmanda: I'll bring you tomorrow :-)");
}

TEST(RougeSentenceSplit, StripsPythonWhitespace) {
  // Python's str.strip(), as run_summarization strips: U+001C..U+001F, U+0085 and U+2029 too.
  EXPECT_EQ(rule_based_lines("\x1c\u00a0One. Two.\u2029\u0085\x1f"), "One.\nTwo.");
}

// run_summarization strips each decoded prediction with Python's str.strip() before it splits
// and scores it, and writes it so stripped to generated_predictions.txt: U+3000, U+001C, U+0085
// and U+2029 are Python whitespace ("\u3000One. Two.\x1c\x85".strip() == "One. Two.").
TEST(RougeSentenceSplit, MetricsStripPredictionsAsPython) {
  const std::vector<std::string> predictions = {"\u3000One. Two.\x1c\u0085", "  \u2029"};
  const auto scores = precis::eval::score_texts(predictions, {"One. Two.", "x"}, 0);
  EXPECT_EQ(scores.predictions, (std::vector<std::string>{"One. Two.", ""}));
}
