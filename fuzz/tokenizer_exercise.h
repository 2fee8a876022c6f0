// After a tokenizer loads from fuzzed files, use it: encode texts that touch its special
// tokens and odd bytes, decode ids in and out of its vocabulary. Loading may refuse files
// with precis::Error; a tokenizer that loads must then encode and decode without crashing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_support.h"

namespace precis::fuzz {

inline const std::vector<std::string>& probe_texts() {
  static const std::vector<std::string> texts = {
      "",
      "Hello world, it's a test.  Two  spaces\tand\ttabs\n",
      "<s> <mask> </s> <pad> <unk> <extra_id_0> </s>",
      "caf\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x98\x80 \xe4\xbd\xa0\xe5\xa5\xbd \xef\xbc\xa1",
      "   leading and trailing spaces   ",
  };
  return texts;
}

inline std::vector<int32_t> probe_ids(size_t size) {
  std::vector<int32_t> ids = {-1, 0, 1, 2, 3, 4, 5, 100, 255, 256, 1000, int32_t(size),
                              int32_t(size) - 1, int32_t(size) + 1, 2147483647};
  for (int32_t i = 0; i < 300 && i < int32_t(size); i += 7) ids.push_back(i);
  return ids;
}

// `Tok` has encode(text, bool) and decode(ids, bool) (the T5 tokenizers).
template <class Tok>
void exercise_t5(const Tok& t) {
  for (const std::string& text : probe_texts()) {
    expect_only_precis_errors([&] {
      std::vector<int32_t> ids = t.encode(text, true);
      t.decode(ids, true);
      t.decode(ids, false);
      t.encode_truncated(text, 3);
      t.encode(text, false);
    });
  }
  const std::vector<int32_t> ids = probe_ids(t.size());
  expect_only_precis_errors([&] { t.decode(ids, true); });
  expect_only_precis_errors([&] { t.decode(ids, false); });
}

}  // namespace precis::fuzz
