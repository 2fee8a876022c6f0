#include "precis/data/dataset.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <nlohmann/json.hpp>

#include "precis/core/error.h"
#include "precis/data/byte_stream.h"
#include "precis/data/csv.h"
#include "precis/data/text_reader.h"
#include "precis/tokenize/utf8.h"

namespace precis::data {
namespace {

using nlohmann::json;

// A record that is wrong in itself; the reader can go on with the next one.
struct BadRecord {
  std::string message;
};

std::string hex_byte(unsigned char c) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  return std::string("0x") + kDigits[c >> 4] + kDigits[c & 15];
}

// "parse error at line 1, column 7: ..." without nlohmann's "[json.exception...] " tag.
std::string json_error_text(const std::exception& e) {
  std::string what = e.what();
  size_t tag_end = what.find("] ");
  return what.rfind("[json.exception", 0) == 0 && tag_end != std::string::npos
             ? what.substr(tag_end + 2)
             : what;
}

// The key of the top-level member of a JSON object text that contains byte `offset` (to
// name the field that holds invalid UTF-8); empty if none.
std::string json_member_at(std::string_view text, size_t offset) {
  std::string key;
  int depth = 0;
  bool expect_key = false;
  for (size_t i = 0; i < text.size() && i < offset; ++i) {
    char c = text[i];
    if (c == '"') {
      size_t start = i + 1;
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
      if (depth == 1 && expect_key) {
        key.assign(text.substr(start, i - start));
        expect_key = false;
      }
    } else if (c == '{' || c == '[') {
      ++depth;
      if (depth == 1) expect_key = c == '{';
    } else if (c == '}' || c == ']') {
      --depth;
    } else if (c == ',' && depth == 1) {
      expect_key = true;
    }
  }
  return key;
}

bool is_json_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

bool is_blank(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return is_json_space(c); });
}

// The strings pandas reads as NaN by default (pandas._libs.parsers.STR_NA_VALUES, pandas 2),
// which the `datasets` CSV loader turns into None.
bool is_pandas_na(std::string_view s) {
  static constexpr std::array<std::string_view, 19> kNa = {
      "",     "#N/A",   "#N/A N/A", "#NA",  "-1.#IND", "-1.#QNAN", "-NaN",
      "-nan", "1.#IND", "1.#QNAN",  "<NA>", "N/A",     "NA",       "NULL",
      "NaN",  "None",   "n/a",      "nan",  "null"};
  return std::find(kNa.begin(), kNa.end(), s) != kNa.end();
}

// Collects rows: applies max_samples and run_summarization's drop of empty pairs, counts,
// and remembers whether the text and summary columns were ever present.
class Rows {
 public:
  Rows(const ReadOptions& options, std::string file, const std::function<void(Record&&)>& sink)
      : options_(options), file_(std::move(file)), sink_(sink) {}

  bool full() const { return options_.max_samples && stats_.rows >= *options_.max_samples; }

  // One parsed row; nullopt = missing or null.
  void add(std::optional<std::string> text, std::optional<std::string> summary, size_t line) {
    ++stats_.rows;
    if (!text || text->empty() || !summary || summary->empty()) {
      ++stats_.dropped_empty;
      return;
    }
    sink_(Record{std::move(*text), std::move(*summary), line});
    ++stats_.kept;
  }

  void bad(const BadRecord& bad) {
    if (!options_.skip_bad_records) throw Error(bad.message);
    ++stats_.skipped_bad;
  }

  // For a JSON object row: the two values, noting which columns exist.
  void add_object(const json& object, size_t line, const std::string& where) {
    if (!object.is_object())
      throw BadRecord{where + ": expected a JSON object (one record), found " +
                      std::string(object.type_name())};
    if (first_columns_.empty() && !object.empty())
      for (auto& [key, value] : object.items()) first_columns_.push_back(key);
    auto text = string_member(object, options_.text_column, "text_column", where);
    auto summary = string_member(object, options_.summary_column, "summary_column", where);
    text_seen_ |= object.contains(options_.text_column);
    summary_seen_ |= object.contains(options_.summary_column);
    add(std::move(text), std::move(summary), line);
  }

