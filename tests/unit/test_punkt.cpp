// precis's Punkt (eval/punkt.h) on a tiny hand-made English parameter set, and its table
// loader. The expectations are NLTK's: tests/oracle/test_rouge.py (test_tiny_punkt_cases_are_
// nltks) reads kTinyPunktTab and each EXPECT_EQ(tiny.on_lines(...), ...) of this file, writes
// the tables to a punkt_tab directory, loads them with nltk's own load_punkt_params and checks
// every expectation against PunktSentenceTokenizer.tokenize; so a case added here must be one
// whose expectation is NLTK's output.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "precis/eval/sentence_split.h"
#include "test_support.h"

namespace {

using precis::eval::SentenceSplitter;
using precis::testing::error_of;
using precis::testing::TempDir;

// The four files of a punkt_tab language directory. Types to test what each rule reads:
// abbreviations (one with a final sigma, one whose lower case is U+0130's two code points),
// collocations (an initial, a number), frequent sentence starters, and orthographic contexts
// (2 = sentence-initial upper case, 4 = internal upper case, 32 = internal lower case), the last
// file with "\r\n" line ends and a type given twice.
const char* const kTinyPunktTab[][2] = {
    {"abbrev_types.txt", "dr\nvol\nu.s\nco\nst\nοδος\ni\u0307nc"},
    {"collocations.tab", "s\tbach\n##number##\tjune\ndr\tno\n"},
    {"sent_starters.txt", "however\nthe\n"},
    {"ortho_context.tab",
     "smith\t6\r\nthe\t34\r\napple\t32\r\nhowever\t2\r\njune\t4\r\nkelvin\t34\r\nthe\t34\r\n"},
};

void write_tiny_punkt_tab(const TempDir& dir) {
  for (const auto& [name, content] : kTinyPunktTab) dir.write(name, content);
}

}  // namespace

TEST(Punkt, TinyEnglishParametersSplitAsNltk) {
  TempDir dir("precis-punkt");
  write_tiny_punkt_tab(dir);
  const SentenceSplitter tiny = SentenceSplitter::punkt(dir.path());
  EXPECT_TRUE(tiny.is_punkt());
  EXPECT_EQ(tiny.on_lines("Dr. Smith arrived. The end."), "Dr. Smith arrived.\nThe end.");
  EXPECT_EQ(tiny.on_lines("We met the dr. The rest left."), "We met the dr.\nThe rest left.");
  EXPECT_EQ(tiny.on_lines("See vol. However, it rained. See vol. Then it rained."),
            "See vol.\nHowever, it rained.\nSee vol. Then it rained.");
  EXPECT_EQ(tiny.on_lines("J. Smith met S. Bach. A. Apple fell."),
            "J. Smith met S. Bach.\nA.\nApple fell.");
  EXPECT_EQ(tiny.on_lines("It was 5. June came. It was 5. May came."),
            "It was 5. June came.\nIt was 5.\nMay came.");
  EXPECT_EQ(tiny.on_lines("Add 3. apple pie. Add 3. Pie."), "Add 3. apple pie.\nAdd 3.\nPie.");
  EXPECT_EQ(tiny.on_lines("Το ΟΔΟΣ. Next one. Το ΟΔΟΣΑ. Next one."),
            "Το ΟΔΟΣ. Next one.\nΤο ΟΔΟΣΑ.\nNext one.");
  EXPECT_EQ(tiny.on_lines("The \u0130nc. Smith branch. The Inc. Smith branch."),
            "The \u0130nc. Smith branch.\nThe Inc.\nSmith branch.");
  EXPECT_EQ(tiny.on_lines("Ask an ex-dr. Smith. Ask an ex-Dr. Smith."),
            "Ask an ex-dr. Smith.\nAsk an ex-Dr. Smith.");
  EXPECT_EQ(tiny.on_lines("Wait... the end. Wait... The end."),
            "Wait... the end.\nWait...\nThe end.");
  EXPECT_EQ(tiny.on_lines("He saw Dr. \u212aelvin. Dr. Kelvin left."),
            "He saw Dr.\n\u212aelvin.\nDr.\nKelvin left.");
  EXPECT_EQ(tiny.on_lines("\"Stop.\" (He left.) Then \"Go!\" she said.) Fine.'] Ok."),
            "\"Stop.\"\n(He left.)\nThen \"Go!\"\nshe said.)\nFine.']\nOk.");
  EXPECT_EQ(tiny.on_lines("Hmm. . . The cat. . . sat. Now -- really.--Yes. No."),
            "Hmm.\n.\n.\nThe cat.\n.\n.\nsat.\nNow -- really.--Yes.\nNo.");
  EXPECT_EQ(tiny.on_lines("First line.\n\nSecond para.\nthird line? Fourth!\n"),
            "First line.\nSecond para.\nthird line?\nFourth!");
  EXPECT_EQ(tiny.on_lines("End.\u00a0Next one.\u2009Last one.\x1c"
                          "After."),
            "End.\nNext one.\nLast one.\nAfter.");
  EXPECT_EQ(tiny.on_lines("Keys (a, b, etc.). Values: x.: y? z!!! What??? Yes."),
            "Keys (a, b, etc.).\nValues: x.: y?\nz!!!\nWhat???\nYes.");
  EXPECT_EQ(tiny.on_lines("The U.S. economy. U.S. The co. Smith. 1.5. 2. 3."),
            "The U.S. economy.\nU.S.\nThe co. Smith.\n1.5.\n2.\n3.");
  EXPECT_EQ(tiny.on_lines("Hi!(there) ok.'quoted' no?\"yes\" fine."),
            "Hi!\n(there) ok.\n'quoted' no?\n\"yes\" fine.");
}

