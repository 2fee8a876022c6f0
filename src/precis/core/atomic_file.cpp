#include "precis/core/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <random>
#include <string>
#include <system_error>

#include "precis/core/error.h"

namespace precis {
namespace fs = std::filesystem;

namespace {

std::string os_error(int err) { return std::error_code(err, std::generic_category()).message(); }

// Six random hex digits: temporary names that two writers (threads or processes) do not share.
std::string random_suffix() {
  thread_local std::mt19937_64 rng{std::random_device{}() ^ (uint64_t(::getpid()) << 32)};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s(6, '0');
  uint64_t bits = rng();
  for (char& c : s) {
    c = kHex[bits & 15];
    bits >>= 4;
  }
  return s;
}

fs::path directory_of(const fs::path& path) {
  fs::path dir = path.parent_path();
  return dir.empty() ? fs::path(".") : dir;
}

// A directory path without a trailing separator, so that filename() names the directory.
fs::path without_trailing_separator(fs::path p) {
  p = p.lexically_normal();
  if (!p.has_filename() && p.has_parent_path()) p = p.parent_path();
  return p;
}

void fsync_fd(int fd, const fs::path& path, bool is_directory) {
  while (::fsync(fd) != 0) {
    if (errno == EINTR) continue;
    // Some file systems cannot sync a directory; the data itself was synced already.
    if (is_directory && (errno == EINVAL || errno == ENOTSUP)) return;
    throw Error("cannot fsync " + path.string() + ": " + os_error(errno));
  }
}

void fsync_tree(const fs::path& root) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (it->is_regular_file() || it->is_directory()) fsync_path(it->path());
  }
  if (ec) throw Error("cannot list " + root.string() + ": " + ec.message());
  fsync_path(root);
}

}  // namespace

void fsync_path(const fs::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error("cannot open " + path.string() + " to fsync it: " + os_error(errno));
  struct stat st {};
  bool is_directory = ::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
  try {
    fsync_fd(fd, path, is_directory);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
}

AtomicFileWriter::AtomicFileWriter(fs::path path) : path_(std::move(path)) {
  check(path_.has_filename(), "cannot write a file at " + path_.string() + ": not a file name");
  fs::path dir = directory_of(path_);
  for (int attempt = 0; fd_ < 0; ++attempt) {
    // Hidden, so that globbing the directory (shards, checkpoints) never picks it up.
    std::string name = ".";  // (appending, not "." + ..., dodges a GCC 12 -Wrestrict false alarm)
    name += path_.filename().string();
    name += ".tmp-";
    name += random_suffix();
    temp_path_ = dir / name;
    // 0666 and the umask give the permissions a plain new file would get.
    fd_ = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ < 0 && (errno != EEXIST || attempt == 100)) {
      throw Error("cannot write " + path_.string() + ": cannot create a temporary file in " +
                  dir.string() + ": " + os_error(errno));
    }
  }
}

AtomicFileWriter::~AtomicFileWriter() { abandon(); }

void AtomicFileWriter::abandon() noexcept {
  if (fd_ < 0) return;
  ::close(fd_);
  ::unlink(temp_path_.c_str());
  fd_ = -1;
}

void AtomicFileWriter::write(const void* data, size_t size) {
  check(fd_ >= 0, "cannot write " + path_.string() + ": the writer is already finished");
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = ::write(fd_, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = n < 0 ? errno : EIO;
      abandon();
      throw Error("cannot write " + path_.string() + " (after " + std::to_string(written_) +
                  " bytes; the previous file is unchanged): " + os_error(err));
    }
    p += n;
    size -= size_t(n);
    written_ += size_t(n);
  }
}

void AtomicFileWriter::commit() {
  check(fd_ >= 0, "cannot commit " + path_.string() + ": the writer is already finished");
  try {
    fsync_fd(fd_, temp_path_, false);
  } catch (const Error& e) {
    abandon();
    throw Error("cannot write " + path_.string() +
                " (the previous file is unchanged): " + e.what());
  }
  int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(temp_path_.c_str());
    throw Error("cannot write " + path_.string() +
                " (the previous file is unchanged): " + os_error(err));
  }
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    int err = errno;
    ::unlink(temp_path_.c_str());
    throw Error("cannot move " + temp_path_.string() + " to " + path_.string() + ": " +
                os_error(err));
  }
  fsync_path(directory_of(path_));
}

void write_file_atomic(const fs::path& path, std::string_view bytes) {
  AtomicFileWriter writer(path);
  writer.write(bytes);
  writer.commit();
}

AtomicDirectory::AtomicDirectory(fs::path dir) : dir_(without_trailing_separator(std::move(dir))) {
  check(dir_.has_filename(), "cannot write a directory at " + dir_.string());
  fs::path parent = directory_of(dir_);
  for (int attempt = 0;; ++attempt) {
    staging_ = parent / (dir_.filename().string() + ".tmp-" + random_suffix());
    if (::mkdir(staging_.c_str(), 0777) == 0) break;
    if (errno != EEXIST || attempt == 100) {
      throw Error("cannot write " + dir_.string() + ": cannot create " + staging_.string() + ": " +
                  os_error(errno));
    }
  }
}

AtomicDirectory::~AtomicDirectory() {
  if (committed_) return;
  std::error_code ec;
  fs::remove_all(staging_, ec);
}

void AtomicDirectory::commit() {
  check(!committed_, "cannot commit " + dir_.string() + " twice");
  fsync_tree(staging_);
  std::error_code ec;
  auto status = fs::symlink_status(dir_, ec);
  bool exists = fs::exists(status);
  if (exists && !fs::is_directory(status)) {
    throw Error("cannot write directory " + dir_.string() + ": a file of that name exists");
  }
  fs::path parent = directory_of(dir_);
  if (!exists) {
    if (::rename(staging_.c_str(), dir_.c_str()) != 0) {
      throw Error("cannot move " + staging_.string() + " to " + dir_.string() + ": " +
                  os_error(errno));
    }
  } else if (::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, dir_.c_str(), RENAME_EXCHANGE) ==
             0) {
    // The new tree is in place; staging_ now holds the old one.
    fs::remove_all(staging_, ec);
  } else if (errno == EINVAL || errno == ENOSYS || errno == ENOTSUP) {
    // No atomic exchange here: move the old tree aside, the new one in, then drop the old.
    // A crash in between leaves both trees on disk, never a mixture.
    fs::path old = parent / (dir_.filename().string() + ".old-" + random_suffix());
    if (::rename(dir_.c_str(), old.c_str()) != 0) {
      throw Error("cannot move " + dir_.string() + " aside: " + os_error(errno));
    }
    if (::rename(staging_.c_str(), dir_.c_str()) != 0) {
      int err = errno;
      ::rename(old.c_str(), dir_.c_str());
      throw Error("cannot move " + staging_.string() + " to " + dir_.string() + ": " +
                  os_error(err));
    }
    fs::remove_all(old, ec);
  } else {
    throw Error("cannot replace " + dir_.string() + " with " + staging_.string() + ": " +
                os_error(errno));
  }
  committed_ = true;
  fsync_path(parent);
}

}  // namespace precis
