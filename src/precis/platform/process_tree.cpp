#include "precis/platform/process_tree.h"

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace precis::platform {

namespace fs = std::filesystem;

namespace {

// {pid: parent pid} of every process visible now.
std::map<pid_t, pid_t> parents() {
  std::map<pid_t, pid_t> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0]))) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
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
  std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(comm, name);
  return name;
}

std::vector<pid_t> processes_named(const std::string& name) {
  std::vector<pid_t> out;
  for (const auto& [pid, ppid] : parents())
    if (process_name(pid) == name) out.push_back(pid);
  return out;
}

std::string process_environment_variable(pid_t pid, const std::string& variable) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
  const std::string prefix = variable + "=";
  for (std::string entry; std::getline(in, entry, '\0');)
    if (entry.rfind(prefix, 0) == 0) return entry.substr(prefix.size());
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
