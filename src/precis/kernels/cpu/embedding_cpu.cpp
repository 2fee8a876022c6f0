#include "precis/kernels/cpu/kernels_cpu.h"

namespace precis::cpu {

void embedding_forward(const int32_t* ids, const float* table, float* out, int64_t n, int64_t dim,
                       int64_t, float scale) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    const float* row = table + int64_t(ids[i]) * dim;
    float* o = out + i * dim;
#pragma omp simd
    for (int64_t c = 0; c < dim; ++c) o[c] = row[c] * scale;
  }
}

void add_position_embeddings(float* x, const float* positions, int64_t batch, int64_t len,
                             int64_t dim, int64_t first_row) {
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t t = 0; t < len; ++t) {
      float* o = x + (b * len + t) * dim;
      const float* p = positions + (first_row + t) * dim;
#pragma omp simd
      for (int64_t c = 0; c < dim; ++c) o[c] += p[c];
    }
}

}  // namespace precis::cpu
