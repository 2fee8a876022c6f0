#include "precis/platform/host_names.h"

#include <netdb.h>
#include <sys/socket.h>

#include <chrono>
#include <thread>

#include "precis/core/error.h"

namespace precis::platform {

bool resolves(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0) return false;
  ::freeaddrinfo(found);
  return true;
}

void wait_until_hosts_resolve(const std::vector<std::string>& hosts, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    std::string missing;
    for (const std::string& h : hosts)
      if (!resolves(h)) missing += (missing.empty() ? "" : ", ") + h;
    if (missing.empty()) return;
    if (std::chrono::steady_clock::now() >= deadline)
      throw Error("these hosts of resourceconfig.json do not resolve after " +
                  std::to_string(int(timeout_s)) + " s: " + missing);
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

}  // namespace precis::platform
