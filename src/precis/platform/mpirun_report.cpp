#include "precis/platform/mpirun_report.h"

#include <regex>

namespace precis::platform {

void MpirunReport::read_line(std::string_view view) {
  static const std::regex signalled(
      R"(process rank (\d+) with PID \d+ on node (\S+) exited on signal (\d+)(?: \(([^)]*)\))?)");
  static const std::regex errored(R"(precis: rank (\d+): error: (.*)$)");
  static const std::regex aborted(R"(MPI_ABORT was invoked on rank (\d+))");
  const std::string line(view);
  std::smatch m;
  if (!signalled_ && std::regex_search(line, m, signalled)) {
    std::string cause = "killed by signal " + m[3].str();
    if (m[4].matched) cause += " (" + m[4].str() + ")";
    signalled_ = RankFailure{std::stoi(m[1]), m[2], cause};
  } else if (!errored_ && std::regex_search(line, m, errored)) {
    errored_ = RankFailure{std::stoi(m[1]), "", m[2]};
  } else if (!aborted_ && std::regex_search(line, m, aborted)) {
    aborted_ = RankFailure{std::stoi(m[1]), "", "MPI_Abort"};
  }
}

std::optional<RankFailure> MpirunReport::failure() const {
  if (signalled_) return signalled_;
  if (errored_) return errored_;
  return aborted_;
}

}  // namespace precis::platform
