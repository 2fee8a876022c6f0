#include "precis/dist/single_process_communicator.h"

#include <cstdlib>

namespace precis::dist {

void SingleProcessCommunicator::abort(int code) { std::exit(code); }

std::vector<int64_t> even_segments(int64_t n, int ranks) {
  std::vector<int64_t> counts(size_t(ranks), n / ranks);
  for (int64_t r = 0; r < n % ranks; ++r) counts[size_t(r)] += 1;
  return counts;
}

}  // namespace precis::dist
