// What every fuzz target shares: a private scratch directory for parsers that read files,
// splitting one input into several files, and the rule that a parser may throw
// precis::Error (a clear refusal) but nothing else: any other exception, a crash, a
// sanitizer report, a hang or an absurd allocation is a finding.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "precis/core/error.h"

namespace precis::fuzz {

// One directory per process under $TMPDIR (or /tmp), emptied before each input and removed
// at exit, so that runs side by side (-jobs) never share files.
inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/precis-fuzz-XXXXXX";
    if (!::mkdtemp(pattern.data())) {
      std::perror("precis fuzz: mkdtemp");
      std::abort();
    }
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(scratch_dir(), ec);
    });
    return std::filesystem::path(pattern);
  }();
  return dir;
}

// An empty directory `name` inside the scratch directory.
inline std::filesystem::path fresh_dir(const std::string& name) {
  std::filesystem::path dir = scratch_dir() / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline void write_file(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  if (!out) {
    std::fprintf(stderr, "precis fuzz: cannot write %s\n", path.c_str());
    std::abort();
  }
}

// Files of one input are separated by this line; the seeds use it, so mutations keep it.
inline constexpr std::string_view kFileSeparator = "\n#precis-fuzz-file#\n";

// Splits `input` into exactly `count` parts at the first count - 1 separators; missing parts
// are empty, and the last part keeps any further separators.
inline std::vector<std::string_view> split_files(std::string_view input, size_t count) {
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < count) {
    size_t at = input.find(kFileSeparator);
    if (at == std::string_view::npos) break;
    parts.push_back(input.substr(0, at));
    input.remove_prefix(at + kFileSeparator.size());
  }
  parts.push_back(input);
  parts.resize(count);
  return parts;
}

// Runs `body`; precis::Error is the one acceptable way to refuse an input. Anything else that
// escapes (std::out_of_range from a stray .at(), nlohmann's exceptions, bad_alloc, ...) means
// a parser leaks an error the CLI would not turn into a clear message: abort, so libFuzzer
// saves the input.
template <class Body>
void expect_only_precis_errors(Body&& body) {
  try {
    body();
  } catch (const precis::Error&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "precis fuzz: exception other than precis::Error: %s\n", e.what());
    std::abort();
  }
}

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace precis::fuzz
