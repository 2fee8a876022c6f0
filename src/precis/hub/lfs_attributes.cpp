#include "precis/hub/lfs_attributes.h"

#include <set>

#include "precis/core/error.h"

namespace precis::hub {

std::string_view hub_default_gitattributes() {
  // As the Hub writes it for a new model repository (same patterns, same order).
  return "*.7z filter=lfs diff=lfs merge=lfs -text\n"
         "*.arrow filter=lfs diff=lfs merge=lfs -text\n"
         "*.bin filter=lfs diff=lfs merge=lfs -text\n"
         "*.bz2 filter=lfs diff=lfs merge=lfs -text\n"
         "*.ckpt filter=lfs diff=lfs merge=lfs -text\n"
         "*.ftz filter=lfs diff=lfs merge=lfs -text\n"
         "*.gz filter=lfs diff=lfs merge=lfs -text\n"
         "*.h5 filter=lfs diff=lfs merge=lfs -text\n"
         "*.joblib filter=lfs diff=lfs merge=lfs -text\n"
         "*.lfs.* filter=lfs diff=lfs merge=lfs -text\n"
         "*.mlmodel filter=lfs diff=lfs merge=lfs -text\n"
         "*.model filter=lfs diff=lfs merge=lfs -text\n"
         "*.msgpack filter=lfs diff=lfs merge=lfs -text\n"
         "*.npy filter=lfs diff=lfs merge=lfs -text\n"
         "*.npz filter=lfs diff=lfs merge=lfs -text\n"
         "*.onnx filter=lfs diff=lfs merge=lfs -text\n"
         "*.ot filter=lfs diff=lfs merge=lfs -text\n"
         "*.parquet filter=lfs diff=lfs merge=lfs -text\n"
         "*.pb filter=lfs diff=lfs merge=lfs -text\n"
         "*.pickle filter=lfs diff=lfs merge=lfs -text\n"
         "*.pkl filter=lfs diff=lfs merge=lfs -text\n"
         "*.pt filter=lfs diff=lfs merge=lfs -text\n"
         "*.pth filter=lfs diff=lfs merge=lfs -text\n"
         "*.rar filter=lfs diff=lfs merge=lfs -text\n"
         "*.safetensors filter=lfs diff=lfs merge=lfs -text\n"
         "saved_model/**/* filter=lfs diff=lfs merge=lfs -text\n"
         "*.tar.* filter=lfs diff=lfs merge=lfs -text\n"
         "*.tar filter=lfs diff=lfs merge=lfs -text\n"
         "*.tflite filter=lfs diff=lfs merge=lfs -text\n"
         "*.tgz filter=lfs diff=lfs merge=lfs -text\n"
         "*.wasm filter=lfs diff=lfs merge=lfs -text\n"
         "*.xz filter=lfs diff=lfs merge=lfs -text\n"
         "*.zip filter=lfs diff=lfs merge=lfs -text\n"
         "*.zst filter=lfs diff=lfs merge=lfs -text\n"
         "*tfevents* filter=lfs diff=lfs merge=lfs -text\n";
}

namespace {

std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> lines;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string line(text.substr(0, nl));
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return lines;
}

// A path as a .gitattributes pattern that matches that one file: anchored with '/', and only
// characters that are neither glob syntax nor whitespace (those would need quoting rules that
// differ between git versions).
std::string literal_pattern(const std::string& path) {
  for (char c : path) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '.' || c == '_' || c == '-' || c == '/' || c == '+' || c == '@' || c == '=';
    check(plain, path + ": larger than the Hub allows outside Git LFS, and its name has characters a "
                        ".gitattributes line cannot name literally; rename it, or add a pattern that "
                        "matches it to the model directory's .gitattributes");
  }
  return "/" + path;
}

}  // namespace

std::string merge_gitattributes(std::string_view existing, const std::vector<std::string>& extra_lfs_paths) {
  std::string out(existing);
  if (!out.empty() && out.back() != '\n') out += '\n';
  std::set<std::string> present;
  for (const auto& line : lines_of(existing)) present.insert(line);
  std::vector<std::string> wanted = lines_of(hub_default_gitattributes());
  for (const auto& path : extra_lfs_paths) wanted.push_back(literal_pattern(path) + " filter=lfs diff=lfs merge=lfs -text");
  for (const auto& line : wanted) {
    if (line.empty() || present.count(line)) continue;
    out += line + '\n';
    present.insert(line);
  }
  return out;
}

}  // namespace precis::hub
