// The precis command line: one binary, one subcommand per job (see docs/architecture.md).
#include <algorithm>
#include <cstdio>
#include <exception>

#include "backends.h"
#include "command.h"
#include "info.h"
#include "precis/core/error.h"
#include "precis/kernels/cpu/blas_core.h"

namespace precis::cli {
std::vector<Command>& commands() {
  static std::vector<Command> all;
  return all;
}
}  // namespace precis::cli

int main(int argc, char** argv) {
  // First, before any work: OpenBLAS's kernels for this CPU (may restart the program once).
  precis::cpu::choose_blas_core(argv);
  precis::cli::log_blas_choice(argc > 1 ? argv[1] : nullptr);
  precis::cli::register_backends();
  CLI::App app{"precis: fine-tune, evaluate, publish and serve seq2seq summarization models"};
  app.set_version_flag("--version", [] { return precis::cli::info_text(); });
  app.require_subcommand(1);
  auto& all = precis::cli::commands();
  std::sort(all.begin(), all.end(), [](auto& a, auto& b) { return a.name < b.name; });
  for (auto& c : all) c.setup(*app.add_subcommand(c.name, c.help));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const precis::Error& e) {
    std::fprintf(stderr, "precis: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "precis: internal error: %s\n", e.what());
    return 2;
  }
  return 0;
}
