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
#include "precis/kernels/attention.h"
#include "precis/kernels/decoding.h"
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

  // attention.h, its CPU twin's arguments with the mask's fields spelled out: key padding
  // (B, Tk) or null, causality and past, position bias (H, Tq, Tk) or null. The forward keeps
  // probs and/or log_sum_exp where not null; the backward reads probs, else log_sum_exp.
  void (*attention_forward)(const AttentionShape& s, const float* q, const float* k,
                            const float* v, const int32_t* key_mask, bool causal, int64_t past,
                            const float* bias, float scale, float* out, float* probs,
                            float* log_sum_exp, const DropoutRange& dropout,
                            Stream stream) = nullptr;
  void (*attention_backward)(const AttentionShape& s, const float* dout, const float* q,
                             const float* k, const float* v, const float* probs,
                             const float* log_sum_exp, const int32_t* key_mask, bool causal,
                             int64_t past, const float* bias, float scale,
                             const DropoutRange& dropout, float* dq, float* dk, float* dv,
                             float* d_scores, Stream stream) = nullptr;

  // decoding.h, its CPU twin's arguments: the parameter structs are host memory (the twin
  // uploads their lists in stream order), everything else device memory.
  void (*next_token_scores)(float* scores, int64_t rows, int64_t vocab, const int32_t* history,
                            int64_t history_capacity, int64_t length,
                            const LogitsProcessing& processing, const float* beam_scores,
                            Stream stream) = nullptr;
  void (*choose_tokens)(float* scores, int64_t rows, int64_t vocab, const LogitsWarping* sampling,
                        uint64_t seed, uint64_t counter, int32_t* tokens, Stream stream) = nullptr;
  void (*top_candidates)(const float* scores, int64_t inputs, int64_t width, int64_t n,
                         float* values, int32_t* indices, Stream stream) = nullptr;
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
