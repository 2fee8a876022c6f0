#include "precis/data/csv.h"

#include "precis/core/error.h"

namespace precis::data {

CsvReader::CsvReader(TextReader& in, char delimiter, std::string name, size_t max_record_bytes)
    : in_(in), delimiter_(delimiter), name_(std::move(name)), max_record_bytes_(max_record_bytes) {}

bool CsvReader::next(CsvRecord& record) {
  enum class State { kFieldStart, kUnquoted, kQuoted, kQuoteInQuoted };

  record.fields.clear();
  record.too_long = false;
  // Blank lines between records are skipped (Python's DictReader and pandas both do).
  int c = in_.peek();
  while (c == '\n' || c == '\r') {
    in_.get();
    c = in_.peek();
  }
  if (c < 0) return false;
  record.line = in_.line();

  size_t bytes = 0;
  std::string field;
  State state = State::kFieldStart;
  auto append = [&](char ch) {
    if (record.too_long) return;
    if (++bytes > max_record_bytes_) {
      record.too_long = true;
      record.fields.clear();
      field.clear();
      field.shrink_to_fit();
      return;
    }
    field.push_back(ch);
  };
  auto end_field = [&] {
    if (!record.too_long) record.fields.push_back(std::move(field));
    field.clear();
  };

  while (true) {
    c = in_.get();
    if (c < 0) {
      if (state == State::kQuoted)
        throw Error(name_ + ":" + std::to_string(record.line) +
                    ": a quoted field opened in this record is never closed (end of file reached)");
      end_field();
      return true;
    }
    char ch = static_cast<char>(c);
    switch (state) {
      case State::kQuoted:
        if (ch == '"')
          state = State::kQuoteInQuoted;
        else
          append(ch);
        continue;
      case State::kQuoteInQuoted:
        if (ch == '"') {  // a doubled quote stands for one quote
          append('"');
          state = State::kQuoted;
          continue;
        }
        break;  // the quoted part is over: handle `ch` as in an unquoted field
      case State::kFieldStart:
        if (ch == '"') {
          state = State::kQuoted;
          continue;
        }
        break;
      case State::kUnquoted:
        break;
    }
    if (ch == delimiter_) {
      end_field();
      state = State::kFieldStart;
    } else if (ch == '\n' || ch == '\r') {
      if (ch == '\r' && in_.peek() == '\n') in_.get();
      end_field();
      return true;
    } else {
      append(ch);
      state = State::kUnquoted;
    }
  }
}

}  // namespace precis::data
