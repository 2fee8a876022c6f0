#include <gtest/gtest.h>

#include "precis/eval/sentence_split.h"

using precis::eval::sentences_on_lines;

TEST(RougeSentenceSplit, PeriodsQuestionAndExclamation) {
  EXPECT_EQ(sentences_on_lines("  One. Two? Three! Four  "), "One.\nTwo?\nThree!\nFour");
  EXPECT_EQ(sentences_on_lines(""), "");
  EXPECT_EQ(sentences_on_lines(" \n "), "");
}

TEST(RougeSentenceSplit, AbbreviationsInitialsAndNumbers) {
  EXPECT_EQ(sentences_on_lines("Mr. Smith met Dr. Jones. They talked."), "Mr. Smith met Dr. Jones.\nThey talked.");
  EXPECT_EQ(sentences_on_lines("J. R. R. Tolkien wrote it. The end."), "J. R. R. Tolkien wrote it.\nThe end.");
  EXPECT_EQ(sentences_on_lines("The U.S. economy grew 3.5 percent. It slowed."),
            "The U.S. economy grew 3.5 percent.\nIt slowed.");
  EXPECT_EQ(sentences_on_lines("Apples, pears, etc. are fruit. The end."), "Apples, pears, etc. are fruit.\nThe end.");
  EXPECT_EQ(sentences_on_lines("It costs $3.50 per kg. That is cheap."), "It costs $3.50 per kg.\nThat is cheap.");
}

TEST(RougeSentenceSplit, QuotesBracketsEllipsesAndNewlines) {
  EXPECT_EQ(sentences_on_lines("He said \"Stop.\" Then he left."), "He said \"Stop.\"\nThen he left.");
  EXPECT_EQ(sentences_on_lines("(It was late.) We slept."), "(It was late.)\nWe slept.");
  EXPECT_EQ(sentences_on_lines("Wait... what happened... Nothing."), "Wait... what happened...\nNothing.");
  EXPECT_EQ(sentences_on_lines("Amanda: hi\nJerry: hello. Bye."), "Amanda: hi\nJerry: hello.\nBye.");
}
