// The built-in Debian descriptions dataset, from small synthetic apt lists (plain and lz4).
#include <gtest/gtest.h>
#include <lz4frame.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "precis/core/error.h"
#include "precis/data/dataset.h"
#include "precis/data/debian_descriptions.h"

#include "test_support.h"

using namespace precis;
using namespace precis::data;

namespace {

// apt's lists carry no checksum (frame flags 0x40); `checksum` adds the content checksum.
std::string lz4_frame(const std::string& plain, bool checksum = false) {
  LZ4F_preferences_t preferences{};
  if (checksum) preferences.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
  std::string out(LZ4F_compressFrameBound(plain.size(), &preferences), '\0');
  size_t n = LZ4F_compressFrame(out.data(), out.size(), plain.data(), plain.size(), &preferences);
  EXPECT_FALSE(LZ4F_isError(n));
  out.resize(n);
  return out;
}

using precis::testing::read_all;

// A lists directory like /var/lib/apt/lists with two archives.
class DebianLists : public ::testing::Test {
 protected:
  void SetUp() override {
    lists_ = root_ / "lists";
    std::filesystem::create_directories(lists_);
  }

  void write(const std::string& name, const std::string& bytes) {
    std::ofstream(lists_ / name, std::ios::binary) << bytes;
  }

  void write_standard_lists() {
    // Main archive, lz4 as apt stores it.
    write("deb.example.org_debian_dists_stable_main_i18n_Translation-en.lz4",
          lz4_frame("Package: zlib1g\n"
                    "Description-md5: 00000000000000000000000000000001\n"
                    "Description-en: compression library - runtime\n"
                    " zlib is a library implementing the deflate compression method found\n"
                    " in gzip and PKZIP.  This package includes the shared library.\n"
                    "\n"
                    "Package: libfoo1\n"
                    "Description-md5: 00000000000000000000000000000002\n"
                    "Description-en: foo library\n"
                    " Foo does things.\n"
                    " .\n"
                    " Features:\n"
                    "  * fast\n"
                    "  * small and\n"
                    "    portable\n"
                    " .\n"
                    " Example:\n"
                    "   $ foo --bar\n"
                    "\n"
                    "Package: libfoo-dev\n"
                    "Description-md5: 00000000000000000000000000000003\n"
                    "Description-en: foo library - development files\n"
                    " Foo does things.\n"
                    " .\n"
                    " This package has the headers.\n"
                    "\n"
                    "Package: empty-desc\n"
                    "Description-md5: 00000000000000000000000000000004\n"
                    "Description-en: only a synopsis\n"
                    "\n"
                    "Package: aaa-copy\n"
                    "Description-md5: 00000000000000000000000000000005\n"
                    "Description-en: a copy\n"
                    " Foo does things.\n"
                    " .\n"
                    " This package has the headers.\n"));
    // An update archive, plain: a newer description for libfoo1, and an exact repeat.
    write("deb.example.org_debian_dists_stable-updates_main_i18n_Translation-en",
          "Package: libfoo1\n"
          "Description-md5: 00000000000000000000000000000009\n"
          "Description-en: foo library\n"
          " Foo does things, now faster.\n"
          "\n"
          "Package: zlib1g\n"
          "Description-md5: 00000000000000000000000000000001\n"
          "Description-en: compression library - runtime\n"
          " zlib is a library implementing the deflate compression method found\n"
          " in gzip and PKZIP.  This package includes the shared library.\n");
    write("deb.example.org_debian_dists_stable_main_binary-amd64_Packages.lz4",
          lz4_frame("Package: zlib1g\nSource: zlib (1:1.2.13.dfsg-1)\nVersion: 1:1.2.13.dfsg-1\n"
                    "Description: compression library - runtime\n\n"
                    "Package: libfoo1\nSource: foo\nVersion: 1.0-1\n\n"
                    "Package: libfoo-dev\nSource: foo\nVersion: 1.0-1\n\n"
                    "Package: aaa-copy\nVersion: 2\n"));
    // Not lists we read.
    write("deb.example.org_debian_dists_stable_InRelease", "Origin: Debian\n");
    write("deb.example.org_debian_dists_stable_main_i18n_Translation-en_GB", "Package: x\n");
  }

  DebianOptions options() const {
    DebianOptions o;
    o.lists_dir = lists_;
    return o;
  }

  precis::testing::TempDir temp_{"precis-debian"};  // unique, removed with its files
  const std::filesystem::path& root_ = temp_.path();
  std::filesystem::path lists_;
};

}  // namespace

