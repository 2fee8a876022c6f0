// precis's Punkt (eval/punkt.h) on a tiny hand-made English parameter set, and its table
// loader. The parameter tables and the cases are tests/unit/data/sentence_split_cases.json
// ("tiny_punkt"), whose expectations are NLTK's: tests/oracle/test_rouge.py
// (test_tiny_punkt_cases_are_nltks) writes the same tables to a punkt_tab directory, loads them
// with nltk's own load_punkt_params and checks every case against
// PunktSentenceTokenizer.tokenize; so a case added there must be one whose expectation is
// NLTK's output. The tables hold types to test what each rule reads: abbreviations (one with a
// final sigma, one whose lower case is U+0130's two code points), collocations (an initial, a
// number), frequent sentence starters, and orthographic contexts (2 = sentence-initial upper
// case, 4 = internal upper case, 32 = internal lower case), the last file with "\r\n" line
// ends and a type given twice.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "precis/eval/sentence_split.h"
#include "sentence_split_cases.h"
#include "test_support.h"

namespace {

using precis::eval::SentenceSplitter;
using precis::testing::error_of;
using precis::testing::TempDir;

const nlohmann::json& tiny_punkt() {
  static const nlohmann::json cases = precis::testing::sentence_split_data("tiny_punkt");
  return cases;
}

// The four files of a punkt_tab language directory.
void write_tiny_punkt_tab(const TempDir& dir) {
  for (const auto& [name, content] : tiny_punkt().at("tables").items())
    dir.write(name, content.get<std::string>());
}

}  // namespace

TEST(Punkt, TinyEnglishParametersSplitAsNltk) {
  TempDir dir("precis-punkt");
  write_tiny_punkt_tab(dir);
  const SentenceSplitter tiny = SentenceSplitter::punkt(dir.path());
  EXPECT_TRUE(tiny.is_punkt());
  const nlohmann::json& cases = tiny_punkt().at("cases");
  ASSERT_GE(cases.size(), 15u);
  precis::testing::expect_splits_as_nltk(tiny, cases);
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
  auto load_error = [&] { return error_of([&] { SentenceSplitter::punkt(dir.path()); }); };
  EXPECT_CONTAINS(load_error(), "abbrev_types.txt: cannot open");
  write_tiny_punkt_tab(dir);
  dir.write("ortho_context.tab", "smith\t6\nthe\t34\napple\tlower\n");
  EXPECT_CONTAINS(load_error(), "ortho_context.tab:3: 'lower' is not an integer");
  dir.write("ortho_context.tab", "smith\t6\r\nthe 34\r\n");
  EXPECT_CONTAINS(load_error(), "ortho_context.tab:2: expected TYPE<TAB>INTEGER, found 1 tab-separated fields");
  write_tiny_punkt_tab(dir);
  dir.write("collocations.tab", "s\tbach\ndr\tno\tx\n");
  EXPECT_CONTAINS(load_error(), "collocations.tab:2: expected TYPE<TAB>TYPE, found 3 tab-separated fields");
  write_tiny_punkt_tab(dir);
  dir.write("sent_starters.txt", "the\nhe\xff\n");
  EXPECT_CONTAINS(load_error(), "sent_starters.txt:2: not UTF-8");
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
