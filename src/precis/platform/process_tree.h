// The processes below one of ours, read from /proc: a launcher on a host forwards the
// platform's SIGTERM to the training ranks running there (children of mpirun, or of the
// sshd through which mpirun started them), and a waiting host watches for the end of the
// orted that mpirun started through its sshd. Linux only, as SageMaker and the MPI operator are.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace precis::platform {

// Every live process whose chain of parents reaches `root` (not `root` itself).
std::vector<pid_t> descendants(pid_t root);

// /proc/PID/comm (the executable's name, 15 bytes at most); "" once it is gone.
std::string process_name(pid_t pid);

// /proc/PID/exe's target; "" when it cannot be read.
std::string process_executable(pid_t pid);

// Sends `signal` to each descendant of each of `roots` running `executable`; how many.
int signal_descendants_running(const std::vector<pid_t>& roots, const std::string& executable,
                               int signal);

}  // namespace precis::platform
