// RFC 4180 records (CSV, or TSV with a tab delimiter), read the way Python's csv module
// with its default dialect reads them: quoted fields may hold delimiters, doubled quotes
// and line breaks; a quote inside an unquoted field is literal; text after a closing quote
// is appended to the field; records end at "\n", "\r\n" or "\r". Unlike Python (but like
// pandas, which `datasets` uses), a file that ends inside a quoted field is an error.
#pragma once

#include <string>
#include <vector>

#include "precis/data/text_reader.h"

namespace precis::data {

struct CsvRecord {
  std::vector<std::string> fields;
  size_t line = 0;        // 1-based line on which the record starts
  bool too_long = false;  // the record exceeded max_record_bytes: `fields` is empty
};

class CsvReader {
 public:
  // `name` (the file) is used in error messages.
  CsvReader(TextReader& in, char delimiter, std::string name, size_t max_record_bytes);

  // Reads the next record, skipping blank lines. Returns false at the end of the input.
  // Throws precis::Error on a quoted field left open at the end of the file.
  bool next(CsvRecord& record);

 private:
  TextReader& in_;
  char delimiter_;
  std::string name_;
  size_t max_record_bytes_;
};

}  // namespace precis::data
