// Dataset file readers: every format, every error with its message (file, line, field),
// CSV quoting, run_summarization's drop of empty pairs, skip-and-count, record size limit.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "precis/core/error.h"
#include "precis/data/dataset.h"

#include "test_support.h"

using namespace precis;
using namespace precis::data;

namespace {

class DatasetFiles : public ::testing::Test {
 protected:

  std::filesystem::path write(const std::string& name, const std::string& bytes) {
    auto path = dir_ / name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
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
  auto path =
      write("d.jsonl",
            "\xEF\xBB\xBF{\"id\": 1, \"dialogue\": \"A: hi\\nB: hello\", \"summary\": \"greet\"}\n"
            "\n"
            "  \r\n"
            "{\"summary\": \"s2\", \"dialogue\": \"d2 \\u00e9\\ud83d\\ude00\"}\r\n"
            "{\"dialogue\": \"d3\", \"summary\": \"s3\", \"extra\": {\"nested\": [1, 2]}}");
  auto d = read_dataset(path, {});
  ASSERT_EQ(d.records.size(), 3u);
  EXPECT_EQ(d.records[0].text, "A: hi\nB: hello");
  EXPECT_EQ(d.records[0].summary, "greet");
  EXPECT_EQ(d.records[0].line, 1u);
  EXPECT_EQ(d.records[1].text, "d2 \xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_EQ(d.records[1].line, 4u);
  EXPECT_EQ(d.records[2].line, 5u);
  EXPECT_EQ(d.stats.rows, 3u);
  EXPECT_EQ(d.stats.kept, 3u);
}

TEST_F(DatasetFiles, DropsPairsRunSummarizationDrops) {
  // Missing key (datasets fills None), null and "" are dropped and counted; " " is kept
  // (Python truthiness).
  auto path = write("d.jsonl",
                    "{\"dialogue\": \"a\", \"summary\": \"b\"}\n"
                    "{\"dialogue\": \"a\"}\n"
                    "{\"dialogue\": null, \"summary\": \"b\"}\n"
                    "{\"dialogue\": \"a\", \"summary\": \"\"}\n"
                    "{\"dialogue\": \" \", \"summary\": \"b\"}\n");
  auto d = read_dataset(path, {});
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
  auto f = write("num.jsonl", good + "{\"dialogue\": \"a\", \"summary\": 42}\n");
  EXPECT_EQ(
      error_of(f),
      f.string() + ":2: field 'summary' (summary_column): expected a string, found number 42");
  f = write("arr.jsonl", good + good + "{\"dialogue\": [\"a\"], \"summary\": \"b\"}\n");
  EXPECT_EQ(
      error_of(f),
      f.string() + ":3: field 'dialogue' (text_column): expected a string, found array [\"a\"]");
  f = write("bool.jsonl", "{\"dialogue\": true, \"summary\": \"b\"}\n");
  EXPECT_CONTAINS(error_of(f),
                  ":1: field 'dialogue' (text_column): expected a string, found boolean");
  f = write("notobj.jsonl", good + "[1, 2]\n");
  EXPECT_EQ(error_of(f), f.string() + ":2: expected a JSON object (one record), found array");
  f = write("syntax.jsonl", good + "\n{\"dialogue\": \"a\", \"summary\": }\n");
  EXPECT_CONTAINS(error_of(f), f.string() + ":3: expected one JSON object per line: parse error");
  f = write("utf8.jsonl", good + "{\"dialogue\": \"ok\", \"summary\": \"bad \xFF byte\"}\n");
  EXPECT_EQ(
      error_of(f),
      f.string() + ":2: field 'summary': expected UTF-8 text, found the byte 0xFF at column 36");
  f = write("overlong.jsonl", "{\"dialogue\": \"\xC0\xAF\", \"summary\": \"b\"}\n");
  EXPECT_CONTAINS(error_of(f), ":1: field 'dialogue': expected UTF-8 text, found the byte 0xC0");
  f = write("surrogate.jsonl", "{\"dialogue\": \"\xED\xA0\x80\", \"summary\": \"b\"}\n");
  EXPECT_CONTAINS(error_of(f), ":1: field 'dialogue': expected UTF-8 text, found the byte 0xED");
  f = write("nocol.jsonl", "{\"text\": \"a\", \"title\": \"b\"}\n{\"text\": \"c\"}\n");
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
  auto f = write("d.jsonl",
                 "{\"dialogue\": \"a\", \"summary\": \"b\"}\n"
                 "{\"dialogue\": 1, \"summary\": \"b\"}\n"
                 "not json\n"
                 "\"a string\"\n"
                 "{\"dialogue\": \"\xFE\", \"summary\": \"b\"}\n"
                 "{\"dialogue\": \"c\", \"summary\": \"d\"}\n");
  ReadOptions options;
  options.skip_bad_records = true;
  auto d = read_dataset(f, options);
  ASSERT_EQ(d.records.size(), 2u);
  EXPECT_EQ(d.records[1].text, "c");
  EXPECT_EQ(d.records[1].line, 6u);
  EXPECT_EQ(d.stats.skipped_bad, 4u);
  EXPECT_EQ(d.stats.rows, 2u);
}

TEST_F(DatasetFiles, MaxRecordBytesRefusesLongRecords) {
  std::string huge(1000, 'x');
  std::string body =
      "{\"dialogue\": \"a\", \"summary\": \"b\"}\n"
      "{\"dialogue\": \"" +
      huge +
      "\", \"summary\": \"b\"}\n"
      "{\"dialogue\": \"c\", \"summary\": \"d\"}\n";
  ReadOptions options;
  options.max_record_bytes = 100;
  auto f = write("long.jsonl", body);
  EXPECT_EQ(error_of(f, options), f.string() +
                                      ":2: record longer than max_record_bytes (100 bytes); raise "
                                      "the limit if such records are intended");
  options.skip_bad_records = true;
  auto d = read_dataset(f, options);
  ASSERT_EQ(d.records.size(), 2u);
  EXPECT_EQ(d.records[1].line, 3u);
  EXPECT_EQ(d.stats.skipped_bad, 1u);

  options.skip_bad_records = false;
  f = write("long.json",
            "[\n{\"dialogue\": \"a\", \"summary\": \"b\"},\n{\"dialogue\": \"" + huge +
                "\", \"summary\": \"b\"},\n{\"dialogue\": \"c\", \"summary\": \"d\"}\n]\n");
  EXPECT_CONTAINS(error_of(f, options), f.string() + ":3: record longer than max_record_bytes");
  options.skip_bad_records = true;
  d = read_dataset(f, options);
  ASSERT_EQ(d.records.size(), 2u);
  EXPECT_EQ(d.records[1].line, 4u);

  options.skip_bad_records = false;
  f = write("long.csv", "dialogue,summary\na,b\n\"" + huge + "\",b\nc,d\n");
  EXPECT_CONTAINS(error_of(f, options), f.string() + ":3: record longer than max_record_bytes");
  options.skip_bad_records = true;
  d = read_dataset(f, options);
  ASSERT_EQ(d.records.size(), 2u);
  EXPECT_EQ(d.records[1].line, 4u);
}

TEST_F(DatasetFiles, JsonArrayStreamsRecordsWithTheirLines) {
  auto f = write("d.json",
                 "\xEF\xBB\xBF  [\n"
                 "  {\n"
                 "    \"dialogue\": \"has ] and } and \\\" inside\",\n"
                 "    \"summary\": \"s1\",\n"
                 "    \"meta\": {\"a\": [1, {\"b\": \"[{\"}]}\n"
                 "  },\n"
                 "  {\"dialogue\": \"d2\", \"summary\": \"s2\"}, {\"dialogue\": \"d3\",\n"
                 "   \"summary\": null}\n"
                 "]\n");
  auto d = read_dataset(f, {});
  ASSERT_EQ(d.records.size(), 2u);
  EXPECT_EQ(d.records[0].text, "has ] and } and \" inside");
  EXPECT_EQ(d.records[0].line, 2u);
  EXPECT_EQ(d.records[1].line, 7u);
  EXPECT_EQ(d.stats.dropped_empty, 1u);
  EXPECT_EQ(read_dataset(write("e.json", "[]"), {}).records.size(), 0u);
}

TEST_F(DatasetFiles, JsonArrayErrors) {
  auto f = write(
      "num.json",
      "[\n{\"dialogue\": \"a\", \"summary\": \"b\"},\n{\"dialogue\": \"a\",\n \"summary\": 1.5}]");
  EXPECT_EQ(
      error_of(f),
      f.string() + ":3: field 'summary' (summary_column): expected a string, found number 1.5");
  f = write("str.json", "[\"just text\"]");
  EXPECT_EQ(error_of(f), f.string() + ":1: expected a JSON object (one record), found string");
  f = write("open.json", "[\n{\"dialogue\": \"a\", \"summary\": \"b\"},\n{\"dialogue\": \"a\"");
  EXPECT_EQ(error_of(f),
            f.string() + ":3: the file ends inside this record (is the array closed with ']'?)");
  f = write("unclosed.json", "[{\"dialogue\": \"a\", \"summary\": \"b\"}\n");
  EXPECT_EQ(
      error_of(f),
      f.string() + ":2: expected ',' or ']' after an array element, found the end of the file");
  f = write("comma.json", "[{\"dialogue\": \"a\", \"summary\": \"b\"},\n]");
  EXPECT_EQ(error_of(f), f.string() + ":2: expected a record after ',', found ']'");
  f = write("after.json", "[{\"dialogue\": \"a\", \"summary\": \"b\"}]\n\n[]");
  EXPECT_EQ(error_of(f), f.string() + ":3: unexpected content after the top-level array");
  f = write("utf8.json",
            "[{\"dialogue\": \"a\", \"summary\": \"b\"},\n {\"dialogue\": \"\x80\", \"summary\": "
            "\"b\"}]");
  EXPECT_EQ(error_of(f),
            f.string() + ":2: field 'dialogue': expected UTF-8 text, found the byte 0x80");
  f = write(
      "syntax.json",
      "[{\"dialogue\": \"a\", \"summary\": \"b\"},\n {\"dialogue\": \"a\" \"summary\": \"b\"}]");
  EXPECT_CONTAINS(error_of(f), f.string() + ":2: invalid JSON in this array element: parse error");
}

// Found by dataset_fuzzer: a number past double's range is valid JSON syntax that nlohmann
// refuses with out_of_range, not parse_error; each reader turns it into a precis::Error.
TEST_F(DatasetFiles, NumbersOutOfRangeAreInvalidJson) {
  auto f = write("doc.json", "12222222e22222222222222222222222222222222222:2\n");
  EXPECT_EQ(error_of(f), f.string() +
                             ": invalid JSON: number overflow parsing "
                             "'12222222e22222222222222222222222222222222222'");
  f = write("cols.json", "{\"dialogue\": [\"a\"], \"summary\": [1e999]}\n");
  EXPECT_CONTAINS(error_of(f), f.string() + ": invalid JSON: number overflow");
  f = write("multi.json", "{\"dialogue\": [\"a\"],\n \"summary\": [1e999]}\n");
  EXPECT_CONTAINS(error_of(f), f.string() + ": invalid JSON: number overflow");
  f = write("lines.jsonl",
            "{\"dialogue\": \"a\", \"summary\": \"b\"}\n{\"dialogue\": 1e999}\n");
  EXPECT_CONTAINS(error_of(f),
                  f.string() + ":2: expected one JSON object per line: number overflow");
  f = write("array.json",
            "[{\"dialogue\": \"a\", \"summary\": \"b\"},\n {\"n\": -1e400}]");
  EXPECT_CONTAINS(error_of(f),
                  f.string() + ":2: invalid JSON in this array element: number overflow");
}

// nlohmann ends its input at a NUL byte: what follows one would be dropped without a word.
TEST_F(DatasetFiles, NulBytesAreInvalidJsonNotTheEndOfTheRecord) {
  using namespace std::string_literals;
  auto f = write("lines.jsonl", "{\"dialogue\": \"a\", \"summary\": \"b\"}\n{\"dialogue\": \"c\"}\0, \"summary\": \"d\"}\n"s);
  EXPECT_EQ(error_of(f), f.string() + ":2: expected one JSON object per line: a NUL byte at column 18");
  f = write("one.jsonl", "{\"dialogue\": [\"c\"], \"summary\": [\"d\"]}\0 junk\n"s);
  EXPECT_CONTAINS(error_of(f), f.string() + ":1: expected one JSON object per line: a NUL byte");
  f = write("doc.json", "{\"dialogue\": [\"a\"],\n \"summary\": [\"b\"]}\n\0{}"s);
  EXPECT_EQ(error_of(f), f.string() + ":3: invalid JSON: a NUL byte");
  f = write("array.json", "[{\"dialogue\": \"a\", \"summary\": \"b\"},\n {\"dialogue\": \"c\"\0}]"s);
  EXPECT_CONTAINS(error_of(f), f.string() + ":2: invalid JSON in this array element: a NUL byte");
}

TEST_F(DatasetFiles, JsonObjectOfColumns) {
  auto f =
      write("cols.json",
            "{\n  \"dialogue\": [\"d1\", \"d2\", null],\n  \"summary\": [\"s1\", \"s2\", \"s3\"],\n"
            "  \"id\": [1, 2, 3]\n}\n");
  auto d = read_dataset(f, {});
  ASSERT_EQ(d.records.size(), 2u);
  EXPECT_EQ(d.records[1].text, "d2");
  EXPECT_EQ(d.records[1].summary, "s2");
  EXPECT_EQ(d.records[1].line, 0u);
  EXPECT_EQ(d.stats.dropped_empty, 1u);
  // The same on one line.
  f = write("cols1.json", "{\"dialogue\": [\"d1\", \"d2\"], \"summary\": [\"s1\", \"s2\"]}");
  EXPECT_EQ(read_dataset(f, {}).records.size(), 2u);

  f = write("uneven.json", "{\n\"dialogue\": [\"d1\", \"d2\"],\n\"summary\": [\"s1\"]\n}");
  EXPECT_EQ(error_of(f), f.string() +
                             ": column 'summary' has 1 values, column 'dialogue' has 2; the column "
                             "arrays must have equal lengths");
  f = write("badcell.json", "{\n\"dialogue\": [\"d1\", 7],\n\"summary\": [\"s1\", \"s2\"]\n}");
  EXPECT_EQ(
      error_of(f),
      f.string() + ": record 2: field 'dialogue' (text_column): expected a string, found number 7");
  f = write("scalars.json", "{\n\"dialogue\": \"d\",\n\"summary\": \"s\"\n}");
  EXPECT_EQ(error_of(f),
            f.string() +
                ": expected JSON lines, an array of objects, or an object of "
                "equal-length column arrays; found an object whose values are not all arrays");
  f = write("broken.json", "{\n\"dialogue\": [\"d\"],\n\"summary\": [\"s\"\n}");
  EXPECT_CONTAINS(error_of(f), f.string() + ":4: invalid JSON: parse error");
}

TEST_F(DatasetFiles, JsonFieldAndJsonLinesInJson) {
  auto f =
      write("nested.json",
            "{\"version\": \"1.0\",\n \"data\": [\n  {\"dialogue\": \"d1\", \"summary\": \"s1\"},\n"
            "  {\"dialogue\": \"d2\", \"summary\": \"s2\"}]}\n");
  ReadOptions options;
  options.field = "data";
  auto d = read_dataset(f, options);
  ASSERT_EQ(d.records.size(), 2u);
  EXPECT_EQ(d.records[1].summary, "s2");
  options.field = "rows";
  EXPECT_EQ(error_of(f, options), f.string() +
                                      ": expected a top-level object with the key 'rows' (field), "
                                      "found an object without it");
  f = write("cols.json", "{\"data\": {\"dialogue\": [\"d\"], \"summary\": [1]}}");
  options.field = "data";
  EXPECT_EQ(error_of(f, options),
            f.string() +
                " (field 'data'): record 1: field 'summary' (summary_column): expected a "
                "string, found number 1");
  f = write("d.csv", "dialogue,summary\na,b\n");
  EXPECT_EQ(error_of(f, options), f.string() + ": field ('data') applies to JSON files only");

  // datasets reads JSON lines from a .json file.
  f = write(
      "lines.json",
      "{\"dialogue\": \"d1\", \"summary\": \"s1\"}\n{\"dialogue\": \"d2\", \"summary\": \"s2\"}\n");
  d = read_dataset(f, {});
  ASSERT_EQ(d.records.size(), 2u);
  EXPECT_EQ(d.records[1].line, 2u);
  f = write("mixed.json",
            "\n{\"dialogue\": [\"d\"], \"summary\": [\"s\"]}\n{\"dialogue\": \"d\"}\n");
  EXPECT_EQ(error_of(f), f.string() +
                             ":2: the first line holds an object of column arrays, but more lines "
                             "follow; expected JSON lines (one record per line) or one object of "
                             "column arrays");
  // A single record on one line is one record.
  f = write("one.json", "{\"dialogue\": \"d1\", \"summary\": \"s1\"}");
  EXPECT_EQ(read_dataset(f, {}).records.size(), 1u);
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
  EXPECT_EQ(d.records[0].text, "A: hi, you\r\nB: \"hello\"");
  EXPECT_EQ(d.records[0].summary, "plain");
  EXPECT_EQ(d.records[0].line, 2u);
  EXPECT_EQ(d.records[1].text, "xtail");
  EXPECT_EQ(d.records[1].summary, "multi\n\nline");
  EXPECT_EQ(d.records[1].line, 6u);
  EXPECT_EQ(d.records[2].text, "last");
  // Row 2 has an empty summary; row 4 ("4,cr only") has no summary field at all.
  EXPECT_EQ(d.stats.rows, 5u);
  EXPECT_EQ(d.stats.dropped_empty, 2u);
  ReadOptions options;
  options.text_column = "id";
  d = read_dataset(f, options);
  ASSERT_EQ(d.records.size(), 3u);
  EXPECT_EQ(d.records[2].text, "5");
  EXPECT_EQ(d.records[2].summary, "no newline at end");
  EXPECT_EQ(d.records[2].line, 10u);
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
  auto f = write("d.tsv",
                 "summary\tdialogue\nshort\t\"with\ttab and \"\"quote\"\"\"\nx,y\tcomma, kept\n");
  auto d = read_dataset(f, {});
  ASSERT_EQ(d.records.size(), 2u);
  EXPECT_EQ(d.records[0].text, "with\ttab and \"quote\"");
  EXPECT_EQ(d.records[0].summary, "short");
  EXPECT_EQ(d.records[1].text, "comma, kept");
  EXPECT_EQ(d.records[1].summary, "x,y");
}

TEST_F(DatasetFiles, CsvErrors) {
  auto f = write("nocol.csv", "text,title\na,b\n");
  EXPECT_EQ(error_of(f),
            f.string() +
                ":1: field 'dialogue' (text_column) is not a column of the header; the "
                "columns are: text, title. Pass --text_column and --summary_column "
                "with the right names.");
  f = write("wide.csv", "dialogue,summary\na,b\nc,d,e\n");
  EXPECT_EQ(error_of(f), f.string() + ":3: expected at most 2 fields (the header's), found 3");
  f = write("open.csv", "dialogue,summary\na,b\n\"c,d\nmore\n");
  EXPECT_EQ(error_of(f),
            f.string() +
                ":3: a quoted field opened in this record is never closed (end of file reached)");
  f = write("utf8.csv", "dialogue,summary\na,b\n\n\"c\n\",\"\xC3\x28\"\n");
  EXPECT_EQ(error_of(f),
            f.string() + ":4: field 'summary': expected UTF-8 text, found the byte 0xC3");
  ReadOptions options;
  options.skip_bad_records = true;
  auto d = read_dataset(write("skip.csv", "dialogue,summary\na,b,c\n\xFF,x\nd,e\n"), options);
  ASSERT_EQ(d.records.size(), 1u);
  EXPECT_EQ(d.records[0].text, "d");
  EXPECT_EQ(d.stats.skipped_bad, 2u);
  EXPECT_EQ(read_dataset(write("empty.csv", ""), {}).stats.rows, 0u);
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