  // A column no JSON record has is a mistake in text_column/summary_column (run_summarization
  // refuses a column that is not among the dataset's columns).
  ReadStats finish(size_t first_line) const {
    if (stats_.rows > 0 && (!text_seen_ || !summary_seen_)) {
      bool text = !text_seen_;
      std::string columns;
      for (auto& c : first_columns_) columns += (columns.empty() ? "" : ", ") + c;
      throw Error(file_ + ":" + std::to_string(first_line) + ": field '" +
                  (text ? options_.text_column : options_.summary_column) + "' (" +
                  (text ? "text_column" : "summary_column") + ") is in no record; the first " +
                  "record has: " + (columns.empty() ? "no fields" : columns) +
                  ". Pass --text_column and --summary_column with the right names.");
    }
    return stats_;
  }

  ReadStats& stats() { return stats_; }

 private:
  static std::optional<std::string> string_member(const json& object, const std::string& column,
                                                  const char* option, const std::string& where) {
    auto it = object.find(column);
    if (it == object.end() || it->is_null()) return std::nullopt;
    if (!it->is_string())
      throw BadRecord{where + ": field '" + column + "' (" + option +
                      "): expected a string, found " + std::string(it->type_name()) + " " +
                      it->dump().substr(0, 40)};
    return it->get<std::string>();
  }

  const ReadOptions& options_;
  std::string file_;
  const std::function<void(Record&&)>& sink_;
  ReadStats stats_;
  bool text_seen_ = false;
  bool summary_seen_ = false;
  std::vector<std::string> first_columns_;
};

std::string at_line(const std::string& file, size_t line) {
  return file + ":" + std::to_string(line);
}

// One record's text parsed, with the checks nlohmann does not make: UTF-8 (naming the field)
// and no NUL byte (nlohmann would stop there). `one_line`: the text is a line of JSON lines, so
// a position is a column (an array's element may span lines: there it names none). `expected`
// opens the message of a syntax error.
json parse_record(std::string_view text, const std::string& where, bool one_line,
                  const std::string& expected) {
  auto column = [&](size_t at) { return one_line ? " at column " + std::to_string(at + 1) : ""; };
  size_t invalid = tokenize::find_invalid_utf8(text);
  if (invalid != std::string_view::npos) {
    std::string key = json_member_at(text, invalid);
    throw BadRecord{where + ": " + (key.empty() ? "" : "field '" + key + "': ") +
                    "expected UTF-8 text, found the byte " +
                    hex_byte(static_cast<unsigned char>(text[invalid])) + column(invalid)};
  }
  if (size_t nul = text.find('\0'); nul != std::string_view::npos)
    throw BadRecord{where + ": " + expected + ": a NUL byte" + column(nul)};
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    throw BadRecord{where + ": " + expected + ": " + json_error_text(e)};
  }
}

// One line of JSON lines (not blank).
void read_json_line(Rows& rows, std::string_view text, size_t line, const std::string& file) {
  std::string where = at_line(file, line);
  rows.add_object(parse_record(text, where, true, "expected one JSON object per line"), line,
                  where);
}

std::string too_long_message(const std::string& where, size_t max) {
  return where + ": record longer than max_record_bytes (" + std::to_string(max) +
         " bytes); raise the limit if such records are intended";
}

