// The CUDA twins' entry points, as the CUDA backend registers them: one function per kernel,
// with the arguments of its CPU twin (cpu/kernels_cpu.h) and the stream to launch on last.
//
// libprecis does not link CUDA. A backend fills this table and installs it: the real one
// (cuda/*.cu built by nvcc, where a GPU is present) or the kernel emulator of the tests
// (tests/emulator/, the same .cu launchers compiled as host C++). An op's CUDA case
// calls twin(&Kernels::member, ...), which ends in no_backend when no backend is installed or
// the kernel has no twin yet, so the twins can arrive one op at a time.
//
// Mixed precision: a member whose first argument is a DType takes the activations untyped
// (void*) and of that dtype: F32, or BF16 or F16 (their bits, cuda/element.cuh), with
// parameters, statistics and parameter gradients fp32 (float*) whatever it is. The 16-bit
// types compute in fp32 and round each result once. The backend registers one function per
// op for the three (cuda/twins.h's by_dtype). Master weights, optimizer state, the gradient
// norm and the decoding step's scores are fp32 only, so their members take no dtype.
#pragma once

#include <cstddef>
#include <cstdint>

#include "precis/core/device.h"
#include "precis/core/device_runtime.h"
#include "precis/core/dtype.h"
#include "precis/kernels/activation.h"
#include "precis/kernels/attention.h"
#include "precis/kernels/decoding.h"
#include "precis/kernels/dispatch.h"
#include "precis/kernels/optimizer_math.h"
#include "precis/kernels/relative_position.h"

namespace precis::cuda {

struct Kernels {
  // Memory, copies and zeroing (core/device_runtime.h): install() registers them for core/.
  const DeviceRuntime* runtime = nullptr;

  void (*fill)(float* x, int64_t n, float value, Stream stream) = nullptr;
  void (*fill_normal)(float* x, int64_t first, int64_t n, double std, uint64_t seed,
                      uint64_t stream_id, Stream stream) = nullptr;
  // copy.h's row moves; rows (null: row r) is host memory, as the op takes it.
  void (*gather_rows)(const char* src, const int32_t* rows, char* dst, int64_t dst_rows,
                      size_t src_row_bytes, size_t dst_row_bytes, Stream stream) = nullptr;
  void (*append_rows)(const char* values, char* cache, int64_t rows, size_t row_bytes,
                      size_t cache_row_bytes, size_t offset_bytes, Stream stream) = nullptr;

  // x, w (the weight, or its 16-bit compute copy), y, dy and dx of one dtype; dw and db fp32;
  // b fp32, or in 16-bit its compute copy (bias_dtype: F32 or `dtype`).
  void (*linear_forward)(DType dtype, const void* x, const void* w, const void* b, DType bias_dtype,
                         void* y, int64_t n, int64_t in, int64_t out, Stream stream) = nullptr;
  void (*linear_backward)(DType dtype, const void* dy, const void* x, const void* w, void* dx,
                          float* dw, float* db, int64_t n, int64_t in, int64_t out,
                          Stream stream) = nullptr;
  // dy and w of dtype, dx fp32: dx = dy · w, or += when accumulate.
  void (*linear_input_grad_to_fp32)(DType dtype, const void* dy, const void* w, float* dx,
                                    bool accumulate, int64_t n, int64_t in, int64_t out,
                                    Stream stream) = nullptr;

  void (*add)(DType dtype, const void* a, const void* b, void* out, int64_t n,
              Stream stream) = nullptr;
  // a and out fp32, b of `dtype`: out = a + b in fp32.
  void (*add_to_fp32)(DType dtype, const float* a, const void* b, float* out, int64_t n,
                      Stream stream) = nullptr;
  void (*add_into)(DType dtype, const void* x, void* out, int64_t n, Stream stream) = nullptr;
  void (*scale_in_place)(DType dtype, void* x, float s, int64_t n, Stream stream) = nullptr;
  void (*multiply)(DType dtype, const void* a, const void* b, void* out, int64_t n,
                   Stream stream) = nullptr;

