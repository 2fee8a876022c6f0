#include "precis/eval/sentence_split.h"

#include <cstdio>
#include <cstdlib>
#include <system_error>

#include "precis/eval/python_text.h"
#include "precis/eval/sentence_rules.h"

namespace precis::eval {

SentenceSplitter SentenceSplitter::punkt(const std::filesystem::path& language_dir) {
  SentenceSplitter s;
  s.punkt_ = std::make_shared<const PunktParameters>(load_punkt_parameters(language_dir));
  s.description_ = "punkt_tab " + language_dir.string();
  return s;
}

SentenceSplitter SentenceSplitter::rule_based() {
  SentenceSplitter s;
  s.description_ = "rule-based";
  return s;
}

std::vector<std::string_view> SentenceSplitter::split(std::string_view text) const {
  return punkt_ ? punkt_sentences(*punkt_, text) : rule_based_sentences(text);
}

std::string SentenceSplitter::on_lines(std::string_view text) const {
  std::string out;
  for (std::string_view sentence : split(python_text::strip(text))) {
    if (!out.empty()) out.push_back('\n');
    out.append(sentence);
  }
  return out;
}

std::vector<std::filesystem::path> nltk_data_path() {
  std::vector<std::filesystem::path> path;
  if (const char* env = std::getenv("NLTK_DATA")) {
    const std::string_view entries(env);
    for (size_t start = 0; start <= entries.size();) {
      size_t end = entries.find(':', start);
      if (end == std::string_view::npos) end = entries.size();
      if (end > start) path.emplace_back(std::string(entries.substr(start, end - start)));
      start = end + 1;
    }
  }
  if (const char* home = std::getenv("HOME"); home && *home)
    path.push_back(std::filesystem::path(home) / "nltk_data");
  if (const char* venv = std::getenv("VIRTUAL_ENV"); venv && *venv) {
    const std::filesystem::path prefix(venv);
    path.push_back(prefix / "nltk_data");
    path.push_back(prefix / "share" / "nltk_data");
    path.push_back(prefix / "lib" / "nltk_data");
  }
  for (const char* dir : {"/usr/share/nltk_data", "/usr/local/share/nltk_data",
                          "/usr/lib/nltk_data", "/usr/local/lib/nltk_data"})
    path.emplace_back(dir);
  return path;
}

std::optional<std::filesystem::path> find_punkt_tab(std::string_view language) {
  for (const std::filesystem::path& dir : nltk_data_path()) {
    const std::filesystem::path candidate =
        dir / "tokenizers" / "punkt_tab" / std::string(language);
    std::error_code error;
    if (std::filesystem::is_directory(candidate, error)) return candidate;
  }
  return std::nullopt;
}

namespace {

SentenceSplitter choose_default_splitter() {
  if (std::optional<std::filesystem::path> dir = find_punkt_tab()) {
    SentenceSplitter punkt = SentenceSplitter::punkt(*dir);
    std::fprintf(stderr,
                 "precis: rougeLsum's sentences are split by NLTK's Punkt with the English tables "
                 "in %s, as nltk.sent_tokenize splits them\n",
                 dir->c_str());
    return punkt;
  }
  // One short line: the main job's set-up installs no NLTK data, and most runs need not care
  // (the rule-based split agrees with Punkt on most English; docs/rouge.md has the figures and
  // where the tables go: `python -m nltk.downloader punkt_tab`, or a directory in NLTK_DATA).
  std::fprintf(stderr,
               "precis: note: no NLTK punkt_tab tables found; rougeLsum splits sentences by "
               "rule (docs/rouge.md says how to get nltk.sent_tokenize's exact split)\n");
  return SentenceSplitter::rule_based();
}

}  // namespace

const SentenceSplitter& default_sentence_splitter() {
  static const SentenceSplitter splitter = choose_default_splitter();
  return splitter;
}

std::vector<std::string_view> split_sentences(std::string_view text) {
  return default_sentence_splitter().split(text);
}

std::string sentences_on_lines(std::string_view text) {
  return default_sentence_splitter().on_lines(text);
}

}  // namespace precis::eval
