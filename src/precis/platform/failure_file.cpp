#include "precis/platform/failure_file.h"

#include <fcntl.h>
#include <unistd.h>

namespace precis::platform {

namespace {

std::string cut(std::string_view text) {
  if (text.size() <= kFailureReasonBytes) return std::string(text);
  size_t n = kFailureReasonBytes;
  // Back off continuation bytes (10xxxxxx) so that no character is cut in half.
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  return std::string(text.substr(0, n));
}

}  // namespace

std::string failure_reason(std::string_view host, int rank, std::string_view cause) {
  return cut(std::string(host) + ", rank " + std::to_string(rank) + ": " + std::string(cause));
}

bool write_failure_once(const std::filesystem::path& file, std::string_view reason) {
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  // O_EXCL: of several processes failing at once, exactly one creates the file.
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  const std::string text = cut(reason);
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) break;
    done += size_t(n);
  }
  ::close(fd);
  return true;
}

}  // namespace precis::platform
