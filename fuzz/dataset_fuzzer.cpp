// The dataset readers on arbitrary bytes: JSON (array, object of columns, JSON lines in a
// .json, records under `field`), JSON lines, CSV and TSV, plain or lz4-compressed (any file
// starting with the lz4 frame magic). Byte 0 picks the format and the options (skipping bad
// records, a small max_record_bytes, `field`, max_samples, NA strings); the rest is the file.
#include <array>

#include "fuzz_support.h"
#include "precis/data/dataset.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace precis::fuzz;
  if (size < 1) return 0;
  static constexpr std::array<const char*, 4> kNames = {"train.json", "train.jsonl", "train.csv",
                                                        "train.tsv"};
  const uint8_t mode = data[0];
  const std::filesystem::path path = scratch_dir() / kNames[mode & 3];
  write_file(path, as_text(data + 1, size - 1));

  precis::data::ReadOptions options;
  options.skip_bad_records = mode & 0x04;
  if (mode & 0x08) options.max_record_bytes = 64;
  if (mode & 0x10) options.field = "data";
  if (mode & 0x20) options.max_samples = 3;
  options.csv_na_values = !(mode & 0x40);
  if (mode & 0x80) {
    options.text_column = "text";
    options.summary_column = "text";  // the same column for both
  }
  expect_only_precis_errors([&] {
    size_t bytes = 0;
    precis::data::ReadStats stats = precis::data::read_records(
        path, options, [&](precis::data::Record&& r) { bytes += r.text.size() + r.summary.size(); });
    if (stats.kept > stats.rows || (options.max_samples && stats.rows > *options.max_samples)) {
      std::fprintf(stderr, "precis fuzz: inconsistent counts: rows %zu, kept %zu\n", stats.rows,
                   stats.kept);
      std::abort();
    }
  });
  std::filesystem::remove(path);
  return 0;
}