TEST(DebianDescription, LongDescriptionRendering) {
  EXPECT_EQ(debian_long_description(""), "");
  EXPECT_EQ(debian_long_description(" one line"), "one line");
  // Wrapped prose is joined; " ." breaks paragraphs; trailing spaces go.
  EXPECT_EQ(debian_long_description(" first line\n second line  \n .\n next para\n .\n .\n last"),
            "first line second line\nnext para\nlast");
  // List items start lines; deeper-indented lines continue an item; verbatim lines stay.
  EXPECT_EQ(debian_long_description(" Intro:\n  * one\n  * two is\n    long\n - three\n"
                                    " .\n Code:\n   make install\n   make check"),
            "Intro:\n* one\n* two is long\n- three\nCode:\nmake install\nmake check");
  // Verbatim runs keep their relative indentation only.
  EXPECT_EQ(debian_long_description("     Indented prose.\n .\n   a  b\n     c\n text"),
            "Indented prose.\na  b\n  c\ntext");
  // A leading or trailing paragraph break, and a blank line, are not content.
  EXPECT_EQ(debian_long_description(" .\n text\n\n more\n ."), "text\nmore");
  EXPECT_EQ(debian_long_description(" .\n ."), "");
}

TEST(DebianDescription, StableHashAndSplit) {
  // FNV-1a 64 reference values.
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ull);
  DebianOptions options;
  size_t counts[3] = {0, 0, 0};
  for (int i = 0; i < 20000; ++i) {
    std::string name = "source-" + std::to_string(i);
    auto split = debian_split(name, options);
    EXPECT_EQ(split, debian_split(name, options));
    ++counts[static_cast<int>(split)];
  }
  EXPECT_NEAR(counts[0] / 20000.0, 0.90, 0.01);
  EXPECT_NEAR(counts[1] / 20000.0, 0.05, 0.006);
  EXPECT_NEAR(counts[2] / 20000.0, 0.05, 0.006);
  // Another seed moves sources between splits.
  DebianOptions other = options;
  other.seed = 7;
  int moved = 0;
  for (int i = 0; i < 2000; ++i) {
    std::string name = "source-" + std::to_string(i);
    moved += debian_split(name, options) != debian_split(name, other);
  }
  EXPECT_GT(moved, 50);
  options.test_percent = 100;
  options.validation_percent = 0;
  EXPECT_EQ(debian_split("anything", options), DebianSplit::kTest);
}

TEST_F(DebianLists, ReadsCleansDeduplicatesAndFindsSources) {
  write_standard_lists();
  DebianSummary summary;
  auto records = read_debian_descriptions(options(), summary);
  EXPECT_EQ(summary.translation_files, 2u);
  EXPECT_EQ(summary.packages_files, 1u);
  EXPECT_EQ(summary.stanzas, 7u);
  EXPECT_EQ(summary.empty_dropped, 1u);
  // zlib1g appears twice with one text; libfoo-dev and aaa-copy share one text, and
  // aaa-copy comes first by package name.
  EXPECT_EQ(summary.duplicates_dropped, 2u);
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(records[0].package, "aaa-copy");
  EXPECT_EQ(records[0].source, "aaa-copy");  // no Source field: the package's own name
  EXPECT_EQ(records[0].description, "Foo does things.\nThis package has the headers.");
  // Two descriptions of libfoo1, ordered by their text.
  EXPECT_EQ(records[1].package, "libfoo1");
  EXPECT_EQ(records[1].source, "foo");
  EXPECT_EQ(records[1].description, "Foo does things, now faster.");
  EXPECT_EQ(records[2].package, "libfoo1");
  EXPECT_EQ(records[2].synopsis, "foo library");
  EXPECT_EQ(records[2].description,
            "Foo does things.\nFeatures:\n* fast\n* small and portable\nExample:\n$ foo --bar");
  EXPECT_EQ(records[3].package, "zlib1g");
  EXPECT_EQ(records[3].source, "zlib");
  EXPECT_EQ(records[3].description,
            "zlib is a library implementing the deflate compression method found in gzip and "
            "PKZIP.  This package includes the shared library.");
  EXPECT_EQ(summary.source_from_lists, 4u);
}

