#include "precis/core/file_bytes.h"

#include <fstream>
#include <sstream>

#include "precis/core/error.h"

namespace precis {

std::optional<std::string> read_file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream bytes;
  bytes << in.rdbuf();
  check(!in.bad(), path.string() + ": read error");
  return std::move(bytes).str();
}

std::string read_existing_file(const std::filesystem::path& path, const std::string& cannot_open) {
  std::optional<std::string> bytes = read_file_bytes(path);
  check(bytes.has_value(), cannot_open);
  return std::move(*bytes);
}

}  // namespace precis
