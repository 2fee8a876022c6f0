// UTF-8 validation for text read from dataset files: a tokenizer fed invalid bytes would
// fail far from the cause, so the readers refuse them where they can name file and field.
#pragma once

#include <cstddef>
#include <string_view>

namespace precis::data {

// Offset of the first byte that does not start a well-formed UTF-8 sequence (overlong forms,
// surrogates and code points above U+10FFFF count as ill-formed), or npos if `text` is valid.
size_t find_invalid_utf8(std::string_view text);

}  // namespace precis::data
