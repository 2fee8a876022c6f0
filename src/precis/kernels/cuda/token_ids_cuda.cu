// The CUDA twin of first_invalid_id (kernels/token_ids.h): the blocks' first invalid positions
// come back to the host, which takes the least.
#include <vector>

#include "precis/kernels/cuda/launch.h"
#include "precis/kernels/cuda/launch_cost.h"
#include "precis/kernels/cuda/runtime.h"
#include "precis/kernels/cuda/token_ids_kernels.cuh"
#include "precis/kernels/cuda/twins.h"

namespace precis::cuda {

namespace {

int64_t first_invalid_id(const int32_t* ids, int64_t n, int64_t limit, bool has_allowed,
                         int32_t allowed, Stream s) {
  if (n == 0) return -1;
  // A thread per id up to kMaxBlocks blocks, then each thread strides (grid_stride_blocks's
  // rule, for blocks of kIdScanThreads).
  const int64_t wanted = (n + kIdScanThreads - 1) / kIdScanThreads;
  const unsigned blocks = unsigned(wanted < kMaxBlocks ? wanted : kMaxBlocks);
  auto* partials = static_cast<int64_t*>(scratch(s, blocks * sizeof(int64_t)));
  declare_cost({double(n) * sizeof(int32_t), double(blocks) * sizeof(int64_t), 2.0 * double(n), 0});
  PRECIS_LAUNCH(first_invalid_id_partials, dim3{blocks}, dim3{kIdScanThreads}, s, ids, n, limit,
                has_allowed, allowed, partials);
  std::vector<int64_t> host(blocks);
  copy_async(host.data(), partials, host.size() * sizeof(int64_t), s);
  synchronize(s);
  int64_t largest = 0;  // n - the first invalid position, 0 for none
  for (int64_t p : host) largest = p > largest ? p : largest;
  return largest > 0 ? n - largest : -1;
}

}  // namespace

void add_token_ids_twins(Kernels& k) { k.first_invalid_id = first_invalid_id; }

}  // namespace precis::cuda
