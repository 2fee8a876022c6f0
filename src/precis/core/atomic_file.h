// Files and directories that appear whole or not at all.
//
// A reader (or a crash, or a full disk) never sees a half-written checkpoint: bytes go to a
// temporary file beside the target, which is flushed to disk (fsync) and then renamed over
// the target; the directory is fsync'ed so the rename itself survives a power cut. Until
// the rename, the previous file is untouched. Every failure throws precis::Error naming the
// path and the OS error.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string_view>

namespace precis {

// Writes `bytes` to `path` atomically (replacing any previous file).
void write_file_atomic(const std::filesystem::path& path, std::string_view bytes);

// What the two below are: staged beside their target and moved into place by commit(), the
// staging removed by the destructor otherwise. Neither is copied: two owners would remove or
// rename the same staging twice.
class CommittedOnce {
 public:
  CommittedOnce(const CommittedOnce&) = delete;
  CommittedOnce& operator=(const CommittedOnce&) = delete;

 protected:
  CommittedOnce() = default;
  ~CommittedOnce() = default;
};

// Streams a file into place: write() chunks, then commit(). Destroying the writer without a
// commit (an exception on the way, say) removes the temporary file and leaves `path` as it was.
class AtomicFileWriter : CommittedOnce {
 public:
  explicit AtomicFileWriter(std::filesystem::path path);
  ~AtomicFileWriter();

  void write(const void* data, size_t size);
  void write(std::string_view bytes) { write(bytes.data(), bytes.size()); }
  // fsync, rename over `path`, fsync the directory. The writer is finished afterwards.
  void commit();

  const std::filesystem::path& path() const { return path_; }
  const std::filesystem::path& temp_path() const { return temp_path_; }
  size_t bytes_written() const { return written_; }

 private:
  void abandon() noexcept;

  std::filesystem::path path_;
  std::filesystem::path temp_path_;
  int fd_ = -1;
  size_t written_ = 0;
};

// Builds a directory in a staging folder beside it (`<dir>.tmp-XXXXXX`) and moves it into
// place in one rename: a `checkpoint-N/` either exists complete or not at all. Write the
// files into staging(), then commit(). An existing `dir` is replaced: swapped atomically
// where the file system allows it (renameat2 RENAME_EXCHANGE), else moved aside first. The
// destructor without commit removes the staging folder.
class AtomicDirectory : CommittedOnce {
 public:
  explicit AtomicDirectory(std::filesystem::path dir);
  ~AtomicDirectory();

  const std::filesystem::path& staging() const { return staging_; }
  const std::filesystem::path& path() const { return dir_; }
  // fsync every file and folder under staging(), rename it to path(), fsync the parent.
  void commit();

 private:
  std::filesystem::path dir_;
  std::filesystem::path staging_;
  bool committed_ = false;
};

// fsync a file or a directory by path (used by the above; useful to callers who wrote
// files by other means).
void fsync_path(const std::filesystem::path& path);

}  // namespace precis
