// spiece.model (a SentencePiece model protobuf) on arbitrary bytes, read through Debian's
// libsentencepiece as T5Tokenizer does, with tokenizer_config.json (extra_ids) beside it.
// Input: spiece.model, separator, tokenizer_config.json (empty: absent). Note that
// libsentencepiece itself is not instrumented: ASan sees its memory only through the
// allocator and the intercepted libc calls.
#include "fuzz_support.h"
#include "precis/tokenize/sentencepiece_tokenizer.h"
#include "tokenizer_exercise.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace precis::fuzz;
  namespace tok = precis::tokenize;
  const auto parts = split_files(as_text(data, size), 2);
  const std::filesystem::path dir = fresh_dir("tokenizer");
  write_file(dir / "spiece.model", parts[0]);
  if (!parts[1].empty()) write_file(dir / "tokenizer_config.json", parts[1]);
  expect_only_precis_errors([&] { exercise_t5(tok::SentencePieceTokenizer::from_directory(dir)); });
  return 0;
}
