#include "precis/platform/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "precis/core/error.h"

namespace precis::platform {

Child start_child(const std::vector<std::string>& argv, bool capture_stderr) {
  check(!argv.empty(), "start_child: no program");
  int fds[2] = {-1, -1};
  if (capture_stderr && ::pipe2(fds, O_CLOEXEC) != 0)
    throw Error("cannot start " + argv[0] + ": pipe: " + std::strerror(errno));
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw Error("cannot start " + argv[0] + ": fork: " + std::strerror(errno));
  if (pid == 0) {
    ::setpgid(0, 0);
    // The launcher may have replaced these; the child starts with the defaults.
    ::signal(SIGTERM, SIG_DFL);
    ::signal(SIGINT, SIG_DFL);
    if (capture_stderr) ::dup2(fds[1], 2);
    ::execvp(args[0], args.data());
    std::fprintf(stderr, "precis: cannot run %s: %s\n", args[0], std::strerror(errno));
    ::_exit(127);
  }
  Child child{pid, -1};
  if (capture_stderr) {
    ::close(fds[1]);
    child.stderr_fd = fds[0];
  }
  return child;
}

std::optional<int> child_exit_status(pid_t pid) {
  int status = 0;
  pid_t r = ::waitpid(pid, &status, WNOHANG);
  if (r != pid) return std::nullopt;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

void stop_child(pid_t pid, double grace_s) {
  if (pid <= 0) return;
  ::kill(pid, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace_s);
  while (std::chrono::steady_clock::now() < deadline) {
    if (child_exit_status(pid)) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
}

}  // namespace precis::platform