// The whole file as one JSON document: an object of equal-length column arrays, or (with
// `field`) the array of objects or object of arrays under that key.
ReadStats read_json_document(const std::filesystem::path& path, const ReadOptions& options,
                             Rows& rows) {
  const std::string file = path.string();
  std::string text;
  {
    auto stream = open_byte_stream(path);
    std::vector<char> chunk(1 << 20);
    while (size_t n = stream->read(chunk.data(), chunk.size())) text.append(chunk.data(), n);
  }
  size_t start = text.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;
  auto line_of = [&](size_t offset) {
    return 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + offset, '\n'));
  };
  size_t invalid = tokenize::find_invalid_utf8(std::string_view(text).substr(start));
  if (invalid != std::string_view::npos)
    throw Error(at_line(file, line_of(start + invalid)) + ": expected UTF-8 text, found the byte " +
                hex_byte(static_cast<unsigned char>(text[start + invalid])));
  if (size_t nul = text.find('\0', start); nul != std::string::npos)  // nlohmann would stop there
    throw Error(at_line(file, line_of(nul)) + ": invalid JSON: a NUL byte");
  json document;
  try {
    document = json::parse(text.begin() + start, text.end());
  } catch (const json::parse_error& e) {
    throw Error(
        at_line(file, line_of(std::min(e.byte > 0 ? e.byte - 1 + start : start, text.size()))) +
        ": invalid JSON: " + json_error_text(e));
  } catch (const json::exception& e) {  // a number past double's range: no position given
    throw Error(file + ": invalid JSON: " + json_error_text(e));
  }
  text.clear();
  text.shrink_to_fit();

  std::string holder = file;
  const json* records = &document;
  if (!options.field.empty()) {
    if (!document.is_object() || !document.contains(options.field))
      throw Error(file + ": expected a top-level object with the key '" + options.field +
                  "' (field), found " +
                  (document.is_object() ? "an object without it" : document.type_name()));
    records = &document[options.field];
    holder = file + " (field '" + options.field + "')";
  }
  auto where = [&](size_t index) { return holder + ": record " + std::to_string(index + 1); };

  if (records->is_array()) {
    for (size_t i = 0; i < records->size() && !rows.full(); ++i) {
      try {
        rows.add_object((*records)[i], 0, where(i));
      } catch (const BadRecord& bad) {
        rows.bad(bad);
      }
    }
    return rows.finish(0);
  }
  if (!records->is_object() || records->empty() ||
      !std::all_of(records->begin(), records->end(), [](const json& v) { return v.is_array(); }))
    throw Error(holder + ": expected JSON lines, an array of objects, or an object of " +
                "equal-length column arrays; found " +
                (records->is_object() ? "an object whose values are not all arrays"
                                      : std::string(records->type_name())));
  // Columns: every array must have as many rows as the first.
  auto first = records->begin();
  for (auto it = records->begin(); it != records->end(); ++it)
    if (it->size() != first->size())
      throw Error(holder + ": column '" + it.key() + "' has " + std::to_string(it->size()) +
                  " values, column '" + first.key() + "' has " + std::to_string(first->size()) +
                  "; the column arrays must have equal lengths");
  for (size_t i = 0; i < first->size() && !rows.full(); ++i) {
    json row = json::object();
    for (auto it = records->begin(); it != records->end(); ++it) row[it.key()] = (*it)[i];
    try {
      rows.add_object(row, 0, where(i));
    } catch (const BadRecord& bad) {
      rows.bad(bad);
    }
  }
  return rows.finish(0);
}

void skip_json_space(TextReader& in) {
  while (is_json_space(in.peek())) in.get();
}

// Copies the bytes of one JSON value (the reader is on its first byte) into `out`, by
// structure alone (the parser checks the rest). Returns false, with the value skipped and
// `out` empty, if it is longer than `max`. Throws at the end of the file inside the value.
bool capture_json_value(TextReader& in, std::string& out, size_t max, const std::string& where) {
  out.clear();
  bool stored = true;
  auto put = [&](int c) {
    if (!stored) return;
    if (out.size() >= max) {
      stored = false;
      out.clear();
      out.shrink_to_fit();
      return;
    }
    out.push_back(static_cast<char>(c));
  };
  auto eof = [&] {
    throw Error(where + ": the file ends inside this record (is the array closed with ']'?)");
  };
  int depth = 0;
  int c = in.peek();
  if (c != '{' && c != '[' && c != '"') {  // a bare number or literal
    while ((c = in.peek()) >= 0 && c != ',' && c != ']' && !is_json_space(c)) put(in.get());
    return stored;
  }
  do {
    c = in.get();
    if (c < 0) eof();
    put(c);
    if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      --depth;
    } else if (c == '"') {
      while ((c = in.get()) != '"') {
        if (c < 0) eof();
        put(c);
        if (c == '\\') {
          if ((c = in.get()) < 0) eof();
          put(c);
        }
      }
      put(c);
    }
  } while (depth > 0);
  return stored;
}