TEST_F(DebianLists, WritesSplitsByteIdenticallyAndBySource) {
  write_standard_lists();
  // Many binary packages of few sources, to see that a source never straddles splits.
  std::string translations, packages;
  for (int i = 0; i < 300; ++i) {
    std::string package = "pkg" + std::to_string(i);
    translations += "Package: " + package + "\nDescription-md5: x\nDescription-en: synopsis " +
                    std::to_string(i) + "\n text of " + package + "\n \"quoted\" \xC3\xA9\n\n";
    packages += "Package: " + package + "\nSource: src" + std::to_string(i % 40) + " (1.0)\n\n";
  }
  write("other.org_dists_x_i18n_Translation-en", translations);
  write("other.org_dists_x_binary-amd64_Packages", packages);

  auto a = root_ / "a";
  auto b = root_ / "b";
  auto sa = write_debian_dataset(a, options());
  auto sb = write_debian_dataset(b, options());
  for (auto name : {"train.jsonl", "validation.jsonl", "test.jsonl"})
    EXPECT_EQ(read_all(a / name), read_all(b / name)) << name;
  EXPECT_EQ(sa.train + sa.validation + sa.test, 304u);
  EXPECT_EQ(sa.train, sb.train);
  EXPECT_GT(sa.train, sa.validation);

  // Read back with the dataset reader; fields, order and the split of each source.
  std::map<std::string, std::string> split_of_source;
  size_t total = 0;
  for (auto name : {"train.jsonl", "validation.jsonl", "test.jsonl"}) {
    std::string text = read_all(a / name);
    if (!text.empty()) {
      EXPECT_EQ(text.rfind("{\"description\": ", 0), 0u);
      EXPECT_NE(text.find("\", \"synopsis\": \""), std::string::npos);
    }
    ReadOptions ro;
    ro.text_column = "description";
    ro.summary_column = "synopsis";
    auto d = read_dataset(a / name, ro);
    EXPECT_EQ(d.stats.dropped_empty, 0u);
    total += d.records.size();
    std::string previous;
    for (auto& r : d.records) {
      auto space = r.summary.rfind(' ');
      if (r.summary.rfind("synopsis ", 0) != 0) continue;
      int i = std::stoi(r.summary.substr(space + 1));
      EXPECT_EQ(r.text, "text of pkg" + std::to_string(i) + " \"quoted\" \xC3\xA9");
      std::string source = "src" + std::to_string(i % 40);
      auto [it, inserted] = split_of_source.try_emplace(source, name);
      EXPECT_EQ(it->second, name) << source << " straddles splits";
    }
  }
  EXPECT_EQ(total, 304u);
  EXPECT_EQ(split_of_source.size(), 40u);

  // Another seed gives another, equally deterministic, assignment.
  auto opts = options();
  opts.seed = 12345;
  auto c = root_ / "c";
  auto sc = write_debian_dataset(c, opts);
  EXPECT_EQ(sc.train + sc.validation + sc.test, 304u);
  EXPECT_NE(read_all(a / "train.jsonl"), read_all(c / "train.jsonl"));
}

TEST_F(DebianLists, MissingListsSayHowToFetchThem) {
  write("deb.example.org_debian_dists_stable_main_binary-amd64_Packages", "Package: a\n");
  try {
    write_debian_dataset(root_ / "out", options());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              lists_.string() +
                  ": no English package descriptions (files named *_i18n_Translation-en or "
                  "*_i18n_Translation-en.lz4); fetch them with `apt-get -o "
                  "Acquire::Languages=en update` (as root), then run this again");
  }
  DebianOptions o;
  o.lists_dir = root_ / "nowhere";
  try {
    write_debian_dataset(root_ / "out", o);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("apt-get -o Acquire::Languages=en update"),
              std::string::npos);
  }
  EXPECT_FALSE(std::filesystem::exists(root_ / "out" / "train.jsonl"));
}

TEST_F(DebianLists, CorruptOrTruncatedLz4IsAnError) {
  std::string frame = lz4_frame("Package: a\nDescription-en: s\n long text here\n\n");
  write("x_i18n_Translation-en.lz4", frame.substr(0, frame.size() - 6));
  try {
    write_debian_dataset(root_ / "out", options());
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("x_i18n_Translation-en.lz4: "), std::string::npos)
        << e.what();
  }
  // Flipped bits: caught by the content checksum where the frame has one.
  std::string corrupt = lz4_frame("Package: a\nDescription-en: s\n long text here\n\n", true);
  corrupt[corrupt.size() / 2] ^= 0x5A;
  write("x_i18n_Translation-en.lz4", corrupt);
  EXPECT_THROW(write_debian_dataset(root_ / "out", options()), Error);
  // The magic number followed by no valid frame header.
  write("x_i18n_Translation-en.lz4", std::string("\x04\x22\x4D\x18\xFF\xFF\xFF\xFF", 8));
  EXPECT_THROW(write_debian_dataset(root_ / "out", options()), Error);
  // Intact, with a checksum: read.
  write("x_i18n_Translation-en.lz4",
        lz4_frame("Package: a\nDescription-en: s\n long text here\n\n", true));
  EXPECT_EQ(write_debian_dataset(root_ / "out", options()).stanzas, 1u);
}
