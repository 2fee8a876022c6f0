#include <algorithm>

#include "precis/kernels/cpu/column_blocks.h"
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


void embedding_backward(const float* dout, const int32_t* ids, float* dtable, int64_t n,
                        int64_t dim, float scale, int64_t padding_idx) {
  // out[i] = table[ids[i]]·scale  =>  dtable[ids[i]] += dout[i]·scale. Threads split the
  // columns, never the tokens, so a row hit by several tokens adds them in token order.
  for_column_blocks(dim, [&](int64_t c0, int64_t width) {
    for (int64_t i = 0; i < n; ++i) {
      if (ids[i] == padding_idx) continue;  // nn.Embedding(padding_idx): no gradient
      float* row = dtable + int64_t(ids[i]) * dim + c0;
      const float* g = dout + i * dim + c0;
#pragma omp simd
      for (int64_t c = 0; c < width; ++c) row[c] += g[c] * scale;
    }
  });
}

void position_embeddings_backward(const float* dx, float* dpositions, int64_t batch, int64_t len,
                                  int64_t dim, int64_t first_row) {
  // x[b, t] += positions[first_row + t]  =>  dpositions[first_row + t] += Σ_b dx[b, t]
#pragma omp parallel for schedule(static)
  for (int64_t t = 0; t < len; ++t) {
    float* o = dpositions + (first_row + t) * dim;
    for (int64_t b = 0; b < batch; ++b) {
      const float* g = dx + (b * len + t) * dim;
#pragma omp simd
      for (int64_t c = 0; c < dim; ++c) o[c] += g[c];
    }
  }
}

}  // namespace precis::cpu
