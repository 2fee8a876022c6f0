// Each subcommand lives in its own file and registers itself here, so adding a command
// never touches main.cpp. A command's setup adds its options to the CLI11 subcommand
// and sets its callback; errors are thrown as precis::Error and printed by main.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace precis::cli {

struct Command {
  std::string name;
  std::string help;
  std::function<void(CLI::App&)> setup;
};

std::vector<Command>& commands();

inline bool register_command(Command c) {
  commands().push_back(std::move(c));
  return true;
}

}  // namespace precis::cli

#define PRECIS_CONCAT_INNER(a, b) a##b
#define PRECIS_CONCAT(a, b) PRECIS_CONCAT_INNER(a, b)
// PRECIS_COMMAND("name", "help", [](CLI::App& app) { ... });
#define PRECIS_COMMAND(...) \
  static const bool PRECIS_CONCAT(precis_command_, __LINE__) = ::precis::cli::register_command({__VA_ARGS__})
