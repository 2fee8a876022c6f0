// Errors are exceptions carrying a message a user can act on: which file, line or
// field, what was expected and what was found. The CLI prints the message as one line.
#pragma once

#include <stdexcept>
#include <string>

namespace precis {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// Throws Error(message) unless `condition` holds.
inline void check(bool condition, const std::string& message) {
  if (!condition) throw Error(message);
}

}  // namespace precis
