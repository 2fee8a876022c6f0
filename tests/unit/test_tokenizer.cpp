// Unit tests of the byte-level BPE pieces on hand-made vocabularies. (Parity with Hugging
// Face on real vocabularies is tests/oracle/test_tokenizer.py.)
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <random>

#include "precis/core/error.h"
#include "precis/core/hf_semantics.h"
#include "precis/tokenize/added_tokens.h"
#include "precis/tokenize/byte_level.h"
#include "precis/tokenize/gpt2_split.h"
#include "precis/tokenize/tokenizer.h"
#include "precis/tokenize/unicode_tables.h"
#include "precis/tokenize/unigram_tokenizer.h"
#include "precis/tokenize/utf8.h"
#include "test_support.h"

using namespace precis;
using namespace precis::tokenize;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> split(std::string_view s) {
  std::vector<std::string_view> pieces;
  split_gpt2(s, pieces);
  return {pieces.begin(), pieces.end()};
}

using precis::testing::TempDir;

// Vocabulary: the 256 byte characters, then the specials, then merged tokens.
std::unordered_map<std::string, int32_t> byte_vocab() {
  std::unordered_map<std::string, int32_t> v;
  for (const char* s : {"<s>", "<pad>", "</s>", "<unk>"}) v[s] = static_cast<int32_t>(v.size());
  for (int b = 0; b < 256; ++b)
    v[byte_level_encode(std::string(1, static_cast<char>(b)))] = static_cast<int32_t>(v.size());
  return v;
}

int32_t byte_id(const std::unordered_map<std::string, int32_t>& v, char b) {
  return v.at(byte_level_encode(std::string(1, b)));
}

const char* kTinyMerges = "#version: 0.2\nh e\nl l\nhe ll\nhell o\nĠ w\n";

std::string vocab_json_with(const std::vector<std::string>& extra) {
  auto v = byte_vocab();
  for (const auto& e : extra) v[e] = static_cast<int32_t>(v.size());
  v["<mask>"] = static_cast<int32_t>(v.size());
  std::string out = "{";
  for (const auto& [t, id] : v) {
    std::string esc;
    for (char c : t) {
      if (c == '"' || c == '\\') esc += '\\';
      esc += c;
    }
    if (out.size() > 1) out += ',';
    out += '"';
    out += esc;
    out += "\":";
    out += std::to_string(id);
  }
  return out + "}";
}

// The byte-level tokenizer of vocab_json_with({}) and no merges, saved in `dir`.
Tokenizer bytes_only_tokenizer(const TempDir& dir) {
  dir.write("vocab.json", vocab_json_with({}));
  dir.write("merges.txt", "#version: 0.2\n");
  return Tokenizer::from_directory(dir.path());
}

EncodeOptions encode_options(bool specials, std::optional<size_t> max_length = std::nullopt) {
  EncodeOptions o;
  o.add_special_tokens = specials;
  o.max_length = max_length;
  return o;
}

DecodeOptions decode_options(bool skip, std::optional<bool> clean_up = std::nullopt) {
  DecodeOptions o;
  o.skip_special_tokens = skip;
  o.clean_up_tokenization_spaces = clean_up;
  return o;
}

}  // namespace

TEST(TokenizerByteLevel, MapsBytesLikeGpt2) {
  EXPECT_EQ(byte_to_char(' '), U'\u0120');
  EXPECT_EQ(byte_to_char('\n'), U'\u010A');
  EXPECT_EQ(byte_to_char('!'), U'!');
  EXPECT_EQ(byte_to_char(0xAD), U'\u0143');
  EXPECT_EQ(byte_to_char(0x00), U'\u0100');
  EXPECT_EQ(byte_to_char(0xA1), U'\u00A1');
  for (int b = 0; b < 256; ++b) EXPECT_EQ(char_to_byte(byte_to_char(static_cast<uint8_t>(b))), b);
  EXPECT_EQ(char_to_byte(U'\u0144'), -1);
  EXPECT_EQ(char_to_byte(U'\u00AD'), -1);  // 0xAD itself is remapped, so U+00AD is no byte
  EXPECT_EQ(byte_level_encode("a b"),
            "a\xC4\xA0"
            "b");
  EXPECT_EQ(byte_level_decode("a\xC4\xA0"
                              "b"),
            std::optional<std::string>("a b"));
  EXPECT_EQ(byte_level_decode("\xE2\x82\xAC"), std::nullopt);  // '€' is not a byte character
}

