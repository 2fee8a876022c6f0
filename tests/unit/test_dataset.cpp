// Dataset file readers: every format, every error with its message (file, line, field),
// CSV quoting, run_summarization's drop of empty pairs, skip-and-count, record size limit.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>
#include <utility>

#include "precis/core/error.h"
#include "precis/data/dataset.h"

#include "test_support.h"

using namespace precis;
using namespace precis::data;

namespace precis::data {

// A record compares whole: its text, summary and line (a failure prints all three).
bool operator==(const Record& a, const Record& b) {
  return a.text == b.text && a.summary == b.summary && a.line == b.line;
}
void PrintTo(const Record& r, std::ostream* os) {
  *os << "{text \"" << r.text << "\", summary \"" << r.summary << "\", line " << r.line << "}";
}

}  // namespace precis::data

namespace {

class DatasetFiles : public ::testing::Test {
 protected:

  std::filesystem::path write(const std::string& name, const std::string& bytes) {
    auto path = dir_ / name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  // `bytes` written to `name` and read as a dataset.
  Dataset read(const std::string& name, const std::string& bytes, const ReadOptions& options = {}) {
    return read_dataset(write(name, bytes), options);
  }

  // The message of the precis::Error that reading `path` throws ("" if none).
  std::string error_of(const std::filesystem::path& path, const ReadOptions& options = {}) {
    try {
      read_dataset(path, options);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }

  // The problem reading `bytes` written to `name` reports: its message after the file's path,
  // which must begin it (a failure where the message does not).
  std::string problem_in(const std::string& name, const std::string& bytes,
                         const ReadOptions& options = {}) {
    const std::string path = write(name, bytes).string(), message = error_of(path, options);
    if (message.compare(0, path.size(), path) != 0) {
      ADD_FAILURE() << "the message does not begin with the file's path " << path << ": "
                    << message;
      return message;
    }
    return message.substr(path.size());
  }

  precis::testing::TempDir temp_{"precis-dataset"};  // unique, removed with its files
  const std::filesystem::path& dir_ = temp_.path();
};

}  // namespace

TEST_F(DatasetFiles, FormatFromExtension) {
  EXPECT_EQ(file_format("a/b.json"), FileFormat::kJson);
  EXPECT_EQ(file_format("b.JSONL"), FileFormat::kJsonLines);
  EXPECT_EQ(file_format("b.csv"), FileFormat::kCsv);
  EXPECT_EQ(file_format("b.tsv"), FileFormat::kTsv);
  try {
    file_format("data.parquet");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "data.parquet: unknown dataset format '.parquet'; expected a file ending in "
                 ".json, .jsonl, .csv or .tsv");
  }
}

TEST_F(DatasetFiles, JsonLinesRecordsAndLines) {
  const Dataset d =
      read("d.jsonl",
           "\xEF\xBB\xBF{\"id\": 1, \"dialogue\": \"A: hi\\nB: hello\", \"summary\": \"greet\"}\n"
           "\n"
           "  \r\n"
           "{\"summary\": \"s2\", \"dialogue\": \"d2 \\u00e9\\ud83d\\ude00\"}\r\n"
           "{\"dialogue\": \"d3\", \"summary\": \"s3\", \"extra\": {\"nested\": [1, 2]}}");
  ASSERT_EQ(d.records.size(), 3u);
  EXPECT_EQ(d.records[0], (Record{"A: hi\nB: hello", "greet", 1}));
  EXPECT_EQ(d.records[1].text, "d2 \xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_EQ(d.records[1].line, 4u);
  EXPECT_EQ(d.records[2].line, 5u);
  EXPECT_EQ(d.stats.rows, 3u);
  EXPECT_EQ(d.stats.kept, 3u);
}

TEST_F(DatasetFiles, DropsPairsRunSummarizationDrops) {
  // Missing key (datasets fills None), null and "" are dropped and counted; " " is kept
  // (Python truthiness).
  const Dataset d = read("d.jsonl",
                         "{\"dialogue\": \"a\", \"summary\": \"b\"}\n"
                         "{\"dialogue\": \"a\"}\n"
                         "{\"dialogue\": null, \"summary\": \"b\"}\n"
                         "{\"dialogue\": \"a\", \"summary\": \"\"}\n"
                         "{\"dialogue\": \" \", \"summary\": \"b\"}\n");
  ASSERT_EQ(d.records.size(), 2u);
  EXPECT_EQ(d.records[1].text, " ");
  EXPECT_EQ(d.stats.rows, 5u);
  EXPECT_EQ(d.stats.dropped_empty, 3u);
}

TEST_F(DatasetFiles, MaxSamplesSelectsBeforeTheDrop) {
  // run_summarization: select(range(N)) first, then preprocess_function drops empty pairs.
  auto path = write("d.jsonl",
                    "{\"dialogue\": \"1\", \"summary\": \"a\"}\n"
                    "{\"dialogue\": \"\", \"summary\": \"b\"}\n"
                    "{\"dialogue\": \"3\", \"summary\": \"c\"}\n"
                    "{\"dialogue\": \"4\", \"summary\": \"d\"}\n");
  ReadOptions options;
  options.max_samples = 3;
  auto d = read_dataset(path, options);
  ASSERT_EQ(d.records.size(), 2u);
  EXPECT_EQ(d.records[1].text, "3");
  EXPECT_EQ(d.stats.rows, 3u);
  EXPECT_EQ(d.stats.dropped_empty, 1u);
  options.max_samples = 100;
  EXPECT_EQ(read_dataset(path, options).records.size(), 3u);
}

TEST_F(DatasetFiles, JsonLinesErrorsNameFileLineAndField) {
  std::string good = "{\"dialogue\": \"a\", \"summary\": \"b\"}\n";
  EXPECT_EQ(problem_in("num.jsonl", good + "{\"dialogue\": \"a\", \"summary\": 42}\n"),
            ":2: field 'summary' (summary_column): expected a string, found number 42");
  EXPECT_EQ(problem_in("arr.jsonl", good + good + "{\"dialogue\": [\"a\"], \"summary\": \"b\"}\n"),
            ":3: field 'dialogue' (text_column): expected a string, found array [\"a\"]");
  EXPECT_STARTS_WITH(problem_in("bool.jsonl", "{\"dialogue\": true, \"summary\": \"b\"}\n"),
                     ":1: field 'dialogue' (text_column): expected a string, found boolean");
  EXPECT_EQ(problem_in("notobj.jsonl", good + "[1, 2]\n"),
            ":2: expected a JSON object (one record), found array");
  EXPECT_STARTS_WITH(problem_in("syntax.jsonl", good + "\n{\"dialogue\": \"a\", \"summary\": }\n"),
                     ":3: expected one JSON object per line: parse error");
  EXPECT_EQ(
      problem_in("utf8.jsonl", good + "{\"dialogue\": \"ok\", \"summary\": \"bad \xFF byte\"}\n"),
      ":2: field 'summary': expected UTF-8 text, found the byte 0xFF at column 36");
  EXPECT_STARTS_WITH(
      problem_in("overlong.jsonl", "{\"dialogue\": \"\xC0\xAF\", \"summary\": \"b\"}\n"),
      ":1: field 'dialogue': expected UTF-8 text, found the byte 0xC0");
  EXPECT_STARTS_WITH(
      problem_in("surrogate.jsonl", "{\"dialogue\": \"\xED\xA0\x80\", \"summary\": \"b\"}\n"),
      ":1: field 'dialogue': expected UTF-8 text, found the byte 0xED");
  auto f = write("nocol.jsonl", "{\"text\": \"a\", \"title\": \"b\"}\n{\"text\": \"c\"}\n");
  EXPECT_EQ(error_of(f), f.string() +
                             ":1: field 'dialogue' (text_column) is in no record; the first record "
                             "has: text, title. Pass --text_column and --summary_column with the "
                             "right names.");
  ReadOptions options;
  options.text_column = "text";
  EXPECT_CONTAINS(error_of(f, options), ":1: field 'summary' (summary_column) is in no record");
  options.summary_column = "title";
  EXPECT_EQ(error_of(f, options), "");
}

TEST_F(DatasetFiles, SkipBadRecordsCountsThem) {
  ReadOptions options;
  options.skip_bad_records = true;
  const Dataset d = read("d.jsonl",
                         "{\"dialogue\": \"a\", \"summary\": \"b\"}\n"
                         "{\"dialogue\": 1, \"summary\": \"b\"}\n"
                         "not json\n"
                         "\"a string\"\n"
                         "{\"dialogue\": \"\xFE\", \"summary\": \"b\"}\n"
                         "{\"dialogue\": \"c\", \"summary\": \"d\"}\n",
                         options);
  ASSERT_EQ(d.records.size(), 2u);
  EXPECT_EQ(d.records[1].text, "c");
  EXPECT_EQ(d.records[1].line, 6u);
  EXPECT_EQ(d.stats.skipped_bad, 4u);
  EXPECT_EQ(d.stats.rows, 2u);
}

TEST_F(DatasetFiles, MaxRecordBytesRefusesLongRecords) {
  std::string huge(1000, 'x');
  ReadOptions refuse;
  refuse.max_record_bytes = 100;
  ReadOptions skip = refuse;
  skip.skip_bad_records = true;

  std::string body =
      "{\"dialogue\": \"a\", \"summary\": \"b\"}\n"
      "{\"dialogue\": \"" +
      huge +
      "\", \"summary\": \"b\"}\n"
      "{\"dialogue\": \"c\", \"summary\": \"d\"}\n";
  EXPECT_EQ(problem_in("long.jsonl", body, refuse),
            ":2: record longer than max_record_bytes (100 bytes); raise the limit if such records "
            "are intended");
  const Dataset d = read("long.jsonl", body, skip);
  ASSERT_EQ(d.records.size(), 2u);
  EXPECT_EQ(d.records[1].line, 3u);
  EXPECT_EQ(d.stats.skipped_bad, 1u);

  // In a JSON array and in CSV the long record starts on line 3, the next one on line 4.
  const std::pair<std::string, std::string> files[] = {
      {"long.json", "[\n{\"dialogue\": \"a\", \"summary\": \"b\"},\n{\"dialogue\": \"" + huge +
                        "\", \"summary\": \"b\"},\n{\"dialogue\": \"c\", \"summary\": \"d\"}\n]\n"},
      {"long.csv", "dialogue,summary\na,b\n\"" + huge + "\",b\nc,d\n"}};
  for (const auto& [name, bytes] : files) {
    SCOPED_TRACE(name);
    EXPECT_STARTS_WITH(problem_in(name, bytes, refuse), ":3: record longer than max_record_bytes");
    const Dataset skipped = read(name, bytes, skip);
    ASSERT_EQ(skipped.records.size(), 2u);
    EXPECT_EQ(skipped.records[1].line, 4u);
  }
}

TEST_F(DatasetFiles, JsonArrayStreamsRecordsWithTheirLines) {
  const Dataset d = read("d.json",
                         "\xEF\xBB\xBF  [\n"
                         "  {\n"
                         "    \"dialogue\": \"has ] and } and \\\" inside\",\n"
                         "    \"summary\": \"s1\",\n"
                         "    \"meta\": {\"a\": [1, {\"b\": \"[{\"}]}\n"
                         "  },\n"
                         "  {\"dialogue\": \"d2\", \"summary\": \"s2\"}, {\"dialogue\": \"d3\",\n"
                         "   \"summary\": null}\n"
                         "]\n");
  ASSERT_EQ(d.records.size(), 2u);
  EXPECT_EQ(d.records[0].text, "has ] and } and \" inside");
  EXPECT_EQ(d.records[0].line, 2u);
  EXPECT_EQ(d.records[1].line, 7u);
  EXPECT_EQ(d.stats.dropped_empty, 1u);
  EXPECT_EQ(read("e.json", "[]").records.size(), 0u);
}

TEST_F(DatasetFiles, JsonArrayErrors) {
  EXPECT_EQ(problem_in("num.json",
                       "[\n{\"dialogue\": \"a\", \"summary\": \"b\"},\n{\"dialogue\": \"a\",\n "
                       "\"summary\": 1.5}]"),
            ":3: field 'summary' (summary_column): expected a string, found number 1.5");
  EXPECT_EQ(problem_in("str.json", "[\"just text\"]"),
            ":1: expected a JSON object (one record), found string");
  EXPECT_EQ(problem_in("open.json",
                       "[\n{\"dialogue\": \"a\", \"summary\": \"b\"},\n{\"dialogue\": \"a\""),
            ":3: the file ends inside this record (is the array closed with ']'?)");
  EXPECT_EQ(problem_in("unclosed.json", "[{\"dialogue\": \"a\", \"summary\": \"b\"}\n"),
            ":2: expected ',' or ']' after an array element, found the end of the file");
  EXPECT_EQ(problem_in("comma.json", "[{\"dialogue\": \"a\", \"summary\": \"b\"},\n]"),
            ":2: expected a record after ',', found ']'");
  EXPECT_EQ(problem_in("after.json", "[{\"dialogue\": \"a\", \"summary\": \"b\"}]\n\n[]"),
            ":3: unexpected content after the top-level array");
  EXPECT_EQ(problem_in("utf8.json", "[{\"dialogue\": \"a\", \"summary\": \"b\"},\n {\"dialogue\": "
                                    "\"\x80\", \"summary\": \"b\"}]"),
            ":2: field 'dialogue': expected UTF-8 text, found the byte 0x80");
  EXPECT_STARTS_WITH(problem_in("syntax.json", "[{\"dialogue\": \"a\", \"summary\": \"b\"},\n "
                                               "{\"dialogue\": \"a\" \"summary\": \"b\"}]"),
                     ":2: invalid JSON in this array element: parse error");
}

// Found by dataset_fuzzer: a number past double's range is valid JSON syntax that nlohmann
// refuses with out_of_range, not parse_error; each reader turns it into a precis::Error.
TEST_F(DatasetFiles, NumbersOutOfRangeAreInvalidJson) {
  EXPECT_EQ(problem_in("doc.json", "12222222e22222222222222222222222222222222222:2\n"),
            ": invalid JSON: number overflow parsing "
            "'12222222e22222222222222222222222222222222222'");
  EXPECT_STARTS_WITH(problem_in("cols.json", "{\"dialogue\": [\"a\"], \"summary\": [1e999]}\n"),
                     ": invalid JSON: number overflow");
  EXPECT_STARTS_WITH(problem_in("multi.json", "{\"dialogue\": [\"a\"],\n \"summary\": [1e999]}\n"),
                     ": invalid JSON: number overflow");
  EXPECT_STARTS_WITH(
      problem_in("lines.jsonl",
                 "{\"dialogue\": \"a\", \"summary\": \"b\"}\n{\"dialogue\": 1e999}\n"),
      ":2: expected one JSON object per line: number overflow");
  EXPECT_STARTS_WITH(
      problem_in("array.json", "[{\"dialogue\": \"a\", \"summary\": \"b\"},\n {\"n\": -1e400}]"),
      ":2: invalid JSON in this array element: number overflow");
}

// nlohmann ends its input at a NUL byte: what follows one would be dropped without a word.
TEST_F(DatasetFiles, NulBytesAreInvalidJsonNotTheEndOfTheRecord) {
  using namespace std::string_literals;
  EXPECT_EQ(problem_in("lines.jsonl", "{\"dialogue\": \"a\", \"summary\": \"b\"}\n"
                                      "{\"dialogue\": \"c\"}\0, \"summary\": \"d\"}\n"s),
            ":2: expected one JSON object per line: a NUL byte at column 18");
  EXPECT_STARTS_WITH(
      problem_in("one.jsonl", "{\"dialogue\": [\"c\"], \"summary\": [\"d\"]}\0 junk\n"s),
      ":1: expected one JSON object per line: a NUL byte");
  EXPECT_EQ(problem_in("doc.json", "{\"dialogue\": [\"a\"],\n \"summary\": [\"b\"]}\n\0{}"s),
            ":3: invalid JSON: a NUL byte");
  EXPECT_STARTS_WITH(problem_in("array.json", "[{\"dialogue\": \"a\", \"summary\": \"b\"},\n "
                                              "{\"dialogue\": \"c\"\0}]"s),
                     ":2: invalid JSON in this array element: a NUL byte");
}

TEST_F(DatasetFiles, JsonObjectOfColumns) {
  const Dataset d =
      read("cols.json",
           "{\n  \"dialogue\": [\"d1\", \"d2\", null],\n  \"summary\": [\"s1\", \"s2\", \"s3\"],\n"
           "  \"id\": [1, 2, 3]\n}\n");
  ASSERT_EQ(d.records.size(), 2u);
  EXPECT_EQ(d.records[1], (Record{"d2", "s2", 0}));
  EXPECT_EQ(d.stats.dropped_empty, 1u);
  // The same on one line.
  EXPECT_EQ(read("cols1.json", "{\"dialogue\": [\"d1\", \"d2\"], \"summary\": [\"s1\", \"s2\"]}")
                .records.size(),
            2u);

  EXPECT_EQ(
      problem_in("uneven.json", "{\n\"dialogue\": [\"d1\", \"d2\"],\n\"summary\": [\"s1\"]\n}"),
            ": column 'summary' has 1 values, column 'dialogue' has 2; the column arrays must have "
            "equal lengths");
  EXPECT_EQ(
      problem_in("badcell.json", "{\n\"dialogue\": [\"d1\", 7],\n\"summary\": [\"s1\", \"s2\"]\n}"),
      ": record 2: field 'dialogue' (text_column): expected a string, found number 7");
  EXPECT_EQ(problem_in("scalars.json", "{\n\"dialogue\": \"d\",\n\"summary\": \"s\"\n}"),
            ": expected JSON lines, an array of objects, or an object of equal-length column "
            "arrays; found an object whose values are not all arrays");
  EXPECT_STARTS_WITH(problem_in("broken.json", "{\n\"dialogue\": [\"d\"],\n\"summary\": [\"s\"\n}"),
                     ":4: invalid JSON: parse error");
}

TEST_F(DatasetFiles, JsonFieldAndJsonLinesInJson) {
  const std::string nested =
      "{\"version\": \"1.0\",\n \"data\": [\n  {\"dialogue\": \"d1\", \"summary\": \"s1\"},\n"
      "  {\"dialogue\": \"d2\", \"summary\": \"s2\"}]}\n";
  ReadOptions options;
  options.field = "data";
  const Dataset d = read("nested.json", nested, options);
  ASSERT_EQ(d.records.size(), 2u);
  EXPECT_EQ(d.records[1].summary, "s2");
  options.field = "rows";
  EXPECT_EQ(problem_in("nested.json", nested, options),
            ": expected a top-level object with the key 'rows' (field), found an object without "
            "it");
  options.field = "data";
  EXPECT_EQ(
      problem_in("cols.json", "{\"data\": {\"dialogue\": [\"d\"], \"summary\": [1]}}", options),
            " (field 'data'): record 1: field 'summary' (summary_column): expected a string, found "
            "number 1");
  EXPECT_EQ(problem_in("d.csv", "dialogue,summary\na,b\n", options),
            ": field ('data') applies to JSON files only");

  // datasets reads JSON lines from a .json file.
  const Dataset lines = read(
      "lines.json",
      "{\"dialogue\": \"d1\", \"summary\": \"s1\"}\n{\"dialogue\": \"d2\", \"summary\": \"s2\"}\n");
  ASSERT_EQ(lines.records.size(), 2u);
  EXPECT_EQ(lines.records[1].line, 2u);
  EXPECT_EQ(problem_in("mixed.json",
                       "\n{\"dialogue\": [\"d\"], \"summary\": [\"s\"]}\n{\"dialogue\": \"d\"}\n"),
            ":2: the first line holds an object of column arrays, but more lines follow; expected "
            "JSON lines (one record per line) or one object of column arrays");
  // A single record on one line is one record.
  EXPECT_EQ(read("one.json", "{\"dialogue\": \"d1\", \"summary\": \"s1\"}").records.size(), 1u);
}

TEST_F(DatasetFiles, CsvQuoting) {
  auto f = write("d.csv",
                 "\xEF\xBB\xBFid,dialogue,summary\r\n"
                 "1,\"A: hi, you\r\nB: \"\"hello\"\"\",plain\r\n"
                 "2,un\"quoted,\"\"\r\n"
                 "\r\n"
                 "3,\"x\"tail,\"multi\n\nline\"\n"
                 "4,cr only\r5,last,\"no newline at end\"");
  auto d = read_dataset(f, {});
  ASSERT_EQ(d.records.size(), 3u);
  EXPECT_EQ(d.records[0], (Record{"A: hi, you\r\nB: \"hello\"", "plain", 2}));
  EXPECT_EQ(d.records[1], (Record{"xtail", "multi\n\nline", 6}));
  EXPECT_EQ(d.records[2].text, "last");
  // Row 2 has an empty summary; row 4 ("4,cr only") has no summary field at all.
  EXPECT_EQ(d.stats.rows, 5u);
  EXPECT_EQ(d.stats.dropped_empty, 2u);
  ReadOptions options;
  options.text_column = "id";
  d = read_dataset(f, options);
  ASSERT_EQ(d.records.size(), 3u);
  EXPECT_EQ(d.records[2], (Record{"5", "no newline at end", 10}));
}

TEST_F(DatasetFiles, CsvNaValuesAsPandasReadsThem) {
  auto f = write("na.csv", "dialogue,summary\na,NA\nb,null\nc,\"\"\nd,None\ne,n/a\nf,ok\n");
  auto d = read_dataset(f, {});
  ASSERT_EQ(d.records.size(), 1u);
  EXPECT_EQ(d.stats.dropped_empty, 5u);
  ReadOptions options;
  options.csv_na_values = false;
  d = read_dataset(f, options);
  EXPECT_EQ(d.records.size(), 5u);  // only the empty one goes
}

TEST_F(DatasetFiles, TsvWithTabsAndQuotes) {
  const Dataset d = read(
      "d.tsv", "summary\tdialogue\nshort\t\"with\ttab and \"\"quote\"\"\"\nx,y\tcomma, kept\n");
  ASSERT_EQ(d.records.size(), 2u);
  EXPECT_EQ(d.records[0].text, "with\ttab and \"quote\"");
  EXPECT_EQ(d.records[0].summary, "short");
  EXPECT_EQ(d.records[1].text, "comma, kept");
  EXPECT_EQ(d.records[1].summary, "x,y");
}

TEST_F(DatasetFiles, CsvErrors) {
  EXPECT_EQ(problem_in("nocol.csv", "text,title\na,b\n"),
            ":1: field 'dialogue' (text_column) is not a column of the header; the columns are: "
            "text, title. Pass --text_column and --summary_column with the right names.");
  EXPECT_EQ(problem_in("wide.csv", "dialogue,summary\na,b\nc,d,e\n"),
            ":3: expected at most 2 fields (the header's), found 3");
  EXPECT_EQ(problem_in("open.csv", "dialogue,summary\na,b\n\"c,d\nmore\n"),
            ":3: a quoted field opened in this record is never closed (end of file reached)");
  EXPECT_EQ(problem_in("utf8.csv", "dialogue,summary\na,b\n\n\"c\n\",\"\xC3\x28\"\n"),
            ":4: field 'summary': expected UTF-8 text, found the byte 0xC3");
  ReadOptions options;
  options.skip_bad_records = true;
  const Dataset d = read("skip.csv", "dialogue,summary\na,b,c\n\xFF,x\nd,e\n", options);
  ASSERT_EQ(d.records.size(), 1u);
  EXPECT_EQ(d.records[0].text, "d");
  EXPECT_EQ(d.stats.skipped_bad, 2u);
  EXPECT_EQ(read("empty.csv", "").stats.rows, 0u);
}

TEST_F(DatasetFiles, StreamsLargeJsonLines) {
  auto path = dir_ / "big.jsonl";
  {
    std::ofstream out(path, std::ios::binary);
    for (int i = 0; i < 50000; ++i)
      out << "{\"dialogue\": \"dialogue number " << i << "\", \"summary\": \"s" << i << "\"}\n";
  }
  size_t n = 0;
  std::string last;
  auto stats = read_records(path, {}, [&](Record&& r) {
    ++n;
    last = std::move(r.summary);
  });
  EXPECT_EQ(n, 50000u);
  EXPECT_EQ(stats.kept, 50000u);
  EXPECT_EQ(last, "s49999");
}

TEST_F(DatasetFiles, DatasetNamesMapToColumnsButDoNotDownload) {
  auto samsum = known_dataset_columns("samsum");
  ASSERT_TRUE(samsum);
  EXPECT_EQ(samsum->text, "dialogue");
  EXPECT_EQ(samsum->summary, "summary");
  EXPECT_EQ(known_dataset_columns("cnn_dailymail")->text, "article");
  EXPECT_EQ(known_dataset_columns("xsum")->summary, "summary");
  EXPECT_FALSE(known_dataset_columns("my_data"));

  auto options = columns_for("cnn_dailymail", "", "");
  EXPECT_EQ(options.text_column, "article");
  EXPECT_EQ(options.summary_column, "highlights");
  options = columns_for("cnn_dailymail", "body", "");
  EXPECT_EQ(options.text_column, "body");
  EXPECT_EQ(options.summary_column, "highlights");
  options = columns_for("", "", "");
  EXPECT_EQ(options.text_column, "dialogue");

  try {
    throw_dataset_name_unsupported("cnn_dailymail");
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_CONTAINS(m, "--dataset_name cnn_dailymail: precis works offline");
    EXPECT_CONTAINS(m, "--train_file train.jsonl --validation_file validation.jsonl");
    EXPECT_CONTAINS(m, "--text_column article --summary_column highlights");
  }
}
