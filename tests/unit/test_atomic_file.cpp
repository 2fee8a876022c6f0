// Atomic writes: the target is replaced whole or not at all. Failures are real OS failures:
// a file-size limit (RLIMIT_FSIZE, EFBIG) hit mid-write, a full tmpfs (ENOSPC, where this
// process may mount one), a missing or read-only directory, a rename onto a directory.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <errno.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "precis/core/atomic_file.h"
#include "precis/core/error.h"

#include "test_support.h"

using namespace precis;
namespace fs = std::filesystem;
using namespace precis::testing;

namespace {

// Lowers this process's file-size limit for its lifetime; writes past it fail with EFBIG
// (SIGXFSZ, which would kill the process, is ignored meanwhile).
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &saved_);
    old_handler_ = signal(SIGXFSZ, SIG_IGN);
    rlimit lowered = saved_;
    lowered.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &lowered);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved_);
    signal(SIGXFSZ, old_handler_);
  }

 private:
  rlimit saved_{};
  sighandler_t old_handler_;
};

// Drops CAP_DAC_OVERRIDE from this thread's effective capabilities while alive (root only;
// a no-op for other users, whom permissions already bind). Capabilities are per thread in
// Linux, and the permitted set keeps it, so restore() raises it again.
class WithoutDacOverride {
 public:
  WithoutDacOverride() {
    if (geteuid() != 0) return;
    if (syscall(SYS_capget, &header_, saved_) != 0) {
      error = std::string("capget: ") + strerror(errno);
      return;
    }
    __user_cap_data_struct lowered[2] = {saved_[0], saved_[1]};
    lowered[0].effective &= ~(1u << CAP_DAC_OVERRIDE);
    if (syscall(SYS_capset, &header_, lowered) != 0) {
      error = std::string("capset: ") + strerror(errno);
      return;
    }
    active = true;
  }
  ~WithoutDacOverride() { restore(); }
  void restore() {
    if (active) syscall(SYS_capset, &header_, saved_);
    active = false;
  }
  bool active = false;
  std::string error = "not root";

 private:
  __user_cap_header_struct header_{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct saved_[2] = {};
};

}  // namespace

TEST(AtomicFile, WritesAndReplaces) {
  TempDir dir;
  write_file_atomic(dir / "a.txt", "first");
  EXPECT_EQ(read_all(dir / "a.txt"), "first");
  write_file_atomic(dir / "a.txt", "second, longer");
  EXPECT_EQ(read_all(dir / "a.txt"), "second, longer");
  write_file_atomic(dir / "a.txt", "");
  EXPECT_EQ(read_all(dir / "a.txt"), "");
  EXPECT_EQ(files_in(dir.path()), std::vector<std::string>{"a.txt"});
  // A new file gets the permissions of a plain new file (0666 less the umask), not 0600.
  mode_t mask = umask(0);
  umask(mask);
  auto perms = fs::status(dir / "a.txt").permissions();
  EXPECT_EQ(static_cast<mode_t>(perms) & 0777, 0666 & ~mask);
}

TEST(AtomicFile, StreamingWriterCommitsOrLeavesTheOldFile) {
  TempDir dir;
  write_file_atomic(dir / "w.bin", "old");
  {
    AtomicFileWriter w(dir / "w.bin");
    w.write("new ");
    w.write(std::string(100000, 'x'));
    EXPECT_EQ(read_all(dir / "w.bin"), "old");  // nothing visible before commit
    EXPECT_TRUE(fs::exists(w.temp_path()));
    EXPECT_EQ(w.temp_path().parent_path(), dir.path());
    // Destroyed without commit: the temporary goes, the old file stays.
  }
  EXPECT_EQ(read_all(dir / "w.bin"), "old");
  EXPECT_EQ(files_in(dir.path()), std::vector<std::string>{"w.bin"});

  AtomicFileWriter w(dir / "w.bin");
  w.write("new");
  w.commit();
  EXPECT_EQ(w.bytes_written(), 3u);
  EXPECT_EQ(read_all(dir / "w.bin"), "new");
  EXPECT_EQ(files_in(dir.path()), std::vector<std::string>{"w.bin"});
  EXPECT_THROW(w.write("more"), Error);
  EXPECT_THROW(w.commit(), Error);
}

TEST(AtomicFile, FailureMidWriteKeepsTheOldFile) {
  TempDir dir;
  const std::string old_contents(1000, 'o');
  write_file_atomic(dir / "model.safetensors", old_contents);
  std::string message;
  {
    FileSizeLimit limit(64 * 1024);
    message = error_of([&] {
      AtomicFileWriter w(dir / "model.safetensors");
      for (int i = 0; i < 100; ++i) w.write(std::string(4096, 'n'));
      w.commit();
    });
  }
  EXPECT_CONTAINS(message, (dir / "model.safetensors").string());
  EXPECT_CONTAINS(message, "File too large");
  EXPECT_CONTAINS(message, "after 65536 bytes");
  EXPECT_EQ(read_all(dir / "model.safetensors"), old_contents);
  EXPECT_EQ(files_in(dir.path()), std::vector<std::string>{"model.safetensors"});
}

