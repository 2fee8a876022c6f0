#include <cstring>

#include "precis/kernels/cpu/kernels_cpu.h"

namespace precis::cpu {

void copy(const void* src, void* dst, size_t bytes) { std::memcpy(dst, src, bytes); }

void gather_rows(const char* src, const int32_t* rows, char* dst, int64_t dst_rows,
                 size_t src_row_bytes, size_t dst_row_bytes) {
  if (src_row_bytes == 0) return;
    // Rows are large (a layer's keys for one beam); one per task.
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < dst_rows; ++r) {
    int64_t from = rows ? rows[r] : r;
    std::memcpy(dst + size_t(r) * dst_row_bytes, src + size_t(from) * src_row_bytes, src_row_bytes);
  }
}

void append_rows(const char* values, char* cache, int64_t rows, size_t row_bytes,
                 size_t cache_row_bytes, size_t offset_bytes) {
  for (int64_t r = 0; r < rows; ++r)
    std::memcpy(cache + size_t(r) * cache_row_bytes + offset_bytes, values + size_t(r) * row_bytes,
                row_bytes);
}

}  // namespace precis::cpu