// A top-level array of objects, one record at a time.
ReadStats read_json_array(TextReader& in, const ReadOptions& options, Rows& rows,
                          const std::string& file) {
  in.get();  // '['
  std::string value;
  size_t first_line = 0;
  bool first = true;
  while (!rows.full()) {
    skip_json_space(in);
    if (first && in.peek() == ']') {
      in.get();
      break;
    }
    size_t line = in.line();
    std::string where = at_line(file, line);
    if (first_line == 0) first_line = line;
    if (in.peek() < 0) throw Error(where + ": the file ends inside the array (expected a record)");
    if (in.peek() == ']') throw Error(where + ": expected a record after ',', found ']'");
    try {
      if (!capture_json_value(in, value, options.max_record_bytes, where))
        throw BadRecord{too_long_message(where, options.max_record_bytes)};
      rows.add_object(parse_record(value, where, false, "invalid JSON in this array element"),
                      line, where);
    } catch (const BadRecord& bad) {
      rows.bad(bad);
    }
    first = false;
    skip_json_space(in);
    int c = in.get();
    if (c == ']') break;
    if (c != ',')
      throw Error(
          at_line(file, in.line()) + ": expected ',' or ']' after an array element, found " +
          (c < 0 ? std::string("the end of the file") : "'" + std::string(1, char(c)) + "'"));
  }
  if (!rows.full()) {
    skip_json_space(in);
    if (in.peek() >= 0)
      throw Error(at_line(file, in.line()) + ": unexpected content after the top-level array");
  }
  return rows.finish(first_line);
}

// JSON lines; for a .json file whose first line is not a whole object, the file is one
// multi-line document instead (returns nullopt so the caller reads it whole).
std::optional<ReadStats> read_json_lines(TextReader& in, const ReadOptions& options, Rows& rows,
                                         const std::string& file, bool may_be_document) {
  std::string text;
  bool too_long = false;
  size_t first_line = 0;
  while (!rows.full()) {
    size_t line = in.line();
    if (!in.read_line(text, options.max_record_bytes, too_long)) break;
    if (!too_long && is_blank(text)) continue;
    if (first_line == 0) {
      first_line = line;
      if (may_be_document) {
        // One line holding an object whose values are all arrays is a one-line object of
        // columns; a first line that is not a complete value starts a multi-line document.
        bool complete = !too_long && text.find('\0') == std::string_view::npos && json::accept(text);
        if (!complete) return std::nullopt;
        json object = json::parse(text);
        bool columns =
            object.is_object() && !object.empty() &&
            std::all_of(object.begin(), object.end(), [](const json& v) { return v.is_array(); });
        if (columns) {
          std::string rest;
          bool rest_too_long = false;
          bool more = false;
          while (in.read_line(rest, options.max_record_bytes, rest_too_long))
            if (rest_too_long || !is_blank(rest)) {
              more = true;
              break;
            }
          if (!more) return std::nullopt;
          throw Error(at_line(file, line) +
                      ": the first line holds an object of column arrays, but "
                      "more lines follow; expected JSON lines (one record per line) or one "
                      "object of column arrays");
        }
      }
    }
    try {
      if (too_long)
        throw BadRecord{too_long_message(at_line(file, line), options.max_record_bytes)};
      read_json_line(rows, text, line, file);
    } catch (const BadRecord& bad) {
      rows.bad(bad);
    }
  }
  return rows.finish(first_line);
}

