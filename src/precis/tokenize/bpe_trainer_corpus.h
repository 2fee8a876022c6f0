// The texts a BPE is trained on, read from files as `precis tokenizer train` takes them.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "precis/tokenize/bpe_trainer.h"

namespace precis::tokenize {

struct TrainingFileOptions {
  // JSON lines: the string fields that are texts; empty = every top-level string value.
  std::vector<std::string> text_fields;
};

// True for the files read as JSON lines (.jsonl, .json); the others are plain text.
bool is_json_lines_file(const std::filesystem::path& file);

// Counts the words of one file into `counts`.
//   plain text: every line, with its "\n" (and "\r"), is one text, exactly as HF's
//     Tokenizer.train(files) reads files, so both count the same words;
//   JSON lines: every line holds an object whose text fields (or a bare JSON string) are texts;
//     blank lines are skipped.
// Throws precis::Error naming the file and line of invalid UTF-8, invalid JSON or a missing
// text field.
void count_file_words(const std::filesystem::path& file, const TrainingFileOptions& options,
                      WordCounts& counts);

}  // namespace precis::tokenize