  // decay_mask null: every element decays (adamw_update), else bit i decides.
  void (*adamw_update)(float* params, const float* grads, float* exp_avg, float* exp_avg_sq,
                       const uint32_t* decay_mask, int64_t n, const AdamWScalars& scalars,
                       Stream stream) = nullptr;
  double (*sum_of_squares)(const float* x, int64_t n, Stream stream) = nullptr;
  void (*sum_of_squares_into)(const float* x, int64_t n, double* total, Stream stream) = nullptr;

  // attention.h, its CPU twin's arguments with the mask's fields spelled out: key padding
  // (B, Tk) or null, causality and past, position bias (H, Tq, Tk) or null. The forward keeps
  // probs and/or log_sum_exp where not null; the backward reads probs, else log_sum_exp.
  // q, k, v, out, dout, dq, dk and dv are of `dtype`; the rest is fp32.
  void (*attention_forward)(DType dtype, const AttentionShape& s, const void* q, const void* k,
                            const void* v, const int32_t* key_mask, bool causal, int64_t past,
                            const float* bias, float scale, void* out, float* probs,
                            float* log_sum_exp, const DropoutRange& dropout,
                            Stream stream) = nullptr;
  void (*attention_backward)(DType dtype, const AttentionShape& s, const void* dout, const void* q,
                             const void* k, const void* v, const float* probs,
                             const float* log_sum_exp, const int32_t* key_mask, bool causal,
                             int64_t past, const float* bias, float scale,
                             const DropoutRange& dropout, void* dq, void* dk, void* dv,
                             float* d_scores, Stream stream) = nullptr;

  // embedding.h: ids are device memory, already checked against the table. The activations
  // (out, x, dout, dx) are of `dtype`; the tables and their gradients fp32.
  void (*embedding_forward)(DType dtype, const int32_t* ids, const float* table, void* out,
                            int64_t n, int64_t dim, int64_t vocab, float scale,
                            Stream stream) = nullptr;
  void (*add_position_embeddings)(DType dtype, void* x, const float* positions, int64_t batch,
                                  int64_t len, int64_t dim, int64_t first_row,
                                  Stream stream) = nullptr;
  void (*embedding_backward)(DType dtype, const void* dout, const int32_t* ids, float* dtable,
                             int64_t n, int64_t dim, float scale, int64_t padding_idx,
                             Stream stream) = nullptr;
  void (*position_embeddings_backward)(DType dtype, const void* dx, float* dpositions,
                                       int64_t batch, int64_t len, int64_t dim, int64_t first_row,
                                       Stream stream) = nullptr;

  // cross_entropy.h. The host form returns the loss sum and writes *counted (host memory) once
  // the stream has them; the training form adds its share to total (one double on the device)
  // and reads nothing back. The logits and dlogits are of `dtype`; the losses fp32.
  double (*cross_entropy_forward)(DType dtype, const void* logits, const int32_t* labels,
                                  float* losses, int64_t n, int64_t vocab, float label_smoothing,
                                  int64_t* counted, Stream stream) = nullptr;
  void (*cross_entropy_forward_into)(DType dtype, const void* logits, const int32_t* labels,
                                     float* losses, int64_t n, int64_t vocab, float label_smoothing,
                                     double global_tokens, double accumulation_steps, double* total,
                                     Stream stream) = nullptr;
  void (*cross_entropy_backward)(DType dtype, const void* logits, const int32_t* labels,
                                 void* dlogits, int64_t n, int64_t vocab, float label_smoothing,
                                 float loss_scale, Stream stream) = nullptr;

  // token_ids.h: the first invalid position of ids (device memory), -1 when none.
  int64_t (*first_invalid_id)(const int32_t* ids, int64_t n, int64_t limit, bool has_allowed,
                              int32_t allowed, Stream stream) = nullptr;