TEST(Punkt, SentencesAreSlicesOfTheText) {
  TempDir dir("precis-punkt");
  write_tiny_punkt_tab(dir);
  const std::string text = "One two.  (Three.) \n Four";
  const auto sentences = SentenceSplitter::punkt(dir.path()).split(text);
  ASSERT_EQ(sentences.size(), 3u);
  EXPECT_EQ(sentences[1], "(Three.)");
  EXPECT_EQ(sentences[1].data(), text.data() + 10);
}

TEST(Punkt, MalformedTablesNameTheFileAndLine) {
  TempDir dir("precis-punkt");
  EXPECT_CONTAINS(error_of([&] { SentenceSplitter::punkt(dir.path()); }),
                  "abbrev_types.txt: cannot open");
  write_tiny_punkt_tab(dir);
  dir.write("ortho_context.tab", "smith\t6\nthe\t34\napple\tlower\n");
  EXPECT_CONTAINS(error_of([&] { SentenceSplitter::punkt(dir.path()); }),
                  "ortho_context.tab:3: 'lower' is not an integer");
  dir.write("ortho_context.tab", "smith\t6\r\nthe 34\r\n");
  EXPECT_CONTAINS(error_of([&] { SentenceSplitter::punkt(dir.path()); }),
                  "ortho_context.tab:2: expected TYPE<TAB>INTEGER, found 1 tab-separated fields");
  write_tiny_punkt_tab(dir);
  dir.write("collocations.tab", "s\tbach\ndr\tno\tx\n");
  EXPECT_CONTAINS(error_of([&] { SentenceSplitter::punkt(dir.path()); }),
                  "collocations.tab:2: expected TYPE<TAB>TYPE, found 3 tab-separated fields");
  write_tiny_punkt_tab(dir);
  dir.write("sent_starters.txt", "the\nhe\xff\n");
  EXPECT_CONTAINS(error_of([&] { SentenceSplitter::punkt(dir.path()); }),
                  "sent_starters.txt:2: not UTF-8");
}

// nltk.data.path's order, and the first tokenizers/punkt_tab/english directory on it.
TEST(Punkt, FoundWhereNltkLooks) {
  auto saved = [](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
  const auto nltk_data = saved("NLTK_DATA"), home = saved("HOME"), venv = saved("VIRTUAL_ENV");
  TempDir first("precis-nltk"), second("precis-nltk"), user("precis-home");
  setenv("NLTK_DATA", (first.path().string() + "::" + second.path().string()).c_str(), 1);
  setenv("HOME", user.path().c_str(), 1);
  setenv("VIRTUAL_ENV", "/opt/venv", 1);
  const std::vector<std::filesystem::path> expected = {first.path(),
                                                       second.path(),
                                                       user.path() / "nltk_data",
                                                       "/opt/venv/nltk_data",
                                                       "/opt/venv/share/nltk_data",
                                                       "/opt/venv/lib/nltk_data",
                                                       "/usr/share/nltk_data",
                                                       "/usr/local/share/nltk_data",
                                                       "/usr/lib/nltk_data",
                                                       "/usr/local/lib/nltk_data"};
  EXPECT_EQ(precis::eval::nltk_data_path(), expected);
  std::filesystem::create_directories(second / "tokenizers/punkt_tab/english");
  std::filesystem::create_directories(user / "nltk_data/tokenizers/punkt_tab/english");
  EXPECT_EQ(precis::eval::find_punkt_tab(), second / "tokenizers/punkt_tab/english");
  std::filesystem::create_directories(first / "tokenizers/punkt_tab/english");
  EXPECT_EQ(precis::eval::find_punkt_tab(), first / "tokenizers/punkt_tab/english");
  EXPECT_EQ(precis::eval::find_punkt_tab("german"), std::nullopt);
  for (auto [name, value] :
       {std::pair{"NLTK_DATA", nltk_data}, {"HOME", home}, {"VIRTUAL_ENV", venv}}) {
    if (value)
      setenv(name, value->c_str(), 1);
    else
      unsetenv(name);
  }
}
