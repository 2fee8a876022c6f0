// The GPT-2 pre-split, written out by hand instead of run through a regex engine:
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// The alternatives are tried in order at each position (leftmost, first alternative that
// matches, each greedy), which is what Oniguruma does in HF `tokenizers`.
#pragma once

#include <string_view>
#include <vector>

namespace precis::tokenize {

// Appends the pieces of `text` (valid UTF-8) to `pieces`; they tile `text` exactly.
void split_gpt2(std::string_view text, std::vector<std::string_view>& pieces);

}  // namespace precis::tokenize
