// The BPE trainer on corpora small enough to work out by hand: merge order, HF's tie-break
// on (left id, right id), min_frequency, the vocab_size bound and where the specials go.
// tests/oracle/test_tokenizer_train.py compares with HF `tokenizers` on real text.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "precis/core/error.h"
#include "precis/tokenize/bpe_trainer.h"
#include "precis/tokenize/bpe_trainer_corpus.h"

namespace precis::tokenize {
namespace {

using Merges = std::vector<std::pair<std::string, std::string>>;

// Specials (4) + the byte alphabet (256) + <mask>.
constexpr size_t kBase = 4 + 256 + 1;

WordCounts counts_of(const std::vector<std::string>& texts) {
  WordCounts counts;
  counts.add_texts(texts);
  return counts;
}

BpeModelData train(const std::vector<std::string>& texts, size_t vocab_size = 1000,
                   uint64_t min_frequency = 1) {
  BpeTrainerOptions options;
  options.vocab_size = vocab_size;
  options.min_frequency = min_frequency;
  return train_bpe(counts_of(texts), options);
}

TEST(BpeTrainer, WordsAreGpt2PiecesMappedToByteCharacters) {
  WordCounts counts = counts_of({"ab ab ab", "ab\n"});
  const auto& c = counts.counts();
  EXPECT_EQ(c.size(), 3u);  // raw bytes: "ab", " ab", "\n"
  EXPECT_EQ(c.at("ab"), 2u);
  EXPECT_EQ(c.at(" ab"), 2u);
  EXPECT_EQ(c.at("\n"), 1u);
  EXPECT_THROW(counts.add_text("bad \xff"), Error);
}

TEST(BpeTrainer, SpecialsFirstThenSortedAlphabetThenMergesThenMask) {
  BpeModelData m = train({"ab ab ab"});
  // (a b) 3 times, then (Ġ ab) twice.
  EXPECT_EQ(m.merges, (Merges{{"a", "b"}, {"\u0120", "ab"}}));
  EXPECT_EQ(m.vocab.size(), kBase + 2);
  EXPECT_EQ(m.vocab.at("<s>"), 0);
  EXPECT_EQ(m.vocab.at("<pad>"), 1);
  EXPECT_EQ(m.vocab.at("</s>"), 2);
  EXPECT_EQ(m.vocab.at("<unk>"), 3);
  EXPECT_EQ(m.vocab.at("!"), 4);  // 0x21, the smallest code point of the alphabet
  EXPECT_EQ(m.vocab.at("a"), 4 + ('a' - '!'));
  EXPECT_EQ(m.vocab.at("\u00ff"), 4 + 187);  // ÿ: last of the 188 self-mapped bytes
  EXPECT_EQ(m.vocab.at("\u0100"), 4 + 188);  // byte 0x00
  EXPECT_EQ(m.vocab.at("\u0143"), 4 + 255);  // byte 0xAD, the largest code point
  EXPECT_EQ(m.vocab.at("ab"), 260);
  EXPECT_EQ(m.vocab.at("\u0120ab"), 261);
  EXPECT_EQ(m.vocab.at("<mask>"), 262);
}

TEST(BpeTrainer, TiesGoToTheSmallestPairOfIdsNotOfStrings) {
  // (a b), (b c) and (d e) all occur twice: (a b) has the smallest ids. Then (ab c) and
  // (d e) tie; "ab" has id 260, above every byte, so (d e) goes first although "ab" < "d".
  BpeModelData m = train({"abc", "abc", "de", "de"});
  EXPECT_EQ(m.merges, (Merges{{"a", "b"}, {"d", "e"}, {"ab", "c"}}));
  EXPECT_EQ(m.vocab.at("ab"), 260);
  EXPECT_EQ(m.vocab.at("de"), 261);
  EXPECT_EQ(m.vocab.at("abc"), 262);
}

TEST(BpeTrainer, HigherCountWinsOverSmallerIds) {
  BpeModelData m = train({"yz", "yz", "ab"});
  EXPECT_EQ(m.merges, (Merges{{"y", "z"}, {"a", "b"}}));
}

TEST(BpeTrainer, CountsAreWeightedByWordFrequency) {
  // (x y) is in one text but in three words; (a b) is in two texts, two words.
  BpeModelData m = train({"ab", "abq", "xyz xyz xyz"});
  EXPECT_EQ(m.merges.front(), (std::pair<std::string, std::string>{"x", "y"}));
}

TEST(BpeTrainer, MinFrequencyStopsTraining) {
  EXPECT_EQ(train({"ab", "ab", "ab", "cd"}, 1000, 2).merges, (Merges{{"a", "b"}}));
  EXPECT_EQ(train({"ab", "ab", "ab", "cd"}, 1000, 1).merges, (Merges{{"a", "b"}, {"c", "d"}}));
  EXPECT_EQ(train({"ab", "ab", "ab", "cd"}, 1000, 4).merges, Merges{});
}

TEST(BpeTrainer, VocabSizeCountsEveryTokenMaskIncluded) {
  std::vector<std::string> texts = {"the cat sat on the mat with the hat"};
  BpeModelData m = train(texts, kBase + 3);
  EXPECT_EQ(m.vocab.size(), kBase + 3);
  EXPECT_EQ(m.merges.size(), 3u);
  EXPECT_EQ(m.vocab.at("<mask>"), int32_t(kBase + 2));
  EXPECT_EQ(train(texts, kBase).merges, Merges{});
  EXPECT_THROW(train(texts, kBase - 1), Error);
  // The corpus runs out of pairs long before 1000: the mask follows the last merge.
  BpeModelData all = train(texts, 1000);
  EXPECT_LT(all.vocab.size(), 1000u);
  EXPECT_EQ(all.vocab.at("<mask>"), int32_t(all.vocab.size() - 1));
}

TEST(BpeTrainer, OverlappingPairIsMergedLeftToRight) {
  // "aaaa": (a a) counts 3; merging gives [aa, aa], then (aa aa) once.
  BpeModelData m = train({"aaaa"});
  EXPECT_EQ(m.merges, (Merges{{"a", "a"}, {"aa", "aa"}}));
  EXPECT_FALSE(m.vocab.contains("aaa"));
}

TEST(BpeTrainer, NonAsciiWordsUseTheByteCharacters) {
  // "é" is C3 A9 -> "Ã©"; a space is Ġ.
  BpeModelData m = train({"é é"});
  EXPECT_EQ(m.merges.front(), (std::pair<std::string, std::string>{"\u00c3", "\u00a9"}));
  EXPECT_TRUE(m.vocab.contains("\u0120\u00c3\u00a9"));
}

TEST(BpeTrainer, TrainedTokenizerEncodesWithItsMerges) {
  BpeTrainerOptions options;
  options.vocab_size = 1000;
  options.min_frequency = 1;
  Tokenizer t = train_tokenizer(counts_of({"ab ab ab"}), options);
  EXPECT_EQ(t.size(), kBase + 2);
  EXPECT_EQ(t.encode("ab ab"), (std::vector<int32_t>{0, 260, 261, 2}));
  EXPECT_EQ(t.mask_token_id(), 262);
  EncodeOptions no_specials;
  no_specials.add_special_tokens = false;
  EXPECT_EQ(t.encode("ab<mask>", no_specials), (std::vector<int32_t>{260, 262}));
}

class BpeTrainerFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("precis_bpe_trainer_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path write(const std::string& name, const std::string& content) {
    std::ofstream(dir_ / name, std::ios::binary) << content;
    return dir_ / name;
  }
  std::filesystem::path dir_;
};

TEST_F(BpeTrainerFiles, PlainTextLinesKeepTheirNewline) {
  WordCounts counts;
  count_file_words(write("a.txt", "ab\r\nab\n\nab"), {}, counts);
  const auto& c = counts.counts();
  EXPECT_EQ(c.at("ab"), 3u);
  EXPECT_EQ(c.at("\r\n"), 1u);
  EXPECT_EQ(c.at("\n"), 2u);
}

TEST_F(BpeTrainerFiles, JsonLinesTakeTheNamedFieldsOrEveryString) {
  auto file = write("a.jsonl", "{\"d\": \"xx\", \"s\": \"yy\", \"n\": 3}\n\n\"zz\"\n");
  WordCounts all;
  count_file_words(file, {}, all);
  EXPECT_EQ(all.size(), 3u);
  WordCounts only_d;
  count_file_words(write("b.jsonl", "{\"d\": \"xx\", \"s\": \"yy\"}\n"), {{"d"}}, only_d);
  EXPECT_EQ(only_d.size(), 1u);
  EXPECT_TRUE(only_d.counts().contains("xx"));
}

TEST_F(BpeTrainerFiles, ErrorsNameFileAndLine) {
  auto expect_error = [](const std::function<void()>& f, const std::string& part) {
    try {
      f();
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  WordCounts counts;
  auto bad_json = write("c.jsonl", "{\"d\": \"x\"}\n{\"d\": \n");
  expect_error([&] { count_file_words(bad_json, {}, counts); }, "c.jsonl:2: not valid JSON");
  auto nul = write("n.jsonl", std::string("{\"d\": \"x\"}\n{\"d\": \"y\"}\0{\"d\": 1}\n", 31));
  expect_error([&] { count_file_words(nul, {}, counts); }, "n.jsonl:2: not valid JSON: a NUL byte at column 11");
  auto missing = write("d.jsonl", "{\"d\": \"x\"}\n{\"e\": \"x\"}\n");
  expect_error([&] { count_file_words(missing, {{"d"}}, counts); },
               "d.jsonl:2: no string field \"d\"");
  auto bad_utf8 = write("e.txt", "fine\nfine\nnot \xc3\x28 fine\n");
  expect_error([&] { count_file_words(bad_utf8, {}, counts); }, "e.txt:3: not valid UTF-8");
  expect_error([&] { count_file_words(dir_ / "absent.txt", {}, counts); },
               "absent.txt: cannot open");
}

}  // namespace
}  // namespace precis::tokenize