TEST(AtomicFile, DiskFullOnTmpfsKeepsTheOldFile) {
  TempDir dir;
  fs::path mnt = dir / "tiny";
  fs::create_directory(mnt);
  if (mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=64k") != 0) {
    SKIP_OR_FAIL_IN_CI(
        "cannot mount a tmpfs here (needs CAP_SYS_ADMIN); "
        "FailureMidWriteKeepsTheOldFile covers the failure with RLIMIT_FSIZE");
  }
  struct Unmount {
    fs::path p;
    ~Unmount() { umount2(p.c_str(), MNT_DETACH); }
  } unmount{mnt};
  write_file_atomic(mnt / "f.bin", std::string(20000, 'o'));
  std::string message =
      error_of([&] { write_file_atomic(mnt / "f.bin", std::string(80000, 'n')); });
  EXPECT_CONTAINS(message, (mnt / "f.bin").string());
  EXPECT_CONTAINS(message, "No space left on device");
  EXPECT_EQ(read_all(mnt / "f.bin"), std::string(20000, 'o'));
  EXPECT_EQ(files_in(mnt), std::vector<std::string>{"f.bin"});
}

TEST(AtomicFile, MissingDirectoryOrDirectoryInTheWay) {
  TempDir dir;
  std::string m = error_of([&] { write_file_atomic(dir / "missing" / "f.txt", "x"); });
  EXPECT_CONTAINS(m, (dir / "missing" / "f.txt").string());
  EXPECT_CONTAINS(m, "No such file or directory");

  // Rename onto a directory fails at commit; the directory and its contents are untouched.
  fs::create_directory(dir / "taken");
  write_file_atomic(dir / "taken" / "inner", "keep");
  m = error_of([&] { write_file_atomic(dir / "taken", "x"); });
  EXPECT_CONTAINS(m, (dir / "taken").string());
  EXPECT_CONTAINS(m, "Is a directory");
  EXPECT_EQ(read_all(dir / "taken" / "inner"), "keep");
  EXPECT_EQ(files_in(dir.path()), std::vector<std::string>{"taken"});
}

TEST(AtomicFile, ReadOnlyDirectoryKeepsTheOldFile) {
  TempDir dir;
  fs::path ro = dir / "ro";
  fs::create_directory(ro);
  write_file_atomic(ro / "f.txt", "old");
  fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
  // Root writes through directory permissions by CAP_DAC_OVERRIDE: this thread gives it up
  // for the write, so the kernel checks the mode bits as it does for any user.
  WithoutDacOverride as_a_user;
  if (!as_a_user.active && access(ro.c_str(), W_OK) == 0) {
    fs::permissions(ro, fs::perms::owner_all);
    SKIP_OR_FAIL_IN_CI("writes pass a read-only directory's permissions here, and CAP_DAC_OVERRIDE "
                       "could not be dropped: " << as_a_user.error);
  }
  std::string m = error_of([&] { write_file_atomic(ro / "f.txt", "new"); });
  as_a_user.restore();
  fs::permissions(ro, fs::perms::owner_all);
  EXPECT_CONTAINS(m, (ro / "f.txt").string());
  EXPECT_CONTAINS(m, "Permission denied");
  EXPECT_EQ(read_all(ro / "f.txt"), "old");
  EXPECT_EQ(files_in(ro), std::vector<std::string>{"f.txt"});
}

TEST(AtomicDirectory, CreatesReplacesAndAbandons) {
  TempDir dir;
  fs::path target = dir / "checkpoint-10";
  {
    AtomicDirectory d(target);
    EXPECT_EQ(d.staging().parent_path(), dir.path());
    write_file_atomic(d.staging() / "a.txt", "one");
    fs::create_directory(d.staging() / "sub");
    write_file_atomic(d.staging() / "sub" / "b.txt", "two");
    EXPECT_FALSE(fs::exists(target));
    d.commit();
  }
  EXPECT_EQ(read_all(target / "a.txt"), "one");
  EXPECT_EQ(read_all(target / "sub" / "b.txt"), "two");
  EXPECT_EQ(files_in(dir.path()), std::vector<std::string>{"checkpoint-10"});

  {
    // Abandoned: the old directory stays as it was, the staging folder goes.
    AtomicDirectory d(target.string() + "/");
    write_file_atomic(d.staging() / "c.txt", "three");
  }
  EXPECT_EQ(files_in(dir.path()), std::vector<std::string>{"checkpoint-10"});
  EXPECT_EQ(files_in(target), (std::vector<std::string>{"a.txt", "sub"}));

  {
    // Replaced whole: nothing of the old tree remains.
    AtomicDirectory d(target);
    write_file_atomic(d.staging() / "c.txt", "three");
    d.commit();
  }
  EXPECT_EQ(files_in(target), std::vector<std::string>{"c.txt"});
  EXPECT_EQ(files_in(dir.path()), std::vector<std::string>{"checkpoint-10"});

  write_file_atomic(dir / "plain", "x");
  std::string m = error_of([&] {
    AtomicDirectory d(dir / "plain");
    d.commit();
  });
  EXPECT_CONTAINS(m, "a file of that name exists");
  EXPECT_EQ(read_all(dir / "plain"), "x");
}
