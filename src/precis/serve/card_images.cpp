#include "precis/serve/card_images.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "precis/core/base64.h"
#include "precis/core/file_bytes.h"

namespace precis::serve {
namespace {

// The media type of a file name's extension, and whether `bytes` start as that format does.
struct ImageKind {
  const char* media_type;
  bool (*looks_like)(std::string_view bytes);
};

bool starts_as(std::string_view bytes, std::string_view magic) {
  return bytes.substr(0, magic.size()) == magic;
}

std::optional<ImageKind> image_kind(std::string extension) {
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  if (extension == ".svg")
    return ImageKind{"image/svg+xml", [](std::string_view b) {
                       return b.substr(0, 1024).find("<svg") != std::string_view::npos;
                     }};
  if (extension == ".png")
    return ImageKind{"image/png", [](std::string_view b) { return starts_as(b, "\x89PNG\r\n"); }};
  if (extension == ".jpg" || extension == ".jpeg")
    return ImageKind{"image/jpeg", [](std::string_view b) { return starts_as(b, "\xFF\xD8\xFF"); }};
  if (extension == ".gif")
    return ImageKind{"image/gif", [](std::string_view b) { return starts_as(b, "GIF8"); }};
  if (extension == ".webp")
    return ImageKind{"image/webp", [](std::string_view b) {
                       return starts_as(b, "RIFF") && b.size() >= 12 && b.substr(8, 4) == "WEBP";
                     }};
  return std::nullopt;
}

}  // namespace

std::optional<std::string> card_image_data_uri(const std::filesystem::path& model_dir,
                                               std::string target) {
  namespace fs = std::filesystem;
  if (target.rfind("./", 0) == 0) target.erase(0, 2);
  if (target.empty() || target[0] == '.' || target.find_first_of("/\\:?#%") != std::string::npos)
    return std::nullopt;
  const std::optional<ImageKind> kind = image_kind(fs::path(target).extension().string());
  if (!kind) return std::nullopt;
  const fs::path file = model_dir / target;
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(file, ec);
  if (ec || !fs::is_regular_file(status) || fs::file_size(file, ec) > kMaxCardImageBytes || ec)
    return std::nullopt;
  const std::optional<std::string> bytes = read_file_bytes(file);
  if (!bytes || bytes->size() > kMaxCardImageBytes || !kind->looks_like(*bytes))
    return std::nullopt;
  return std::string("data:") + kind->media_type + ";base64," + base64_encode(*bytes);
}

}  // namespace precis::serve
