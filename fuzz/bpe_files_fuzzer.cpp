// The slow tokenizer files of a BART checkpoint on arbitrary bytes: vocab.json + merges.txt,
// with tokenizer_config.json (added_tokens_decoder, special tokens, model_max_length).
// Input: vocab.json, separator, merges.txt, separator, tokenizer_config.json (an empty last
// part: no tokenizer_config.json). A tokenizer that loads is used to encode and decode.
#include "fuzz_support.h"
#include "precis/tokenize/tokenizer.h"
#include "tokenizer_exercise.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace precis::fuzz;
  namespace tok = precis::tokenize;
  const auto parts = split_files(as_text(data, size), 3);
  const std::filesystem::path dir = fresh_dir("tokenizer");
  write_file(dir / "vocab.json", parts[0]);
  write_file(dir / "merges.txt", parts[1]);
  if (!parts[2].empty()) write_file(dir / "tokenizer_config.json", parts[2]);

  expect_only_precis_errors([&] {
    tok::Tokenizer t = tok::Tokenizer::from_directory(dir);
    for (const std::string& text : probe_texts()) {
      expect_only_precis_errors([&] {
        std::vector<int32_t> ids = t.encode(text);
        t.decode(ids, {true, std::nullopt});
      });
    }
    expect_only_precis_errors([&] { t.decode(probe_ids(t.size())); });
  });
  return 0;
}
