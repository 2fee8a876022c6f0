#include "precis/platform/job_ssh_key.h"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <netinet/in.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "precis/core/atomic_file.h"
#include "precis/core/error.h"
#include "precis/core/file_bytes.h"
#include "precis/core/subprocess.h"

namespace precis::platform {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

std::string without_line_end(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

// One ed25519 public key in authorized_keys' format: "ssh-ed25519 BASE64 [comment]", printable.
bool is_public_key(const std::string& key) {
  if (key.rfind("ssh-ed25519 ", 0) != 0 || key.size() > 1024) return false;
  for (char c : key)
    if (c < 0x20 || c > 0x7e) return false;
  return true;
}

// Connects to host:port within `timeout_ms`; -1 where it cannot.
int connect_to(const std::string& host, int port, int timeout_ms) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0) return -1;
  int fd = -1;
  for (addrinfo* a = found; a && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    if (::connect(fd, a->ai_addr, a->ai_addrlen) != 0 && errno != EINPROGRESS) {
      ::close(fd);
      fd = -1;
      continue;
    }
    pollfd p{fd, POLLOUT, 0};
    int error = 0;
    socklen_t length = sizeof error;
    if (::poll(&p, 1, timeout_ms) != 1 || ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0 ||
        error != 0) {
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(found);
  return fd;
}

// What the server wrote before closing, at most 4 KiB, within `timeout_ms`.
std::string read_answer(int fd, int timeout_ms) {
  std::string answer;
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  char buffer[1024];
  while (answer.size() < 4096) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    pollfd p{fd, POLLIN, 0};
    if (left <= 0 || ::poll(&p, 1, int(left)) != 1) break;
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n <= 0) break;
    answer.append(buffer, size_t(n));
  }
  return answer;
}

}  // namespace

int job_key_port() {
  const char* port = std::getenv("PRECIS_JOB_KEY_PORT");
  if (!port || !*port) return kJobKeyPort;
  char* end = nullptr;
  const long value = std::strtol(port, &end, 10);
  check(*end == '\0' && value > 0 && value < 65536,
        std::string("PRECIS_JOB_KEY_PORT=") + port + ": expected a TCP port (1 to 65535)");
  return int(value);
}

JobKeyServer::JobKeyServer(int port) {
  std::string pattern = (fs::temp_directory_path() / "precis-job-key-XXXXXX").string();
  check(::mkdtemp(pattern.data()) != nullptr, "cannot make a folder for the job's SSH key under " +
                                                  fs::temp_directory_path().string() + ": " + std::strerror(errno));
  dir_ = pattern;  // mkdtemp makes it 0700
  private_key_ = dir_ / "id_ed25519";
  const ProcessResult made =
      run_process({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "precis-job", "-f", private_key_.string()});
  check(made.exit_code == 0, "ssh-keygen could not make the job's SSH key: " + made.output);
  public_key_ = without_line_end(read_existing_file(private_key_.string() + ".pub", "the job's public key: cannot read"));
  listener_ = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  bool dual = listener_ >= 0;
  if (!dual) listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  check(listener_ >= 0, std::string("cannot open a socket for the job's SSH key: ") + std::strerror(errno));
  const int yes = 1, no = 0;
  ::setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  int bound;
  if (dual) {  // IPv4 and IPv6 alike
    ::setsockopt(listener_, IPPROTO_IPV6, IPV6_V6ONLY, &no, sizeof no);
    sockaddr_in6 address{};
    address.sin6_family = AF_INET6;
    address.sin6_addr = in6addr_any;
    address.sin6_port = htons(uint16_t(port));
    bound = ::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address);
  } else {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_ANY);
    address.sin_port = htons(uint16_t(port));
    bound = ::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address);
  }
  if (bound != 0 || ::listen(listener_, 64) != 0) {
    const std::string why = std::strerror(errno);
    ::close(listener_);
    fs::remove_all(dir_);
    throw Error("cannot serve the job's SSH key on port " + std::to_string(port) + ": " + why +
                " (PRECIS_JOB_KEY_PORT sets another)");
  }
  thread_ = std::thread([this] { serve(); });
}

JobKeyServer::~JobKeyServer() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  if (listener_ >= 0) ::close(listener_);
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

void JobKeyServer::serve() {
  const std::string answer = public_key_ + "\n";
  while (!stop_) {
    pollfd p{listener_, POLLIN, 0};
    if (::poll(&p, 1, 200) != 1) continue;
    const int client = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    // A short answer to a connected peer: one write, then close.
    [[maybe_unused]] const ssize_t written = ::send(client, answer.data(), answer.size(), MSG_NOSIGNAL);
    ::close(client);
  }
}

std::string fetch_job_public_key(const std::string& first_host, int port, double timeout_s) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  std::string last = "no answer";
  for (;;) {
    const int fd = connect_to(first_host, port, 2000);
    if (fd >= 0) {
      const std::string key = without_line_end(read_answer(fd, 5000));
      ::close(fd);
      if (is_public_key(key)) return key;
      last = "the answer was not one ed25519 public key (" + std::to_string(key.size()) + " bytes)";
    } else {
      last = "cannot connect";
    }
    if (Clock::now() > deadline)
      throw Error("could not get the job's SSH key from " + first_host + ":" + std::to_string(port) + " within " +
                  std::to_string(int(timeout_s)) + " s: " + last);
    ::sleep(1);
  }
}

void authorize_job_key(const std::string& public_key) {
  check(is_public_key(public_key), "the job's SSH key is not one ed25519 public key");
  const char* custom = std::getenv("PRECIS_AUTHORIZED_KEYS");
  const char* home = std::getenv("HOME");
  const fs::path file = custom && *custom ? fs::path(custom) : fs::path(home && *home ? home : "/root") / ".ssh" /
                                                                   "authorized_keys";
  fs::create_directories(file.parent_path());
  ::chmod(file.parent_path().c_str(), 0700);
  write_file_atomic(file, public_key + "\n");
  check(::chmod(file.c_str(), 0600) == 0, file.string() + ": cannot make it private: " + std::strerror(errno));
}

std::string job_ssh_agent(const fs::path& private_key) {
  return "ssh -i " + private_key.string() +
         " -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o LogLevel=ERROR";
}

void ensure_host_keys() {
  for (const char* type : {"ed25519", "ecdsa", "rsa"})
    if (fs::exists(std::string("/etc/ssh/ssh_host_") + type + "_key")) return;
  const ProcessResult made = run_process({"ssh-keygen", "-A"});
  check(made.exit_code == 0, "ssh-keygen -A could not make sshd's host keys: " + made.output);
}

}  // namespace precis::platform
