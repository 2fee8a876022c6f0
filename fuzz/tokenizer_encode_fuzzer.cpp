// Tokenizer encode and decode on arbitrary bytes, with tokenizers that load correctly: a
// byte-level BPE trained here (with BART's special tokens) and every tokenizer directory
// listed in $PRECIS_FUZZ_TOKENIZERS (colon-separated; scripts/fuzz.sh passes the BART BPE,
// T5 spiece.model and T5 tokenizer.json directories it generates).
//
// Input: byte 0 picks the tokenizer (low bits) and the options (high bits), byte 1 a max_length; the rest is the
// text to encode, and, read as little-endian int32s, ids to decode. Invalid UTF-8 must be
// refused with precis::Error. For the trained BPE, decode(encode(text)) must give the text
// back exactly (byte-level BPE is lossless when no clean-up or special token is involved).
#include <cstring>
#include <functional>
#include <memory>
#include <sstream>

#include "fuzz_support.h"
#include "precis/tokenize/bpe_trainer.h"
#include "precis/tokenize/sentencepiece_tokenizer.h"
#include "precis/tokenize/tokenizer.h"
#include "precis/tokenize/unigram_tokenizer.h"

namespace {

namespace tok = precis::tokenize;

struct Codec {
  std::string name;
  std::function<std::vector<int32_t>(std::string_view text, bool specials, size_t max_length)> encode;
  // clean_up: transformers' clean-up of tokenization spaces (BPE only; " !" becomes "!").
  std::function<std::string(const std::vector<int32_t>& ids, bool skip_specials, bool clean_up)> decode;
  const tok::Tokenizer* bpe = nullptr;  // for the round-trip check
};

template <class T5Tokenizer>
Codec t5_codec(std::string name, std::shared_ptr<T5Tokenizer> t) {
  return {std::move(name),
          [t](std::string_view text, bool specials, size_t max_length) {
            return max_length ? t->encode_truncated(text, max_length) : t->encode(text, specials);
          },
          [t](const std::vector<int32_t>& ids, bool skip, bool) { return t->decode(ids, skip); }};
}

Codec bpe_codec(std::string name, std::shared_ptr<tok::Tokenizer> t) {
  Codec c{std::move(name),
          [t](std::string_view text, bool specials, size_t max_length) {
            tok::EncodeOptions o;
            o.add_special_tokens = specials;
            if (max_length) o.max_length = max_length;
            return t->encode(text, o);
          },
          [t](const std::vector<int32_t>& ids, bool skip, bool clean_up) {
            tok::DecodeOptions o;
            o.skip_special_tokens = skip;
            o.clean_up_tokenization_spaces = clean_up;
            return t->decode(ids, o);
          }};
  c.bpe = t.get();
  return c;
}

std::shared_ptr<tok::Tokenizer> trained_bpe() {
  tok::WordCounts words;
  words.add_texts(std::vector<std::string>{
      "Amanda: I baked cookies. Do you want some?\nJerry: Sure!",
      "The quick brown fox jumps over the lazy dog; the dog sleeps.",
      "caf\xc3\xa9 na\xc3\xafve \xe4\xbd\xa0\xe5\xa5\xbd \xf0\x9f\x98\x80 1234 5678 it's we'll"});
  tok::BpeTrainerOptions options;
  options.vocab_size = 400;
  options.min_frequency = 1;
  tok::TokenizerSettings settings;
  settings.clean_up_tokenization_spaces = false;
  return std::make_shared<tok::Tokenizer>(tok::train_tokenizer(words, options, settings));
}

std::vector<Codec> load_codecs() {
  std::vector<Codec> codecs = {bpe_codec("trained byte-level BPE", trained_bpe())};
  const char* dirs = std::getenv("PRECIS_FUZZ_TOKENIZERS");
  std::stringstream list(dirs ? dirs : "");
  for (std::string dir; std::getline(list, dir, ':');) {
    if (dir.empty()) continue;
    try {
      if (std::filesystem::exists(std::filesystem::path(dir) / "spiece.model")) {
        codecs.push_back(t5_codec(dir, std::make_shared<tok::SentencePieceTokenizer>(
                                           tok::SentencePieceTokenizer::from_directory(dir))));
      } else {
        try {
          codecs.push_back(bpe_codec(dir, std::make_shared<tok::Tokenizer>(tok::Tokenizer::from_directory(dir))));
        } catch (const precis::Error&) {
          codecs.push_back(t5_codec(dir, std::make_shared<tok::UnigramTokenizer>(
                                             tok::UnigramTokenizer::from_directory(dir))));
        }
      }
    } catch (const precis::Error& e) {
      std::fprintf(stderr, "precis fuzz: cannot load tokenizer %s: %s\n", dir.c_str(), e.what());
      std::abort();
    }
  }
  return codecs;
}

const std::vector<Codec>& codecs() {
  static const std::vector<Codec> all = load_codecs();
  return all;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  for (const Codec& c : codecs()) std::fprintf(stderr, "precis fuzz: tokenizer %s\n", c.name.c_str());
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace precis::fuzz;
  if (size < 2) return 0;
  const Codec& codec = codecs()[data[0] % codecs().size()];
  const bool specials = data[0] & 0x10, skip = data[0] & 0x20, truncate = data[0] & 0x40,
             clean_up = data[0] & 0x80;
  const size_t max_length = truncate ? data[1] : 0;
  const std::string_view text = as_text(data + 2, size - 2);

  expect_only_precis_errors([&] {
    std::vector<int32_t> ids = codec.encode(text, specials, max_length);
    if (max_length >= 2 && ids.size() > max_length) {
      std::fprintf(stderr, "precis fuzz: %zu ids exceed max_length %zu\n", ids.size(), max_length);
      std::abort();
    }
    std::string back = codec.decode(ids, skip, clean_up);
    if (codec.bpe && !specials && !max_length && !clean_up && text.find('<') == std::string_view::npos &&
        back != text) {
      std::fprintf(stderr, "precis fuzz: BPE round trip changed the text (%zu -> %zu bytes)\n",
                   text.size(), back.size());
      std::abort();
    }
  });

  std::vector<int32_t> ids(text.size() / 4);
  if (!ids.empty()) std::memcpy(ids.data(), text.data(), ids.size() * 4);
  expect_only_precis_errors([&] { codec.decode(ids, skip, clean_up); });
  return 0;
}