  // relative_position.h: T5's bias from its table, and the table's gradient (+=).
  void (*relative_position_bias_forward)(const float* table, const RelativePositionBuckets& b,
                                         int64_t first_query, float* bias, int64_t heads,
                                         int64_t tq, int64_t tk, Stream stream) = nullptr;
  void (*relative_position_bias_backward)(const float* d_scores, const RelativePositionBuckets& b,
                                          int64_t first_query, float* dtable, int64_t batch,
                                          int64_t heads, int64_t tq, int64_t tk,
                                          Stream stream) = nullptr;

  // LayerNorm and RMSNorm: a block per row; the parameter gradients (+=) column sums over
  // chunks of rows (column_sums.cuh).
  // x, y, dy and dx are of `dtype`; the parameters, statistics and their gradients fp32.
  // rounded (not null): y's (dx's) values also rounded to bf16 (bf16) or fp16 there.
  void (*layernorm_forward)(DType dtype, const void* x, const float* weight, const float* bias,
                            void* y, float* mean, float* rstd, int64_t rows, int64_t cols,
                            float eps, uint16_t* rounded, bool bf16, Stream stream) = nullptr;
  void (*layernorm_backward)(DType dtype, const void* dy, const void* x, const float* weight,
                             const float* mean, const float* rstd, void* dx, float* dweight,
                             float* dbias, int64_t rows, int64_t cols, uint16_t* rounded, bool bf16,
                             Stream stream) = nullptr;
  void (*rms_norm_forward)(DType dtype, const void* x, const float* weight, void* y, float* rstd,
                           int64_t rows, int64_t cols, float eps, uint16_t* rounded, bool bf16,
                           Stream stream) = nullptr;
  void (*rms_norm_backward)(DType dtype, const void* dy, const void* x, const float* weight,
                            const float* rstd, void* dx, float* dweight, int64_t rows, int64_t cols,
                            Stream stream) = nullptr;
  void (*activation_forward)(DType dtype, Activation kind, const void* x, void* y, int64_t n,
                             Stream stream) = nullptr;
  void (*activation_backward)(DType dtype, Activation kind, const void* x, const void* dy, void* dx,
                              int64_t n, Stream stream) = nullptr;
  // Dropout's flat elements first.. of (seed, stream_id), as cpu::dropout.
  void (*dropout)(DType dtype, const void* x, void* y, int64_t n, uint64_t threshold, float scale,
                  uint64_t seed, uint64_t stream_id, uint64_t first, Stream stream) = nullptr;
  // fp32 to and from bf16 (bf16) or fp16, convert_math.h's bits.
  void (*convert_to_16)(const float* src, uint16_t* dst, int64_t n, bool bf16,
                        Stream stream) = nullptr;
  void (*convert_from_16)(const uint16_t* src, float* dst, int64_t n, bool bf16,
                          Stream stream) = nullptr;

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
// Makes `kernels` (static storage, or null to uninstall) the CUDA backend of this process,
// and its runtime the CUDA devices' (install_device_runtime).
void install(const Kernels* kernels);

// How this process gets its backend when a job first asks for CUDA (kernels/device_choice.h):
// the CLI registers install_if_gpu_present (cuda/twins.h) in builds with the CUDA toolkit, a
// test binary the kernel emulator. The installer installs a table and returns how many devices
// it serves (0: none, nothing installed).
void set_backend_installer(int (*installer)());
// The CUDA devices this process can use: runs the registered installer once, on first call;
// 0 when none is registered or it found no GPU.
int device_count();

// The twin `member` for an op on device d, or no_backend(op, d) when there is none.
template <class F>
F twin(F Kernels::*member, const char* op, Device d) {
  const Kernels* k = installed();
  if (k == nullptr || k->*member == nullptr) no_backend(op, d);
  return k->*member;
}

}  // namespace precis::cuda
