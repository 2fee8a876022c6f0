// Processes read from /proc: a launcher on a host forwards the platform's SIGTERM to the
// training ranks running there (children of mpirun, or of the orted that mpirun started
// through ssh, which daemonizes itself and so is nobody's child), and a waiting host watches
// for that orted's end. Linux only, as SageMaker and the MPI operator are.
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

// Every live process named `name` (process_name).
std::vector<pid_t> processes_named(const std::string& name);

// Variable `variable` of /proc/PID/environ (the environment the process started with); ""
// when unset or unreadable.
std::string process_environment_variable(pid_t pid, const std::string& variable);

// The descendants of each of `roots` that run `executable` (process_executable).
std::vector<pid_t> descendants_running(const std::vector<pid_t>& roots,
                                       const std::string& executable);

}  // namespace precis::platform
