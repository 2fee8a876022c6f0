// Local dataset files in, (text, summary) records out: what run_summarization.py does with
// --train_file / --validation_file / --test_file, without the `datasets` library.
//
// Formats (chosen by the file extension, as run_summarization does):
//   .json   a top-level array of objects; or one object of equal-length column arrays; or,
//           as `datasets` accepts, JSON lines. With `field`, the records are the array (or
//           object of arrays) under that key of the top-level object.
//   .jsonl  JSON lines: one object per line; blank lines are skipped.
//   .csv    comma-separated with a header row, RFC 4180 quoting (see csv.h).
//   .tsv    the same with tabs.
// A UTF-8 byte order mark at the start is ignored. Arrays and JSON lines are streamed (a
// record at a time); an object of column arrays, and anything under `field`, is read whole.
//
// Which records survive mirrors run_summarization.py (commit 00e6a185ca97):
//   1. max_samples keeps the first N rows of the file: `dataset.select(range(N))`, which the
//      script applies *before* its preprocessing drops anything;
//   2. its preprocess_function then drops every row whose text or summary is falsy: a
//      missing key (`datasets` fills it with None), JSON null, or the empty string; in CSV,
//      an empty field or one of pandas' NA strings ("NA", "null", "NaN", ...), which the
//      `datasets` CSV loader reads as None. These rows are counted, not errors.
// Errors (precis::Error, "FILE:LINE: field 'NAME': expected ..., found ..."): malformed
// JSON or CSV, a record that is not an object, a text or summary value that is not a
// string, invalid UTF-8, a record over max_record_bytes, a column no record has. With
// skip_bad_records, a bad record is skipped and counted instead, where the reader can find
// where the next record starts (it cannot inside a quoted CSV field left open to the end).
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace precis::data {

enum class FileFormat { kJson, kJsonLines, kCsv, kTsv };

// From the extension (case-insensitive): .json, .jsonl, .csv, .tsv. Throws precis::Error
// naming the accepted extensions otherwise.
FileFormat file_format(const std::filesystem::path& path);

struct ReadOptions {
  std::string text_column = "dialogue";  // SAMSum's, the README's fine-tuning job
  std::string summary_column = "summary";
  std::string field;  // JSON: key of the top-level object that holds the records
  bool skip_bad_records = false;
  size_t max_record_bytes = size_t{16} << 20;  // longer records are refused unread
  std::optional<size_t> max_samples;  // run_summarization's max_{train,eval,predict}_samples
  bool csv_na_values = true;          // pandas' NA strings read as missing (see above)
};

struct Record {
  std::string text;     // value of text_column
  std::string summary;  // value of summary_column
  size_t line = 0;      // 1-based line where the record starts; 0 where lines mean nothing
                        // (an object of column arrays)
};

struct ReadStats {
  size_t rows = 0;           // rows read, within max_samples (bad ones not included)
  size_t kept = 0;           // records handed out
  size_t dropped_empty = 0;  // text or summary missing, null or empty (run_summarization)
  size_t skipped_bad = 0;    // malformed records skipped under skip_bad_records
};

// Streams the records of `path` to `sink`, in file order. Returns the counts.
ReadStats read_records(const std::filesystem::path& path, const ReadOptions& options,
                       const std::function<void(Record&&)>& sink);

struct Dataset {
  std::vector<Record> records;
  ReadStats stats;
};
Dataset read_dataset(const std::filesystem::path& path, const ReadOptions& options);

// run_summarization's `summarization_name_mapping`: the (text, summary) columns of the Hub
// datasets it knows by name, e.g. "samsum" -> ("dialogue", "summary"); nullopt otherwise.
struct DatasetColumns {
  std::string_view text;
  std::string_view summary;
};
std::optional<DatasetColumns> known_dataset_columns(std::string_view dataset_name);

// Columns as run_summarization chooses them: an explicit column wins, then the mapping for
// `dataset_name`, then SAMSum's defaults. Empty strings count as not given.
ReadOptions columns_for(std::string_view dataset_name, std::string_view text_column,
                        std::string_view summary_column, ReadOptions options = {});

// The error for --dataset_name: precis reads local files only (it never downloads), so the
// message shows the equivalent --train_file form, with the columns for a known dataset.
[[noreturn]] void throw_dataset_name_unsupported(std::string_view dataset_name);

}  // namespace precis::data