ReadStats read_json_file(const std::filesystem::path& path, FileFormat format,
                         const ReadOptions& options, Rows& rows) {
  const std::string file = path.string();
  if (!options.field.empty()) return read_json_document(path, options, rows);
  TextReader in(open_byte_stream(path));
  in.skip_bom();
  skip_json_space(in);
  if (format == FileFormat::kJson && in.peek() == '[')
    return read_json_array(in, options, rows, file);
  // Start again from the top so that line numbers count the skipped blank lines.
  TextReader lines(open_byte_stream(path));
  lines.skip_bom();
  auto stats = read_json_lines(lines, options, rows, file, format == FileFormat::kJson);
  if (stats) return *stats;
  return read_json_document(path, options, rows);
}

ReadStats read_delimited(const std::filesystem::path& path, char delimiter,
                         const ReadOptions& options, Rows& rows) {
  const std::string file = path.string();
  if (!options.field.empty())
    throw Error(file + ": field ('" + options.field + "') applies to JSON files only");
  TextReader in(open_byte_stream(path));
  in.skip_bom();
  CsvReader reader(in, delimiter, file, options.max_record_bytes);
  CsvRecord record;
  if (!reader.next(record)) return rows.finish(0);
  if (record.too_long)
    throw Error(too_long_message(at_line(file, record.line), options.max_record_bytes) +
                " (the header)");
  const std::vector<std::string> header = record.fields;
  const size_t header_line = record.line;
  for (auto& name : header)
    if (tokenize::find_invalid_utf8(name) != std::string_view::npos)
      throw Error(at_line(file, header_line) + ": expected UTF-8 text in the header");
  auto column_index = [&](const std::string& column, const char* option) {
    auto it = std::find(header.begin(), header.end(), column);  // the first, as pandas keeps
    if (it == header.end()) {
      std::string names;
      for (auto& h : header) names += (names.empty() ? "" : ", ") + h;
      throw Error(at_line(file, header_line) + ": field '" + column + "' (" + option +
                  ") is not a column of the header; the columns are: " + names +
                  ". Pass --text_column and --summary_column with the right names.");
    }
    return static_cast<size_t>(it - header.begin());
  };
  const size_t text_index = column_index(options.text_column, "text_column");
  const size_t summary_index = column_index(options.summary_column, "summary_column");

  while (!rows.full() && reader.next(record)) {
    std::string where = at_line(file, record.line);
    try {
      if (record.too_long) throw BadRecord{too_long_message(where, options.max_record_bytes)};
      if (record.fields.size() > header.size())
        throw BadRecord{where + ": expected at most " + std::to_string(header.size()) +
                        " fields (the header's), found " + std::to_string(record.fields.size())};
      for (size_t i = 0; i < record.fields.size(); ++i) {
        size_t invalid = tokenize::find_invalid_utf8(record.fields[i]);
        if (invalid != std::string_view::npos)
          throw BadRecord{where + ": field '" + header[i] +
                          "': expected UTF-8 text, found the byte " +
                          hex_byte(static_cast<unsigned char>(record.fields[i][invalid]))};
      }
      // pandas' C parser, which the `datasets` CSV loader uses, ends a field at a NUL byte and
      // silently drops the rest: refused here, as in JSON, rather than read either way.
      for (size_t index : {text_index, summary_index}) {
        if (index >= record.fields.size()) continue;
        size_t nul = record.fields[index].find('\0');
        if (nul != std::string::npos)
          throw BadRecord{where + ": field '" + header[index] + "': a NUL byte at offset " +
                          std::to_string(nul) +
                          " (the `datasets` CSV loader would cut the field there)"};
      }
      // A short record leaves its last fields missing, which pandas reads as NaN.
      auto value = [&](size_t index) -> std::optional<std::string> {
        if (index >= record.fields.size()) return std::nullopt;
        if (options.csv_na_values && is_pandas_na(record.fields[index])) return std::nullopt;
        return std::move(record.fields[index]);
      };
      auto text = value(text_index);
      auto summary = value(summary_index);
      rows.add(std::move(text), std::move(summary), record.line);
    } catch (const BadRecord& bad) {
      rows.bad(bad);
    }
  }
  return rows.stats();
}

