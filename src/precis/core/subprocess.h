// Running another program (git, for publishing) from an argument vector, never through a shell,
// so no argument is ever re-parsed: a commit message or a path can hold any character.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace precis {

struct ProcessOptions {
  std::filesystem::path working_dir;  // empty: this process's
  // Variables set (or replaced) in the child's environment, on top of this process's.
  std::vector<std::pair<std::string, std::string>> environment;
  std::string input;  // written to the child's standard input (then closed); empty: /dev/null
  // Called with the output as it arrives (stdout and stderr together), chunk by chunk.
  std::function<void(std::string_view)> on_output;
};

struct ProcessResult {
  int exit_code = 0;   // the exit status, or 128 + the signal that ended the child
  std::string output;  // stdout and stderr, interleaved as the child wrote them
};

// Runs argv[0] (searched on PATH when it has no '/') with `argv`, waits for it and returns its
// exit status and output. Throws precis::Error when the program cannot be started at all.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

// The full path of `program` on this process's PATH, if it is there and executable.
std::optional<std::filesystem::path> find_program(std::string_view program);

}  // namespace precis
