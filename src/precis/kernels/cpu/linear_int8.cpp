#include "precis/kernels/cpu/linear_int8.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "precis/core/error.h"
#include "precis/kernels/cpu/gemm.h"
#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/cpu/linear_int8_kernels.h"

namespace precis::cpu {

namespace {

// AMX-TILE and AMX-INT8 (cpuid leaf 7: edx bits 24 and 25).
bool amx_int8_present() {
#if defined(__x86_64__)
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  return (edx & (1u << 24)) && (edx & (1u << 25));
#else
  return false;
#endif
}

// "amx-int8", "avx512-vnni", "avx2": PRECIS_CPU_INT8's values.
std::string lower_case_name(Int8Kernel kernel) {
  std::string name = int8_kernel_name(kernel);
  for (char& c : name) c = char(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

void* aligned_bytes(size_t bytes, const std::string& what) {
  void* p = std::aligned_alloc(64, std::max<size_t>((bytes + 63) / 64 * 64, 64));
  check(p != nullptr, "out of memory " + what);
  return p;
}

}  // namespace

bool int8_kernel_runs(Int8Kernel kernel) {
#if defined(__x86_64__)
  switch (kernel) {
    case Int8Kernel::kAmx:
      // The tiles' instructions fault until the process has the tile state (amx_tiles_granted).
      return amx_int8_present() && int8_kernel_runs(Int8Kernel::kAvx512Vnni) && amx_tiles_granted();
    case Int8Kernel::kAvx512Vnni:
      return __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vl");
    case Int8Kernel::kAvx2:
      return __builtin_cpu_supports("avx2");
    case Int8Kernel::kNone:
      return false;
  }
#endif
  (void)kernel;
  return false;
}

Int8Kernel int8_kernel() {
  static const Int8Kernel best = [] {
    constexpr Int8Kernel kFastestFirst[] = {Int8Kernel::kAmx, Int8Kernel::kAvx512Vnni,
                                            Int8Kernel::kAvx2};
    if (const char* env = std::getenv("PRECIS_CPU_INT8")) {
      for (Int8Kernel k : kFastestFirst)
        if (env == lower_case_name(k)) {
          check(int8_kernel_runs(k), std::string("PRECIS_CPU_INT8=") + env +
                                         ": this CPU cannot run the " + int8_kernel_name(k) +
                                         " kernel");
          return k;
        }
      throw Error(std::string("PRECIS_CPU_INT8=") + env +
                  ": expected amx-int8, avx512-vnni or avx2");
    }
    for (Int8Kernel k : kFastestFirst)
      if (int8_kernel_runs(k)) return k;
    return Int8Kernel::kNone;
  }();
  return best;
}

const char* int8_kernel_name(Int8Kernel kernel) {
  switch (kernel) {
    case Int8Kernel::kAmx:
      return "AMX-INT8";
    case Int8Kernel::kAvx512Vnni:
      return "AVX512-VNNI";
    case Int8Kernel::kAvx2:
      return "AVX2";
    case Int8Kernel::kNone:
      break;
  }
  return "none";
}

float quantize_row(const float* x, int64_t n, int8_t* q) {
  float max = 0.0f;
  for (int64_t c = 0; c < n; ++c) max = std::max(max, std::fabs(x[c]));
  if (!(max > 0.0f)) {
    std::fill(q, q + n, int8_t(0));
    return 0.0f;
  }
  const float inverse = 127.0f / max;
  for (int64_t c = 0; c < n; ++c)
    q[c] = int8_t(std::clamp(std::nearbyint(x[c] * inverse), -127.0f, 127.0f));
  return max / 127.0f;
}

Int8Weight quantize_weight(const float* w, int64_t in, int64_t out) {
  Int8Weight q;
  q.in = in;
  q.out = out;
  // Whole AMX tiles of 64 bytes: the zeros past `in` add nothing on any kernel.
  q.groups = ((in + 3) / 4 + 15) / 16 * 16;
  q.scale.assign(size_t(out), 0.0f);
  q.shift_sum.assign(size_t(out), 0);
  const int64_t panels = (out + kInt8Panel - 1) / kInt8Panel, stride = q.groups * 4;
  const size_t bytes = size_t(panels * q.groups * kInt8Panel * 4);
  int8_t* p = static_cast<int8_t*>(aligned_bytes(
      bytes, "quantizing a " + std::to_string(out) + " x " + std::to_string(in) + " weight"));
  q.panels = {p, std::free};
  std::fill(p, p + bytes, int8_t(0));
#pragma omp parallel if (out * in >= kParallelMin)
  {
    std::vector<int8_t> row(size_t(stride), 0);
#pragma omp for schedule(static)
    for (int64_t n = 0; n < out; ++n) {
      q.scale[size_t(n)] = quantize_row(w + n * in, in, row.data());
      int32_t sum = 0;
      for (int64_t c = 0; c < in; ++c) sum += row[size_t(c)];
      q.shift_sum[size_t(n)] = 128 * sum;
      int8_t* panel = p + (n / kInt8Panel) * q.groups * kInt8Panel * 4;
      const int64_t j = n % kInt8Panel;
      for (int64_t c = 0; c < in; ++c)
        panel[(c / 4) * kInt8Panel * 4 + j * 4 + c % 4] = row[size_t(c)];
    }
  }
  return q;
}

void linear_int8(Int8Kernel kernel, const Int8Weight& w, const float* x, const float* b, float* y,
                 int64_t rows) {
  check(int8_kernel_runs(kernel), std::string("linear_int8: this CPU cannot run the ") +
                                      int8_kernel_name(kernel) + " kernel");
  const Int8RowsKernel* k = kernel == Int8Kernel::kAmx          ? int8_amx_rows()
                            : kernel == Int8Kernel::kAvx512Vnni ? int8_avx512_vnni_rows()
                                                                : int8_avx2_rows();
  const int64_t in = w.in, stride = w.groups * 4;
  // The rows' bytes, past `in` the value that adds nothing against the zero weights there; a
  // last block's rows past `rows` are read (AMX loads whole tiles) and their sums dropped.
  const int64_t padded_rows = (rows + k->block_rows - 1) / k->block_rows * k->block_rows;
  thread_local std::vector<uint8_t> bytes_buffer;
  thread_local std::vector<float> scales_buffer;
  bytes_buffer.assign(size_t(padded_rows * stride), k->shifted ? uint8_t(128) : uint8_t(0));
  scales_buffer.assign(size_t(padded_rows), 0.0f);
  // This thread's buffers, by pointer: inside the parallel regions the names would be each
  // thread's own.
  uint8_t* const bytes = bytes_buffer.data();
  float* const scales = scales_buffer.data();
#pragma omp parallel for schedule(static) if (rows * in >= kParallelMin)
  for (int64_t r = 0; r < rows; ++r)
    scales[r] = k->quantize_row(x + r * in, in, bytes + r * stride);
  const int64_t panels = (w.out + kInt8Panel - 1) / kInt8Panel;
#pragma omp parallel if (panels > 1 && rows * in * w.out >= kParallelMin)
  {
    if (k->begin_thread) k->begin_thread();
#pragma omp for schedule(static)
    for (int64_t p = 0; p < panels; ++p) {
      const int8_t* panel = w.panels.get() + p * w.groups * kInt8Panel * 4;
      const int64_t n0 = p * kInt8Panel, width = std::min(kInt8Panel, w.out - n0);
      for (int64_t r0 = 0; r0 < rows; r0 += k->block_rows) {
        const int block = int(std::min<int64_t>(k->block_rows, rows - r0));
        k->block(block, panel, bytes + r0 * stride, stride, scales + r0, w, b, y + r0 * w.out, n0,
                 width);
      }
    }
    if (k->end_thread) k->end_thread();
  }
}

void linear_int8(const Int8Weight& w, const float* x, const float* b, float* y, int64_t rows) {
  linear_int8(int8_kernel(), w, x, b, y, rows);
}

}  // namespace precis::cpu