std::string lowercase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

FileFormat file_format(const std::filesystem::path& path) {
  std::string ext = lowercase(path.extension().string());
  if (ext == ".json") return FileFormat::kJson;
  if (ext == ".jsonl") return FileFormat::kJsonLines;
  if (ext == ".csv") return FileFormat::kCsv;
  if (ext == ".tsv") return FileFormat::kTsv;
  throw Error(path.string() + ": unknown dataset format '" + ext +
              "'; expected a file ending in .json, .jsonl, .csv or .tsv");
}

ReadStats read_records(const std::filesystem::path& path, const ReadOptions& options,
                       const std::function<void(Record&&)>& sink) {
  FileFormat format = file_format(path);
  check(options.max_record_bytes > 0, "max_record_bytes must be positive");
  Rows rows(options, path.string(), sink);
  switch (format) {
    case FileFormat::kCsv:
      return read_delimited(path, ',', options, rows);
    case FileFormat::kTsv:
      return read_delimited(path, '\t', options, rows);
    case FileFormat::kJson:
    case FileFormat::kJsonLines:
      return read_json_file(path, format, options, rows);
  }
  throw Error("unreachable");
}

Dataset read_dataset(const std::filesystem::path& path, const ReadOptions& options) {
  Dataset dataset;
  dataset.stats =
      read_records(path, options, [&](Record&& r) { dataset.records.push_back(std::move(r)); });
  return dataset;
}

std::optional<DatasetColumns> known_dataset_columns(std::string_view dataset_name) {
  // run_summarization.py's summarization_name_mapping, in its order.
  static constexpr std::array<std::pair<std::string_view, DatasetColumns>, 12> kKnown = {{
      {"amazon_reviews_multi", {"review_body", "review_title"}},
      {"big_patent", {"description", "abstract"}},
      {"cnn_dailymail", {"article", "highlights"}},
      {"orange_sum", {"text", "summary"}},
      {"pn_summary", {"article", "summary"}},
      {"psc", {"extract_text", "summary_text"}},
      {"samsum", {"dialogue", "summary"}},
      {"thaisum", {"body", "summary"}},
      {"xglue", {"news_body", "news_title"}},
      {"xsum", {"document", "summary"}},
      {"wiki_summary", {"article", "highlights"}},
      {"multi_news", {"document", "summary"}},
  }};
  for (auto& [name, columns] : kKnown)
    if (name == dataset_name) return columns;
  return std::nullopt;
}

ReadOptions columns_for(std::string_view dataset_name, std::string_view text_column,
                        std::string_view summary_column, ReadOptions options) {
  auto known = known_dataset_columns(dataset_name);
  if (!text_column.empty())
    options.text_column = text_column;
  else if (known)
    options.text_column = known->text;
  if (!summary_column.empty())
    options.summary_column = summary_column;
  else if (known)
    options.summary_column = known->summary;
  return options;
}

void throw_dataset_name_unsupported(std::string_view dataset_name) {
  std::string name(dataset_name);
  auto known = known_dataset_columns(dataset_name);
  std::string columns = known ? " --text_column " + std::string(known->text) +
                                    " --summary_column " + std::string(known->summary)
                              : " --text_column TEXT --summary_column SUMMARY";
  throw Error("--dataset_name " + name +
              ": precis works offline and cannot download datasets from the Hugging Face Hub. "
              "Save the splits as local files once (e.g. with Python: load_dataset(\"" +
              name +
              "\")[split].to_json(split + \".jsonl\")) and pass them instead: --train_file "
              "train.jsonl --validation_file validation.jsonl --test_file test.jsonl" +
              columns + " (.json, .jsonl, .csv and .tsv files are read).");
}

}  // namespace precis::data
