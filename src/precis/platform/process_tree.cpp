#include "precis/platform/process_tree.h"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

namespace precis::platform {

namespace fs = std::filesystem;

namespace {

// A file of /proc/PID/ whole, or "" when it cannot be read: the process may end between the
// listing and the read, and then read() fails with ESRCH (which std::ifstream turns into an
// exception from inside its buffer).
std::string read_proc_file(const std::string& path) {
  std::string text;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) text.append(buffer, size_t(n));
  ::close(fd);
  return text;
}

// {pid: parent pid} of every process visible now.
std::map<pid_t, pid_t> parents() {
  std::map<pid_t, pid_t> out;
  std::error_code ec;
  // Incremented with an error code: an entry may vanish while we list (a range-for would throw).
  for (fs::directory_iterator it("/proc", ec), end; !ec && it != end; it.increment(ec)) {
    const fs::directory_entry& entry = *it;
    const std::string name = entry.path().filename().string();
    if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0]))) continue;
    const std::string text = read_proc_file((entry.path() / "stat").string());
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
    size_t close = text.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    int ppid = 0;
    if (std::sscanf(text.c_str() + close + 1, " %c %d", &state, &ppid) != 2) continue;
    if (state == 'Z' || state == 'X') continue;  // exited, not yet reaped: not running
    out[pid_t(std::stoi(name))] = pid_t(ppid);
  }
  return out;
}

}  // namespace

std::vector<pid_t> descendants(pid_t root) {
  const std::map<pid_t, pid_t> parent = parents();
  std::vector<pid_t> out;
  for (const auto& [pid, ppid] : parent) {
    std::set<pid_t> seen;  // a pid reused while we read could make a cycle
    for (pid_t p = ppid; p > 1 && seen.insert(p).second;) {
      if (p == root) {
        out.push_back(pid);
        break;
      }
      auto it = parent.find(p);
      if (it == parent.end()) break;
      p = it->second;
    }
  }
  return out;
}

std::string process_name(pid_t pid) {
  const std::string comm = read_proc_file("/proc/" + std::to_string(pid) + "/comm");
  return comm.substr(0, comm.find('\n'));
}

std::vector<pid_t> processes_named(const std::string& name) {
  std::vector<pid_t> out;
  for (const auto& [pid, ppid] : parents())
    if (process_name(pid) == name) out.push_back(pid);
  return out;
}

std::string process_environment_variable(pid_t pid, const std::string& variable) {
  const std::string entries = read_proc_file("/proc/" + std::to_string(pid) + "/environ");
  const std::string prefix = variable + "=";
  for (size_t start = 0; start < entries.size();) {  // NAME=value entries, each ended by '\0'
    size_t end = entries.find('\0', start);
    if (end == std::string::npos) end = entries.size();
    if (entries.compare(start, prefix.size(), prefix) == 0)
      return entries.substr(start + prefix.size(), end - start - prefix.size());
    start = end + 1;
  }
  return "";
}

std::string process_executable(pid_t pid) {
  std::error_code ec;
  fs::path target = fs::read_symlink("/proc/" + std::to_string(pid) + "/exe", ec);
  return ec ? std::string() : target.string();
}

std::vector<pid_t> descendants_running(const std::vector<pid_t>& roots,
                                       const std::string& executable) {
  std::vector<pid_t> out;
  for (pid_t root : roots)
    for (pid_t pid : descendants(root))
      if (process_executable(pid) == executable) out.push_back(pid);
  return out;
}

}  // namespace precis::platform