TEST(TokenizerUnicode, ClassesMatchRegexSemantics) {
  EXPECT_EQ(char_class(U'a'), CharClass::kLetter);
  EXPECT_EQ(char_class(U'\u4E2D'), CharClass::kLetter);
  EXPECT_EQ(char_class(U'\u00BD'), CharClass::kNumber);  // ½ is No
  EXPECT_EQ(char_class(U'\u0663'), CharClass::kNumber);
  EXPECT_EQ(char_class(U'\u00A0'), CharClass::kSpace);
  EXPECT_EQ(char_class(U'\u0085'), CharClass::kSpace);
  EXPECT_EQ(char_class(U'\u001C'), CharClass::kOther);  // Python isspace() would say space
  EXPECT_EQ(char_class(U'\u200B'), CharClass::kOther);
  EXPECT_EQ(char_class(U'\u0301'), CharClass::kOther);  // combining mark: not \p{L}
  EXPECT_EQ(char_class(0x10FFFF), CharClass::kOther);
}

// single_word's word characters are the regex crate's \w in Unicode 15.0; each value below is
// what tokenizers 0.19.1 does with AddedToken("zq", single_word=True) beside the character.
TEST(TokenizerUnicode, WordCharactersAreTheRegexCratesW) {
  for (char32_t c :
       {U'a', U'5', U'_', U'\u0301', U'\u0903', U'\u200D', U'\u24B6', U'\u2160', U'\u0663',
        U'\u203F', char32_t{0x11F04}})  // 0x11F04: Kawi, new in Unicode 15.0
    EXPECT_TRUE(is_word_char(c)) << std::hex << static_cast<uint32_t>(c);
  for (char32_t c : {U' ', U'-', U'\u00B2', U'\u00BD', U'\u200B', char32_t{0x2EBF0},
                     char32_t{0x10FFFF}})  // 0x2EBF0: CJK Extension I, new in 15.1
    EXPECT_FALSE(is_word_char(c)) << std::hex << static_cast<uint32_t>(c);
}

namespace {

std::vector<std::pair<std::string, int32_t>> segments(const AddedTokenMatcher& m,
                                                      std::string_view text) {
  std::vector<Segment> out;
  m.split(text, out);
  std::vector<std::pair<std::string, int32_t>> v;
  for (const Segment& s : out) v.emplace_back(std::string(s.text), s.id);
  return v;
}

AddedToken added(int32_t id, std::string content, bool special = false) {
  AddedToken t;
  t.id = id;
  t.content = std::move(content);
  t.special = special;
  return t;
}

}  // namespace

