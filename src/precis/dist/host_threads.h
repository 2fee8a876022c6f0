// OpenMP threads per rank when several ranks share a host. mpirun starts each rank with as
// many threads as it sees cores, so N ranks on C cores would run up to N x C threads that
// spin against each other at every parallel region. Unless OMP_NUM_THREADS is set, each rank
// takes its share, max(1, C / N) (capped by the cores its affinity mask shows), as torchrun
// sets OMP_NUM_THREADS for several processes per node.
#pragma once

namespace precis::dist {

// The threads per rank for `ranks_on_host` ranks on a host of `cores_on_host` cores, each
// seeing `cores_visible` (its affinity mask); 0 when OMP_NUM_THREADS (`omp_num_threads_env`,
// null when unset) decides or the rank is alone on its host.
int threads_per_rank(int ranks_on_host, int cores_on_host, int cores_visible, const char* omp_num_threads_env);

// Applies threads_per_rank to this process (omp_set_num_threads, which OpenBLAS's OpenMP
// build follows too) and returns what it chose (0: left alone).
int share_host_cores(int ranks_on_host);

}  // namespace precis::dist
