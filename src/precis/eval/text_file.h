// Predictions and references on disk: one text per line, either as JSON lines (each line a
// JSON string, so a text may hold newlines, which ROUGE-Lsum reads as sentence breaks) or
// as plain text. The format is detected per file.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace precis::eval {

// JSON lines when the content has at least one non-blank line and every non-blank line
// parses as a JSON string; blank lines are then skipped. Otherwise plain text: every line
// is one text (an empty line is an empty text), without its "\n" or "\r\n"; a final
// newline does not start another text.
std::vector<std::string> parse_texts(std::string_view content);

// parse_texts on a file's bytes; throws precis::Error naming the file when it cannot be read.
std::vector<std::string> read_texts(const std::string& path);

}  // namespace precis::eval
