// The built-in dataset: Debian package descriptions, summarised by their synopsis.
//
// apt keeps the English descriptions of every package in its lists directory as
// `*_i18n_Translation-en` (plain or lz4), one deb822 stanza per package:
//
//   Package: 0ad
//   Description-md5: d943033bedada21853d2ae54a2578a7b
//   Description-en: Real-time strategy game of ancient warfare      <- the synopsis
//    0 A.D. (pronounced "zero ey-dee") is a free, open-source, ...  <- the long description,
//    .                                                                 one space indented;
//    ...                                                               " ." breaks paragraphs
//
// Records are {description (the long text), synopsis, package, package_and_description
// ("<package>: <description>", the main job's input: the name tells a library, its -dev or -doc
// package or a Python module apart where the first sentences of a shared description cannot)};
// the task is description -> synopsis. The long text is rendered the way apt frontends show it (Debian
// Policy 5.6.13): the one-space indent is removed; the lines of a paragraph, wrapped at ~80
// columns by their authors, are joined with single spaces; each paragraph then is one line,
// paragraphs being separated by a single "\n" (so ROUGE-Lsum's newline split sees one
// paragraph per "sentence" group). List items ("* ", "- ", "+ ", "o " after optional
// indentation) each start a line of their own, and deeper-indented lines that follow an
// item continue it; other lines indented by more than the one space are verbatim (tables,
// code) and stay lines of their own, each run of them losing only the indentation all its
// lines share (so relative layout survives, an arbitrary left margin does not). Trailing
// spaces go.
//
// The split is by source package, so that the binary packages built from one source (whose
// descriptions are often near-copies) never straddle train and test: the source comes from
// the `*_Packages` lists beside the translations (`Source:`, version in parentheses removed;
// the package's own name without one), and a fixed 64-bit hash of it (FNV-1a, then the
// murmur3 finaliser so that low-order digits are well mixed; never std::hash, whose values
// differ between library versions) picks the split. Everything is sorted before writing, so
// the same lists give byte-identical files.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace precis::data {

struct DebianDescription {
  std::string package;
  std::string source;  // source package (== package when the lists do not say)
  std::string synopsis;
  std::string description;
};

// The long description from the continuation lines of a Description field (`raw`: the
// lines after the synopsis, each still with its leading space, separated by "\n").
std::string debian_long_description(std::string_view raw);

struct DebianOptions {
  std::filesystem::path lists_dir = "/var/lib/apt/lists";
  uint64_t seed = 0;  // changes which sources fall in which split
  unsigned validation_percent = 5;
  unsigned test_percent = 5;  // train gets the rest
};

enum class DebianSplit { kTrain, kValidation, kTest };

// FNV-1a, 64 bit, continuing from `state` (the offset basis by default).
uint64_t fnv1a64(std::string_view bytes, uint64_t state = 0xcbf29ce484222325ull);

// The split of every binary package built from `source`.
DebianSplit debian_split(std::string_view source, const DebianOptions& options);

struct DebianSummary {
  size_t translation_files = 0;
  size_t packages_files = 0;
  size_t stanzas = 0;             // description stanzas read from the Translation lists
  size_t invalid_dropped = 0;     // stanzas without Package/Description-en, or not UTF-8
  size_t empty_dropped = 0;       // no long description
  size_t duplicates_dropped = 0;  // same long description as an earlier package
  size_t source_from_lists = 0;   // records whose source a Packages list named
  size_t train = 0, validation = 0, test = 0;
};

// Reads, cleans, de-duplicates (first by package name order wins) and attributes sources;
// the result is sorted by (package, description, synopsis). Throws precis::Error, with the
// apt command that fetches them, when the directory has no Translation-en lists.
std::vector<DebianDescription> read_debian_descriptions(const DebianOptions& options,
                                                        DebianSummary& summary);

// read_debian_descriptions, split, and written to `output_dir` as train.jsonl,
// validation.jsonl and test.jsonl (fields description, synopsis, package; each file
// replaced atomically).
DebianSummary write_debian_dataset(const std::filesystem::path& output_dir,
                                   const DebianOptions& options);

}  // namespace precis::data
