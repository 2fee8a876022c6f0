// Every expectation here is NLTK's: `"\n".join(nltk.sent_tokenize(text.strip()))` with the
// English Punkt model, what run_summarization does before rougeLsum. The oracle test
// tests/oracle/test_rouge.py (test_unit_test_expectations_are_nltk_punkts) reads each
// EXPECT_EQ(sentences_on_lines(...), ...) of this file and checks it against NLTK, so a case
// added here must be one where Punkt's output is the expectation; the cases where precis's
// splitter and Punkt part ways are listed in that file.
#include <gtest/gtest.h>

#include "precis/eval/sentence_split.h"

using precis::eval::sentences_on_lines;

TEST(RougeSentenceSplit, PeriodsQuestionAndExclamation) {
  EXPECT_EQ(sentences_on_lines("  One. Two? Three! Four  "), "One.\nTwo?\nThree!\nFour");
  EXPECT_EQ(sentences_on_lines(""), "");
  EXPECT_EQ(sentences_on_lines(" \n "), "");
  EXPECT_EQ(sentences_on_lines("Is it? Yes. No!"), "Is it?\nYes.\nNo!");
  EXPECT_EQ(sentences_on_lines("She scored 9.5 points! Amazing?"), "She scored 9.5 points!\nAmazing?");
  EXPECT_EQ(sentences_on_lines("1. Buy milk. 2. Call Bob."), "1.\nBuy milk.\n2.\nCall Bob.");
}

TEST(RougeSentenceSplit, AbbreviationsInitialsAndNumbers) {
  EXPECT_EQ(sentences_on_lines("Mr. Smith met Dr. Jones. They talked."), "Mr. Smith met Dr. Jones.\nThey talked.");
  EXPECT_EQ(sentences_on_lines("J. R. R. Tolkien wrote it. The end."), "J. R. R. Tolkien wrote it.\nThe end.");
  EXPECT_EQ(sentences_on_lines("The U.S. economy grew 3.5 percent. It slowed."),
            "The U.S. economy grew 3.5 percent.\nIt slowed.");
  EXPECT_EQ(sentences_on_lines("The U.S. is big. So is Canada."), "The U.S. is big.\nSo is Canada.");
  EXPECT_EQ(sentences_on_lines("It costs $3.50 per kg. That is cheap."), "It costs $3.50 per kg.\nThat is cheap.");
  EXPECT_EQ(sentences_on_lines("Prices rose 4%. Sales fell."), "Prices rose 4%.\nSales fell.");
  EXPECT_EQ(sentences_on_lines("They met on Jan. 5 and talked. It went well."),
            "They met on Jan. 5 and talked.\nIt went well.");
  EXPECT_EQ(sentences_on_lines("The meeting is at 3 p.m. tomorrow. Bring notes."),
            "The meeting is at 3 p.m. tomorrow.\nBring notes.");
  EXPECT_EQ(sentences_on_lines("Tom will call Ann at 6 p.m. She'll wait."), "Tom will call Ann at 6 p.m. She'll wait.");
  EXPECT_EQ(sentences_on_lines("Ms. Lee and Mr. Park met. They agreed on the plan."),
            "Ms. Lee and Mr. Park met.\nThey agreed on the plan.");
}

TEST(RougeSentenceSplit, QuotesBracketsEllipsesAndNewlines) {
  EXPECT_EQ(sentences_on_lines("He said \"Stop.\" Then he left."), "He said \"Stop.\"\nThen he left.");
  EXPECT_EQ(sentences_on_lines("He said: \"No.\" She agreed."), "He said: \"No.\"\nShe agreed.");
  EXPECT_EQ(sentences_on_lines("(It was late.) We slept."), "(It was late.)\nWe slept.");
  EXPECT_EQ(sentences_on_lines("Wait... what happened... Nothing."), "Wait... what happened...\nNothing.");
  EXPECT_EQ(sentences_on_lines("Amanda: hi\nJerry: hello. Bye."), "Amanda: hi\nJerry: hello.\nBye.");
  EXPECT_EQ(sentences_on_lines("Jerry: Sure!\nAmanda: I'll bring you tomorrow :-)"),
            "Jerry: Sure!\nAmanda: I'll bring you tomorrow :-)");
}
