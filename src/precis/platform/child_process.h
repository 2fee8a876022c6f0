// Starting the long-lived programs of a multi-host launch (sshd, mpirun) as children that a
// launcher watches while it also handles signals: fork/exec with an optional pipe for stderr,
// and a wait that does not block. core/subprocess.h's run_process, which waits to the end,
// serves the short commands (an ssh probe, the end-of-job message to a host).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace precis::platform {

struct Child {
  pid_t pid = -1;
  int stderr_fd = -1;  // the read end of the child's stderr when captured, else -1
};

// Starts argv[0] (searched on PATH) in a process group of its own, so that a signal meant for
// the launcher (a terminal's Ctrl-C) does not also reach it: the launcher decides what the
// child sees. Throws precis::Error when it cannot start.
Child start_child(const std::vector<std::string>& argv, bool capture_stderr);

// The child's exit status (128 + signal when a signal ended it) once it has ended; reaps it.
std::optional<int> child_exit_status(pid_t pid);

// SIGTERM, then SIGKILL if it has not ended after `grace_s`; reaps it.
void stop_child(pid_t pid, double grace_s);

}  // namespace precis::platform
