// Splitting a text into lines, for the readers of line-based files (BPE training corpora,
// one-text-per-line inputs), so that every one of them agrees on where a line ends.
#pragma once

#include <string_view>
#include <vector>

namespace precis {

// Lines with their endings, as Rust's BufRead::read_line gives them: each ends in '\n' but
// the last, which may not. Views into `text`.
inline std::vector<std::string_view> lines_with_endings(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    end = end == std::string_view::npos ? text.size() : end + 1;
    lines.push_back(text.substr(start, end - start));
    start = end;
  }
  return lines;
}

}  // namespace precis
