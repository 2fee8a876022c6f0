#include "precis/core/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>

#include "precis/core/error.h"

extern char** environ;

namespace precis {
namespace {

// Closes a file descriptor on scope exit unless released.
struct Fd {
  int fd = -1;
  ~Fd() { reset(); }
  void reset() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

// This process's environment with `overrides` applied, as "NAME=value" strings.
std::vector<std::string> child_environment(const std::vector<std::pair<std::string, std::string>>& overrides) {
  std::map<std::string, std::string> vars;
  std::vector<std::string> order;
  for (char** e = environ; e && *e; ++e) {
    std::string_view entry(*e);
    const size_t eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    std::string name(entry.substr(0, eq));
    if (!vars.count(name)) order.push_back(name);
    vars[name] = std::string(entry.substr(eq + 1));
  }
  for (const auto& [name, value] : overrides) {
    if (!vars.count(name)) order.push_back(name);
    vars[name] = value;
  }
  std::vector<std::string> env;
  for (const auto& name : order) env.push_back(name + "=" + vars[name]);
  return env;
}

void write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the child closed its input early: what it read is what it gets
    bytes.remove_prefix(size_t(n));
  }
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  check(!argv.empty(), "run_process: no program given");
  int out_pipe[2], in_pipe[2] = {-1, -1};
  check(::pipe2(out_pipe, O_CLOEXEC) == 0, std::string("cannot create a pipe: ") + std::strerror(errno));
  Fd out_read{out_pipe[0]}, out_write{out_pipe[1]}, in_read, in_write;
  if (!options.input.empty()) {
    check(::pipe2(in_pipe, O_CLOEXEC) == 0, std::string("cannot create a pipe: ") + std::strerror(errno));
    in_read.fd = in_pipe[0];
    in_write.fd = in_pipe[1];
  }

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (in_read.fd >= 0) {
    posix_spawn_file_actions_adddup2(&actions, in_read.fd, 0);
  } else {
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  }
  posix_spawn_file_actions_adddup2(&actions, out_write.fd, 1);
  posix_spawn_file_actions_adddup2(&actions, out_write.fd, 2);
  if (!options.working_dir.empty())
    posix_spawn_file_actions_addchdir_np(&actions, options.working_dir.c_str());

  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env = child_environment(options.environment);
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, argv[0].c_str(), &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  check(rc == 0, "cannot run " + argv[0] + ": " + std::strerror(rc));
  out_write.reset();
  in_read.reset();

  if (in_write.fd >= 0) {
    // Input is small (a credential request, a few lines): it fits the pipe, so writing it all
    // before reading cannot dead-lock against a child that writes first.
    struct sigaction ignore {}, previous {};
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ignore, &previous);
    write_all(in_write.fd, options.input);
    sigaction(SIGPIPE, &previous, nullptr);
    in_write.reset();
  }

  ProcessResult result;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(out_read.fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    result.output.append(buffer, size_t(n));
    if (options.on_output) options.on_output(std::string_view(buffer, size_t(n)));
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

std::optional<std::filesystem::path> find_program(std::string_view program) {
  const char* path = std::getenv("PATH");
  if (!path) return std::nullopt;
  std::string_view dirs(path);
  while (true) {
    const size_t colon = dirs.find(':');
    std::string_view dir = dirs.substr(0, colon);
    std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : std::string(dir)) / program;
    if (::access(candidate.c_str(), X_OK) == 0 && !std::filesystem::is_directory(candidate)) return candidate;
    if (colon == std::string_view::npos) return std::nullopt;
    dirs.remove_prefix(colon + 1);
  }
}

}  // namespace precis
