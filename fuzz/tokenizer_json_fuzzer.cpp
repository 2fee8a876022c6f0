// tokenizer.json on arbitrary bytes, as BART's byte-level BPE (Tokenizer) and as T5's Unigram
// (UnigramTokenizer) read it, with tokenizer_config.json and special_tokens_map.json beside
// it. Input: tokenizer.json, separator, tokenizer_config.json, separator,
// special_tokens_map.json (an empty part: that file is absent). A tokenizer that loads is
// then used to encode and decode.
#include "fuzz_support.h"
#include "precis/tokenize/tokenizer.h"
#include "precis/tokenize/unigram_tokenizer.h"
#include "tokenizer_exercise.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace precis::fuzz;
  namespace tok = precis::tokenize;
  const auto parts = split_files(as_text(data, size), 3);
  const std::filesystem::path dir = fresh_dir("tokenizer");
  write_file(dir / "tokenizer.json", parts[0]);
  if (!parts[1].empty()) write_file(dir / "tokenizer_config.json", parts[1]);
  if (!parts[2].empty()) write_file(dir / "special_tokens_map.json", parts[2]);

  expect_only_precis_errors([&] {
    tok::Tokenizer t = tok::Tokenizer::from_directory(dir);
    for (const std::string& text : probe_texts()) {
      expect_only_precis_errors([&] {
        std::vector<int32_t> ids = t.encode(text);
        t.decode(ids, {true, std::nullopt});
        t.encode(text, {false, 4});
      });
    }
    const std::vector<int32_t> ids = probe_ids(t.size());
    expect_only_precis_errors([&] { t.decode(ids); });
    expect_only_precis_errors([&] { t.decode(ids, {true, false}); });
  });
  expect_only_precis_errors([&] { exercise_t5(tok::UnigramTokenizer::from_directory(dir)); });
  return 0;
}
