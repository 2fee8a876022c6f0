// The CUDA twins' entry points, as the CUDA backend registers them: one function per kernel,
// with the arguments of its CPU twin (cpu/kernels_cpu.h) and the stream to launch on last.
//
// libprecis does not link CUDA. A backend fills this table and installs it: the real one
// (cuda/*.cu built by nvcc, where a GPU is present) or the kernel emulator of the tests
// (tests/cuda_emulation/, the same .cu launchers compiled as host C++). An op's CUDA case
// calls twin(&Kernels::member, ...), which ends in no_backend when no backend is installed or
// the kernel has no twin yet, so the twins can arrive one op at a time.
#pragma once

#include <cstddef>
#include <cstdint>

#include "precis/core/allocator.h"
#include "precis/core/device.h"
#include "precis/kernels/activation.h"
#include "precis/kernels/dispatch.h"
#include "precis/kernels/optimizer_math.h"

namespace precis::cuda {

struct Kernels {
  // Memory: the device's allocator; bytes from src to dst, each on the host or on this
  // backend's device, in the stream's order (when dst is host memory, it holds them on return).
  Allocator* (*allocator)(int device) = nullptr;
  void (*copy)(const void* src, void* dst, size_t bytes, bool to_host, Stream stream) = nullptr;

  void (*zero)(void* x, size_t bytes, Stream stream) = nullptr;
  void (*fill)(float* x, int64_t n, float value, Stream stream) = nullptr;
  void (*fill_normal)(float* x, int64_t first, int64_t n, double std, uint64_t seed,
                      uint64_t stream_id, Stream stream) = nullptr;
  // copy.h's row moves; rows (null: row r) is host memory, as the op takes it.
  void (*gather_rows)(const char* src, const int32_t* rows, char* dst, int64_t dst_rows,
                      size_t src_row_bytes, size_t dst_row_bytes, Stream stream) = nullptr;
  void (*append_rows)(const char* values, char* cache, int64_t rows, size_t row_bytes,
                      size_t cache_row_bytes, size_t offset_bytes, Stream stream) = nullptr;

  void (*linear_forward)(const float* x, const float* w, const float* b, float* y, int64_t n,
                         int64_t in, int64_t out, Stream stream) = nullptr;
  void (*linear_backward)(const float* dy, const float* x, const float* w, float* dx, float* dw,
                          float* db, int64_t n, int64_t in, int64_t out, Stream stream) = nullptr;

  void (*add)(const float* a, const float* b, float* out, int64_t n, Stream stream) = nullptr;
  void (*add_into)(const float* x, float* out, int64_t n, Stream stream) = nullptr;
  void (*scale_in_place)(float* x, float s, int64_t n, Stream stream) = nullptr;
  void (*multiply)(const float* a, const float* b, float* out, int64_t n, Stream stream) = nullptr;

  // decay_mask null: every element decays (adamw_update), else bit i decides.
  void (*adamw_update)(float* params, const float* grads, float* exp_avg, float* exp_avg_sq,
                       const uint32_t* decay_mask, int64_t n, const AdamWScalars& scalars,
                       Stream stream) = nullptr;
  double (*sum_of_squares)(const float* x, int64_t n, Stream stream) = nullptr;

  // LayerNorm and RMSNorm: a block per row; the parameter gradients (+=) a thread per column.
  void (*layernorm_forward)(const float* x, const float* weight, const float* bias, float* y,
                            float* mean, float* rstd, int64_t rows, int64_t cols, float eps,
                            Stream stream) = nullptr;
  void (*layernorm_backward)(const float* dy, const float* x, const float* weight,
                             const float* mean, const float* rstd, float* dx, float* dweight,
                             float* dbias, int64_t rows, int64_t cols, Stream stream) = nullptr;
  void (*rms_norm_forward)(const float* x, const float* weight, float* y, float* rstd,
                           int64_t rows, int64_t cols, float eps, Stream stream) = nullptr;
  void (*rms_norm_backward)(const float* dy, const float* x, const float* weight,
                            const float* rstd, float* dx, float* dweight, int64_t rows,
                            int64_t cols, Stream stream) = nullptr;
  void (*activation_forward)(Activation kind, const float* x, float* y, int64_t n,
                             Stream stream) = nullptr;
  void (*activation_backward)(Activation kind, const float* x, const float* dy, float* dx,
                              int64_t n, Stream stream) = nullptr;
  // Dropout's flat elements first.. of (seed, stream_id), as cpu::dropout.
  void (*dropout)(const float* x, float* y, int64_t n, uint64_t threshold, float scale,
                  uint64_t seed, uint64_t stream_id, uint64_t first, Stream stream) = nullptr;
  // fp32 to and from bf16 (bf16) or fp16, convert_math.h's bits.
  void (*convert_to_16)(const float* src, uint16_t* dst, int64_t n, bool bf16,
                        Stream stream) = nullptr;
  void (*convert_from_16)(const uint16_t* src, float* dst, int64_t n, bool bf16,
                          Stream stream) = nullptr;
};

// The installed backend's table; null when none is (no backend in this process, or no GPU).
const Kernels* installed();
// Makes `kernels` (static storage, or null to uninstall) the CUDA backend of this process.
void install(const Kernels* kernels);

// The twin `member` for an op on device d, or no_backend(op, d) when there is none.
template <class F>
F twin(F Kernels::*member, const char* op, Device d) {
  const Kernels* k = installed();
  if (k == nullptr || k->*member == nullptr) no_backend(op, d);
  return k->*member;
}

}  // namespace precis::cuda
