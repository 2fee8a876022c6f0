// Which rank failed first, and why, from what mpirun prints (run with --tag-output, so each
// line a rank writes arrives as "[1,RANK]<stderr>:text"). In order of trust:
//   - mpirun's own notice that a process died of a signal ("mpirun noticed that process rank
//     1 with PID 77 on node algo-2 exited on signal 9 (Killed)."): the others' errors that
//     follow (a peer gone from a collective) are its consequences;
//   - the first "precis: rank R: error: ..." line a rank printed (trainer.cpp's format);
//   - "MPI_ABORT was invoked on rank R".
// Unit-tested on OpenMPI 4.1's wording (tests/unit/test_platform.cpp).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace precis::platform {

struct RankFailure {
  int rank = -1;
  std::string host;  // "" when the line did not say (mpirun_report's caller maps rank -> host)
  std::string cause;
};

class MpirunReport {
 public:
  // One line of mpirun's output, without its newline.
  void read_line(std::string_view line);
  // The most trusted failure seen so far.
  std::optional<RankFailure> failure() const;

 private:
  std::optional<RankFailure> signalled_, errored_, aborted_;
};

}  // namespace precis::platform
