#include "precis/dist/host_threads.h"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace precis::dist {

int threads_per_rank(int ranks_on_host, int cores_on_host, int cores_visible, const char* omp_num_threads_env) {
  if (omp_num_threads_env && *omp_num_threads_env) return 0;
  if (ranks_on_host <= 1) return 0;
  const int share = std::max(1, cores_on_host / ranks_on_host);
  return std::max(1, std::min(share, cores_visible));
}

int share_host_cores(int ranks_on_host) {
  const int cores = int(sysconf(_SC_NPROCESSORS_ONLN));
  const int threads = threads_per_rank(ranks_on_host, cores, omp_get_num_procs(), std::getenv("OMP_NUM_THREADS"));
  if (threads > 0) omp_set_num_threads(threads);
  return threads;
}

}  // namespace precis::dist
