// The CUDA twin of dropout (kernels/dropout.h): a thread per Philox block of the mask, in a
// grid-stride loop (dropout_kernels.cuh), in fp32 and in bf16/fp16.
#include "precis/kernels/cuda/dropout_kernels.cuh"
#include "precis/kernels/cuda/launch.h"
#include "precis/kernels/cuda/launch_cost.h"
#include "precis/kernels/cuda/twins.h"

namespace precis::cuda {

namespace {

template <class T>
void dropout(const T* x, T* y, int64_t n, uint64_t threshold, float scale, uint64_t seed,
             uint64_t stream_id, uint64_t first, Stream s) {
  if (n == 0) return;
  // Philox-4x32-10 per four words: about 25 operations an element with the compare and scale.
  declare_cost(elementwise_cost(n, 1, 1, sizeof(T), 25));
  PRECIS_LAUNCH_OVER(dropout_kernel<T>, int64_t(dropout_blocks(n, first)), s, x, y, n, threshold,
                     scale, seed, stream_id, first);
}

}  // namespace

void add_dropout_twins(Kernels& k) { k.dropout = PRECIS_BY_DTYPE(dropout); }

}  // namespace precis::cuda