// AddedVocabulary's rules (tokenizers 0.19.1), each also in tests/oracle/test_added_tokens.py.
TEST(TokenizerAddedTokens, MatcherFollowsTokenizers) {
  using V = std::vector<std::pair<std::string, int32_t>>;
  auto lower = [](std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  // A normalized token is looked for as the normalizer makes its content.
  AddedTokenMatcher normalized({added(10, "AB")}, lower);
  EXPECT_EQ(segments(normalized, "xaby"), (V{{"x", -1}, {"ab", 10}, {"y", -1}}));
  EXPECT_EQ(segments(normalized, "xABy"), (V{{"xABy", -1}}));
  // Two tokens that look for the same text: the special one first, then the first given.
  AddedTokenMatcher same({added(10, "ab"), added(11, "AB", true), added(12, "Ab")}, lower);
  EXPECT_EQ(segments(same, "ab"), (V{{"ab", 11}}));
  AddedTokenMatcher same_plain({added(10, "ab"), added(12, "Ab")}, lower);
  EXPECT_EQ(segments(same_plain, "ab"), (V{{"ab", 10}}));
  // The whitespace rstrip takes is searched again.
  AddedToken r = added(20, "<R>");
  r.rstrip = true;
  AddedTokenMatcher rstrip({r, added(21, " x")});
  EXPECT_EQ(segments(rstrip, "<R> xy"), (V{{"<R> ", 20}, {" x", 21}, {"y", -1}}));
  // single_word: "_" and a combining mark are word characters, "\u00B2" is not.
  AddedToken zq = added(30, "zq");
  zq.single_word = true;
  AddedTokenMatcher word({zq});
  EXPECT_EQ(segments(word, "zq_ zq\u00B2"), (V{{"zq_ ", -1}, {"zq", 30}, {"\u00B2", -1}}));
  EXPECT_EQ(segments(word, "\u0301zq"), (V{{"\u0301zq", -1}}));
  // A pattern the normalizer empties matches between every two bytes where nothing else
  // does (its own matches are empty, so dropped); inside a multi-byte character tokenizers
  // panics, and this throws.
  auto drop_all = [](std::string_view) { return std::string(); };
  AddedTokenMatcher empty({added(40, "\u200B"), added(41, "bc")}, drop_all);
  EXPECT_EQ(segments(empty, "abcd"), (V{{"a", -1}, {"b", -1}, {"c", -1}, {"d", -1}}));
  AddedTokenMatcher empty_bc({added(40, "\u200B"), added(41, "bc", false)}, [](std::string_view s) {
    return s == "bc" ? std::string(s) : std::string();
  });
  EXPECT_EQ(segments(empty_bc, "abcd"), (V{{"a", -1}, {"bc", 41}, {"d", -1}}));
  EXPECT_THROW(segments(empty, "a\u00E9"), Error);
}

TEST(TokenizerSplit, Gpt2Regex) {
  using V = std::vector<std::string>;
  EXPECT_EQ(split("Hello world"), (V{"Hello", " world"}));
  EXPECT_EQ(split("I'm sure it's"), (V{"I", "'m", " sure", " it", "'s"}));
  EXPECT_EQ(split("DON'T"), (V{"DON", "'", "T"}));
  EXPECT_EQ(split("a  b"), (V{"a", " ", " b"}));
  EXPECT_EQ(split("a \nb"), (V{"a", " ", "\n", "b"}));
  EXPECT_EQ(split("x   "), (V{"x", "   "}));
  EXPECT_EQ(split("3.14!!'s"), (V{"3", ".", "14", "!!'", "s"}));
  EXPECT_EQ(split(" \xC2\xA0y"), (V{" ", "\xC2\xA0", "y"}));
  EXPECT_EQ(split(""), V{});
}

TEST(TokenizerUtf8, ReplacementPerMaximalSubpart) {
  EXPECT_EQ(utf8_lossy("a\xE2\x82"
                       "A"),
            "a\xEF\xBF\xBD"
            "A");
  EXPECT_EQ(utf8_lossy("\xF0\x80\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(utf8_lossy("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(utf8_lossy("\xF0\x9F\x98"), "\xEF\xBF\xBD");
  EXPECT_EQ(utf8_lossy("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(utf8_lossy("\xF0\x9F\x98\x80"), "\xF0\x9F\x98\x80");
  EXPECT_EQ(find_invalid_utf8("ok \xE2\x82"), 3u);
  EXPECT_EQ(find_invalid_utf8("ok \xE2\x82\xAC"), std::string_view::npos);
  EXPECT_EQ(find_invalid_utf8("a\xC0\xAF"), 1u);         // overlong
  EXPECT_EQ(find_invalid_utf8("ab\xED\xA0\x80"), 2u);    // surrogate
  EXPECT_EQ(find_invalid_utf8("\xF4\x90\x80\x80"), 0u);  // above U+10FFFF
  EXPECT_EQ(find_invalid_utf8("\xF4\x8F\xBF\xBF\xEF\xBF\xBD"), std::string_view::npos);
}

// Each byte that does not start a well-formed sequence is one U+FFFD of length 1.
TEST(TokenizerUtf8, LossyDecodingReadsEachIllFormedByteAlone) {
  auto decode = [](std::string_view s) {
    std::vector<std::pair<char32_t, size_t>> out;
    for (size_t i = 0, n = 0; i < s.size(); i += n)
      out.emplace_back(decode_utf8_lossy_at(s, i, n), n);
    return out;
  };
  using D = std::vector<std::pair<char32_t, size_t>>;
  EXPECT_EQ(decode("a\xE2\x82\xAC\xF0\x9F\x98\x80"), (D{{'a', 1}, {0x20AC, 3}, {0x1F600, 4}}));
  EXPECT_EQ(decode("\xE2\x82"
                   "A"),
            (D{{0xFFFD, 1}, {0xFFFD, 1}, {'A', 1}}));
  EXPECT_EQ(decode("\xED\xA0\x80"), (D{{0xFFFD, 1}, {0xFFFD, 1}, {0xFFFD, 1}}));
  EXPECT_EQ(decode("\xEF\xBF\xBD\xFF"), (D{{0xFFFD, 3}, {0xFFFD, 1}}));
}

TEST(TokenizerBpe, MergesByRankAndFormats) {
  TempDir dir;
  dir.write("vocab.json", vocab_json_with({"he", "ll", "hell", "hello", "\xC4\xA0w"}));
  dir.write("merges.txt", kTinyMerges);
  Tokenizer slow = Tokenizer::from_directory(dir.path());
  auto hello = *slow.token_to_id("hello");
  auto gw = *slow.token_to_id("\xC4\xA0w");
  auto v = byte_vocab();
  std::vector<int32_t> want = {
      0, hello, gw, byte_id(v, 'o'), byte_id(v, 'r'), byte_id(v, 'l'), byte_id(v, 'd'), 2};
  EXPECT_EQ(slow.encode("hello world"), want);
  EXPECT_EQ(slow.decode(want), "<s>hello world</s>");
  EXPECT_EQ(slow.decode(want, decode_options(true)), "hello world");

  // The same tokenizer through tokenizer.json, with string and with pair merges.
  slow.save(dir.path() / "saved");
  std::ifstream in(dir.path() / "saved" / "tokenizer.json");
  std::string json((std::istreambuf_iterator<char>(in)), {});
  ASSERT_NE(json.find("\"h e\""), std::string::npos);
  for (bool pairs : {false, true}) {
    TempDir fast;
    std::string j = json;
    if (pairs)
      for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
               {"\"h e\"", "[\"h\", \"e\"]"},
               {"\"l l\"", "[\"l\", \"l\"]"},
               {"\"he ll\"", "[\"he\", \"ll\"]"},
               {"\"hell o\"", "[\"hell\", \"o\"]"},
               {"\"\xC4\xA0 w\"", "[\"\xC4\xA0\", \"w\"]"}})
        j.replace(j.find(from), from.size(), to);
    fast.write("tokenizer.json", j);
    EXPECT_EQ(Tokenizer::from_directory(fast.path()).encode("hello world"), want) << pairs;
  }
}

TEST(TokenizerSpecials, MaskLstripAndTruncation) {
  TempDir dir;
  Tokenizer t = bytes_only_tokenizer(dir);
  auto v = byte_vocab();
  int32_t mask = t.mask_token_id();
  EXPECT_EQ(t.encode("a <mask>", encode_options(false)),
            (std::vector<int32_t>{byte_id(v, 'a'), mask}));
  EXPECT_EQ(t.encode("<s>", encode_options(false)), (std::vector<int32_t>{0}));
  std::vector<int32_t> abc = {byte_id(v, 'a'), byte_id(v, 'b'), byte_id(v, 'c')};
  EXPECT_EQ(t.encode("abc", encode_options(true, 4)), (std::vector<int32_t>{0, abc[0], abc[1], 2}));
  EXPECT_EQ(t.encode("abc", encode_options(true, 2)), (std::vector<int32_t>{0, 2}));
  // HF quirk: a limit below the number of specials truncates nothing.
  EXPECT_EQ(t.encode("abc", encode_options(true, 1)),
            (std::vector<int32_t>{0, abc[0], abc[1], abc[2], 2}));
  EXPECT_EQ(t.encode("abc", encode_options(false, 0)), std::vector<int32_t>{});
  EXPECT_EQ(t.pad_token_id(), 1);
  EXPECT_EQ(t.size(), 261u);
  EXPECT_THROW(t.encode("bad \xFF utf8"), Error);
  auto batch = t.encode_batch({"abc", "", "a <mask>"});
  ASSERT_EQ(batch.size(), 3u);
  EXPECT_EQ(batch[2], t.encode("a <mask>"));
}

TEST(TokenizerDecode, InvalidUtf8AndCleanUp) {
  // 4.44 cleans up a BPE tokenizer's text (its config says nothing: true by default).
  ScopedHfSemantics v4_44(HfSemantics::kV4_44);
  TempDir dir;
  Tokenizer t = bytes_only_tokenizer(dir);
  auto v = byte_vocab();
  std::vector<int32_t> ids = {byte_id(v, 'x'),
                              byte_id(v, '\xE2'),
                              byte_id(v, '\x82'),
                              byte_id(v, ' '),
                              byte_id(v, '.'),
                              999999,
                              -1};
  EXPECT_EQ(t.decode(ids), "x\xEF\xBF\xBD.");
  EXPECT_EQ(t.decode(ids, decode_options(false, false)), "x\xEF\xBF\xBD .");
}

TEST(TokenizerDecode, Transformers5SkipsTheCleanUpOfBpeUnlessForced) {
  ScopedHfSemantics v5(HfSemantics::kV5);
  TempDir dir;
  Tokenizer t = bytes_only_tokenizer(dir);
  auto v = byte_vocab();
  std::vector<int32_t> ids = {byte_id(v, 'x'), byte_id(v, ' '), byte_id(v, '.')};
  EXPECT_EQ(t.decode(ids), "x .");                               // absent from the config: false
  EXPECT_EQ(t.decode(ids, decode_options(false, true)), "x .");  // asked for, and ignored
  dir.write("tokenizer_config.json", R"({"clean_up_tokenization_spaces": true})");
  EXPECT_EQ(Tokenizer::from_directory(dir.path()).decode(ids), "x .");
  dir.write("tokenizer_config.json",
            R"({"clean_up_tokenization_spaces": true,
                "clean_up_tokenization_spaces_for_bpe_even_though_it_will_corrupt_output": true})");
  EXPECT_EQ(Tokenizer::from_directory(dir.path()).decode(ids), "x.");
}

// Both loaders read added tokens through one reader (added_token_json.h): an id past int32 was
// once narrowed by the Unigram loader into another token's id (4294967301 -> 5).
TEST(TokenizerFiles, AddedTokenIdsPastInt32AreRefusedByEveryLoader) {
  TempDir dir;
  auto unigram_error = [&](const std::string& added) {
    dir.write("tokenizer.json",
              R"({"model": {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0], ["</s>", 0.0], ["<pad>", 0.0], ["a", -1.0]]},
                  "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581"},
                  "added_tokens": [)" + added + "]}");
    try {
      tokenize::UnigramTokenizer::from_directory(dir.path());
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(unigram_error(R"({"id": 1, "content": "<x>"})"), "no error");
  for (const char* id : {"4294967301", "2147483648", "-1", "1.5"})
    EXPECT_NE(unigram_error(std::string(R"({"id": )") + id + R"(, "content": "<x>"})")
                  .find("tokenizer.json: added_tokens[0] needs a non-negative integer \"id\" below 2^31"),
              std::string::npos)
        << id << ": " << unigram_error(std::string(R"({"id": )") + id + R"(, "content": "<x>"})");
  EXPECT_NE(unigram_error(R"({"id": 1, "content": "<x>", "special": "yes"})")
                .find("added_tokens[0]: \"special\" should be true or false"),
            std::string::npos);

  // tokenizer_config.json's added_tokens_decoder takes the id from its key.
  TempDir slow;
  slow.write("vocab.json", R"({"a": 0, "b": 1})");
  slow.write("merges.txt", "#version: 0.2\n");
  auto keyed_error = [&](const std::string& key) {
    slow.write("tokenizer_config.json",
               R"({"added_tokens_decoder": {")" + key + R"(": {"content": "<x>"}}})");
    try {
      Tokenizer::from_directory(slow.path());
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(keyed_error("2"), "no error");
  for (const char* key : {"-1", "4294967298", "2147483648", "2x", ""})
    EXPECT_NE(keyed_error(key).find(std::string("added_tokens_decoder: key \"") + key +
                                    "\" should be a token id"),
              std::string::npos)
        << key << ": " << keyed_error(key);
}

TEST(TokenizerFiles, BadFilesThrowNamingTheFile) {
  auto message = [](const fs::path& d) {
    try {
      Tokenizer::from_directory(d);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  TempDir dir;
  EXPECT_NE(message(dir.path() / "missing").find("not a directory"), std::string::npos);
  EXPECT_NE(message(dir.path()).find("no tokenizer.json"), std::string::npos);
  dir.write("vocab.json", "[1, 2]");
  dir.write("merges.txt", "#version: 0.2\n");
  EXPECT_NE(message(dir.path()).find("vocab.json should be an object"), std::string::npos);
  dir.write("vocab.json", vocab_json_with({}));
  dir.write("merges.txt", "#version: 0.2\nq z\n");
  EXPECT_NE(message(dir.path()).find("merges.txt: merge 0 ('q' 'z') needs token 'qz'"),
            std::string::npos);
  dir.write("tokenizer.json",
            "{\"model\": {\"type\": \"BPE\", \"vocab\": {}, \"merges\": [\"a b c\"]}}");
  EXPECT_NE(message(dir.path()).find("tokenizer.json: model.merges[0] should be two tokens"),
            std::string::npos);
  dir.write("tokenizer.json", "{\"model\": ");
  EXPECT_NE(message(dir.path()).find("tokenizer.json: not valid JSON"), std::string::npos);
  // Ids must be token ids: not past int32 (they were narrowed), not floats (converted).
  dir.write("tokenizer.json", "{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": []}, "
                              "\"added_tokens\": [{\"id\": 4294967296, \"content\": \"<x>\"}]}");
  EXPECT_NE(message(dir.path()).find("tokenizer.json: added_tokens[0] needs a non-negative integer \"id\" below 2^31"),
            std::string::npos)
      << message(dir.path());
  dir.write("tokenizer.json", "{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": []}, "
                              "\"pre_tokenizer\": {\"type\": \"ByteLevel\", \"add_prefix_space\": false}, \"post_processor\": {\"type\": \"RobertaProcessing\", \"sep\": [\"a\", 1e40], \"cls\": [\"a\", 0]}}");
  EXPECT_NE(message(dir.path()).find("post_processor.sep should be [token, id]"), std::string::npos)
      << message(dir.path());
  dir.write("tokenizer.json", "{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": []}, "
                              "\"pre_tokenizer\": {\"type\": \"ByteLevel\", \"add_prefix_space\": false}, \"post_processor\": {\"type\": \"TemplateProcessing\", \"single\": [{\"SpecialToken\": {\"id\": \"a\"}}], "
                              "\"special_tokens\": {\"a\": {\"ids\": [1e40]}}}}");
  EXPECT_NE(message(dir.path()).find("TemplateProcessing special token 'a' ids should be token ids"), std::string::npos)
      << message(dir.path());
  // Found by bpe_files_fuzzer: one id near 10^9 made the id tables allocate gigabytes.
  std::filesystem::remove(dir.path() / "tokenizer.json");
  dir.write("vocab.json", "{\"<s>\": 0, \"<pad>\": 1, \"</s>\": 2, \"<unk>\": 3, \"+\": 977755514}");
  dir.write("merges.txt", "#version: 0.2\n");
  EXPECT_NE(message(dir.path()).find("vocab.json: token id 977755514 is far past the 5 tokens"),
            std::string::npos)
      << message(dir.path());
}
