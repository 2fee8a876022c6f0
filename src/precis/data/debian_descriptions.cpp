#include "precis/data/debian_descriptions.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <tuple>
#include <unordered_set>

#include "precis/core/atomic_file.h"
#include "precis/core/error.h"
#include "precis/data/text_reader.h"
#include "precis/tokenize/utf8.h"

namespace precis::data {
namespace {

constexpr size_t kMaxListLine = size_t{16} << 20;

// The fields we want of one deb822 stanza. A field's value is its first line; continuation
// lines (starting with a space or tab) are kept, "\n"-separated, in `more`.
struct Field {
  std::string value;
  std::string more;
};
using Stanza = std::map<std::string, Field, std::less<>>;

// Calls `on_stanza` for every stanza of a deb822 file, keeping only the named fields.
template <typename OnStanza>
void for_each_stanza(const std::filesystem::path& path, const std::vector<std::string_view>& wanted,
                     OnStanza on_stanza) {
  TextReader in(open_byte_stream(path));
  std::string line;
  bool too_long = false;
  Stanza stanza;
  Field* current = nullptr;  // the wanted field that continuation lines extend
  bool last_line = false;
  while (!last_line) {
    last_line = !in.read_line(line, kMaxListLine, too_long);
    if (too_long)
      throw Error(path.string() + ":" + std::to_string(in.line() - 1) + ": a line longer than " +
                  std::to_string(kMaxListLine) + " bytes; is this an apt list?");
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (last_line || line.empty()) {
      if (!stanza.empty()) on_stanza(stanza);
      stanza.clear();
      current = nullptr;
      continue;
    }
    if (line[0] == ' ' || line[0] == '\t') {
      if (current) {
        if (!current->more.empty()) current->more += '\n';
        current->more += line;
      }
      continue;
    }
    size_t colon = line.find(':');
    current = nullptr;
    if (colon == std::string::npos) continue;
    std::string_view name(line.data(), colon);
    if (std::find(wanted.begin(), wanted.end(), name) == wanted.end()) continue;
    std::string_view value(line);
    value.remove_prefix(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
      value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    current = &stanza[std::string(name)];
    current->value.assign(value);
  }
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// The lists of one kind (plain or lz4), sorted by name so the reading order is fixed.
std::vector<std::filesystem::path> lists_named(const std::filesystem::path& dir,
                                               std::string_view suffix) {
  std::vector<std::filesystem::path> found;
  std::string lz4 = std::string(suffix) + ".lz4";
  for (auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && (ends_with(name, suffix) || ends_with(name, lz4)))
      found.push_back(entry.path());
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

size_t indent_of(std::string_view s) {
  size_t n = 0;
  while (n < s.size() && (s[n] == ' ' || s[n] == '\t')) ++n;
  return n;
}

bool is_list_item(std::string_view s) {
  s.remove_prefix(indent_of(s));
  if (s.size() < 2 || s[1] != ' ') return false;
  return s[0] == '*' || s[0] == '-' || s[0] == '+' || s[0] == 'o';
}

uint64_t murmur3_finalise(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

}  // namespace

std::string debian_long_description(std::string_view raw) {
  enum class Kind { kNone, kFlow, kItem, kVerbatim };
  std::vector<std::string> paragraphs;
  std::vector<std::string> lines;  // of the paragraph being built
  std::vector<bool> verbatim;      // per line
  Kind last = Kind::kNone;
  auto end_paragraph = [&] {
    if (lines.empty()) return;
    // Each run of verbatim lines loses the indentation its lines share, keeping their
    // relative layout (a table, nested code) without an arbitrary left margin.
    for (size_t i = 0; i < lines.size();) {
      if (!verbatim[i]) {
        ++i;
        continue;
      }
      size_t end = i;
      size_t common = std::string::npos;
      for (; end < lines.size() && verbatim[end]; ++end)
        common = std::min(common, indent_of(lines[end]));
      for (; i < end; ++i) lines[i].erase(0, common);
    }
    std::string text;
    for (auto& l : lines) text += (text.empty() ? "" : "\n") + l;
    paragraphs.push_back(std::move(text));
    lines.clear();
    verbatim.clear();
    last = Kind::kNone;
  };
  size_t pos = 0;
  while (pos <= raw.size()) {
    size_t end = raw.find('\n', pos);
    if (end == std::string_view::npos) end = raw.size();
    std::string_view line = raw.substr(pos, end - pos);
    pos = end + 1;
    if (!line.empty() && (line[0] == ' ' || line[0] == '\t')) line.remove_prefix(1);
    line = trim_right(line);
    if (line.empty() || line == ".") {  // " ." (or a stray blank line) ends a paragraph
      end_paragraph();
      continue;
    }
    size_t indent = indent_of(line);
    if (is_list_item(line)) {
      lines.emplace_back(line.substr(indent));
      verbatim.push_back(false);
      last = Kind::kItem;
    } else if (indent > 0 && last == Kind::kItem) {
      lines.back() += ' ';
      lines.back() += line.substr(indent);
    } else if (indent > 0) {
      lines.emplace_back(line);
      verbatim.push_back(true);
      last = Kind::kVerbatim;
    } else if (last == Kind::kFlow || last == Kind::kItem) {
      lines.back() += ' ';
      lines.back() += line;
    } else {
      lines.emplace_back(line);
      verbatim.push_back(false);
      last = Kind::kFlow;
    }
  }
  end_paragraph();
  std::string text;
  for (auto& p : paragraphs) text += (text.empty() ? "" : "\n") + p;
  return text;
}

uint64_t fnv1a64(std::string_view bytes, uint64_t state) {
  for (unsigned char c : bytes) {
    state ^= c;
    state *= 0x100000001b3ull;
  }
  return state;
}

DebianSplit debian_split(std::string_view source, const DebianOptions& options) {
  // The seed's 8 bytes (little-endian) go first, then the name.
  char seed[8];
  for (int i = 0; i < 8; ++i) seed[i] = static_cast<char>(options.seed >> (8 * i));
  uint64_t h = murmur3_finalise(fnv1a64(source, fnv1a64(std::string_view(seed, 8))));
  uint64_t bucket = h % 10000;  // basis points
  uint64_t test = options.test_percent * 100ull;
  uint64_t validation = options.validation_percent * 100ull;
  if (bucket < test) return DebianSplit::kTest;
  if (bucket < test + validation) return DebianSplit::kValidation;
  return DebianSplit::kTrain;
}

std::vector<DebianDescription> read_debian_descriptions(const DebianOptions& options,
                                                        DebianSummary& summary) {
  const auto& dir = options.lists_dir;
  const std::string fetch =
      "fetch them with `apt-get -o Acquire::Languages=en update` (as root), then run this again";
  if (!std::filesystem::is_directory(dir))
    throw Error(dir.string() + ": no such directory (apt's lists are in /var/lib/apt/lists); " +
                fetch);
  auto translations = lists_named(dir, "_i18n_Translation-en");
  if (translations.empty())
    throw Error(dir.string() + ": no English package descriptions (files named " +
                "*_i18n_Translation-en or *_i18n_Translation-en.lz4); " + fetch);
  summary.translation_files = translations.size();

  std::vector<DebianDescription> all;
  for (auto& path : translations) {
    for_each_stanza(path, {"Package", "Description-en"}, [&](const Stanza& stanza) {
      auto package = stanza.find("Package");
      auto description = stanza.find("Description-en");
      if (description == stanza.end() && package == stanza.end()) return;
      ++summary.stanzas;
      if (package == stanza.end() || description == stanza.end() || package->second.value.empty()) {
        ++summary.invalid_dropped;
        return;
      }
      DebianDescription record;
      record.package = package->second.value;
      record.synopsis = description->second.value;
      record.description = debian_long_description(description->second.more);
      for (auto* text : {&record.package, &record.synopsis, &record.description})
        if (tokenize::find_invalid_utf8(*text) != std::string_view::npos) {
          ++summary.invalid_dropped;
          return;
        }
      if (record.description.empty()) {
        ++summary.empty_dropped;
        return;
      }
      all.push_back(std::move(record));
    });
  }

  auto by_package = [](const DebianDescription& a, const DebianDescription& b) {
    return std::tie(a.package, a.description, a.synopsis) <
           std::tie(b.package, b.description, b.synopsis);
  };
  std::sort(all.begin(), all.end(), by_package);
  std::vector<DebianDescription> unique;
  {
    std::unordered_set<std::string_view> seen;
    for (auto& r : all)
      if (seen.insert(r.description).second)
        unique.push_back(std::move(r));
      else
        ++summary.duplicates_dropped;
  }
  all.clear();

  // Binary package -> source package; where lists disagree, the smallest name (so that the
  // answer does not depend on which lists exist or their order).
  std::map<std::string, std::string, std::less<>> sources;
  auto packages = lists_named(dir, "_Packages");
  summary.packages_files = packages.size();
  for (auto& path : packages) {
    for_each_stanza(path, {"Package", "Source"}, [&](const Stanza& stanza) {
      auto package = stanza.find("Package");
      if (package == stanza.end()) return;
      auto source = stanza.find("Source");
      std::string name = source == stanza.end() ? package->second.value : source->second.value;
      name = name.substr(0, name.find(' '));  // "glibc (2.36-9)" -> "glibc"
      if (name.empty()) return;
      auto [it, inserted] = sources.try_emplace(package->second.value, name);
      if (!inserted && name < it->second) it->second = name;
    });
  }
  for (auto& r : unique) {
    auto it = sources.find(r.package);
    if (it != sources.end()) {
      r.source = it->second;
      ++summary.source_from_lists;
    } else {
      r.source = r.package;
    }
  }
  return unique;
}

DebianSummary write_debian_dataset(const std::filesystem::path& output_dir,
                                   const DebianOptions& options) {
  check(options.validation_percent + options.test_percent <= 100,
        "validation_percent + test_percent must be at most 100");
  DebianSummary summary;
  auto records = read_debian_descriptions(options, summary);
  std::string train, validation, test;
  for (auto& r : records) {
    std::string line = "{\"description\": " + nlohmann::json(r.description).dump() +
                       ", \"synopsis\": " + nlohmann::json(r.synopsis).dump() +
                       ", \"package\": " + nlohmann::json(r.package).dump() +
                       ", \"package_and_description\": " +
                       nlohmann::json(r.package + ": " + r.description).dump() + "}\n";
    switch (debian_split(r.source, options)) {
      case DebianSplit::kTrain:
        train += line;
        ++summary.train;
        break;
      case DebianSplit::kValidation:
        validation += line;
        ++summary.validation;
        break;
      case DebianSplit::kTest:
        test += line;
        ++summary.test;
        break;
    }
  }
  std::error_code ec;
  std::filesystem::create_directories(output_dir, ec);
  if (ec) throw Error(output_dir.string() + ": cannot create the directory: " + ec.message());
  write_file_atomic(output_dir / "train.jsonl", train);
  write_file_atomic(output_dir / "validation.jsonl", validation);
  write_file_atomic(output_dir / "test.jsonl", test);
  return summary;
}

}  // namespace precis::data
