// Helpers shared by the unit tests: a temporary directory removed with its contents,
// whole-file reads and writes, a directory listing, an owning float buffer, and the checks of
// error messages (error_of, EXPECT_CONTAINS, EXPECT_STARTS_WITH).
#pragma once

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "precis/core/error.h"
#include "precis/core/tensor.h"

namespace precis::testing {

inline std::string read_all(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline void write_all(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "precis-test") {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    // A test may have made it read-only: give the owner rights back before removing.
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  const std::filesystem::path& path() const { return path_; }
  void write(const std::string& name, const std::string& bytes) const { write_all(path_ / name, bytes); }

 private:
  std::filesystem::path path_;
};

// The names in a directory, sorted.
inline std::vector<std::string> files_in(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// A float tensor that owns its storage.
struct Buffer {
  std::vector<float> data;
  Shape shape;
  explicit Buffer(Shape s, float fill = 0.0f) : data(size_t(s.numel()), fill), shape(s) {}
  Tensor t() { return Tensor{data.data(), shape, DType::F32, Device::cpu()}; }
  std::vector<double> as_double() const { return std::vector<double>(data.begin(), data.end()); }
};

// The message of the precis::Error `f` throws ("" and a test failure when it throws none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const precis::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a precis::Error";
  return "";
}

// Under CI=true (as .ci/run runs) setup has installed everything the suite needs.
inline bool in_ci() {
  const char* ci = getenv("CI");
  if (ci == nullptr) return false;
  const std::string v = ci;
  return !(v.empty() || v == "0" || v == "false" || v == "no");
}

// EXPECT_CONTAINS's check, which evaluates `text` once (it may be error_of(an operation)).
inline ::testing::AssertionResult text_contains(const char*, const char* part_expression,
                                               const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected " << part_expression << " (\"" << part
                                       << "\") in the message: " << text;
}

// EXPECT_STARTS_WITH's check.
inline ::testing::AssertionResult text_starts_with(const char*, const char* prefix_expression,
                                                   const std::string& text,
                                                   const std::string& prefix) {
  if (text.compare(0, prefix.size(), prefix) == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected the message to begin with " << prefix_expression
                                       << " (\"" << prefix << "\"): " << text;
}

}  // namespace precis::testing

#define EXPECT_CONTAINS(text, part) EXPECT_PRED_FORMAT2(precis::testing::text_contains, text, part)
#define EXPECT_STARTS_WITH(text, prefix) \
  EXPECT_PRED_FORMAT2(precis::testing::text_starts_with, text, prefix)

// A test that cannot run on this machine: skipped with its reason (ctest shows "Skipped"),
// except under CI, where a skip would hide a missing install step, so it fails.
#define SKIP_OR_FAIL_IN_CI(reason)                                                  \
  do {                                                                              \
    if (precis::testing::in_ci()) {                                                 \
      FAIL() << "skipped under CI=true, where setup installs what the suite needs: " \
             << reason;                                                             \
    } else {                                                                        \
      GTEST_SKIP() << reason;                                                       \
    }                                                                               \
  } while (0)
