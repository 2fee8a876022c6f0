// CPU kernels: fp32, OpenBLAS for matrix products, OpenMP elsewhere. Called only from the
// op dispatchers in kernels/*.cpp, which have already checked shapes and devices.
#pragma once

#include <cstddef>
#include <cstdint>

#include "precis/kernels/activation.h"
#include "precis/kernels/attention.h"
#include "precis/kernels/decoding.h"
#include "precis/kernels/optimizer_math.h"
#include "precis/kernels/relative_position.h"

namespace precis::cpu {

// Elementwise loops smaller than this run on one thread: starting a parallel region costs
// more than it saves, and stalls badly when the cores are oversubscribed.
constexpr int64_t kParallelMin = int64_t(1) << 15;

// y(N, out) = x(N, in) · w(out, in)^T (+ b)
void linear_forward(const float* x, const float* w, const float* b, float* y, int64_t n, int64_t in,
                    int64_t out);
// dx = dy · w (skipped if null), dw += dyᵀ · x (skipped if null), db += Σ_rows dy (if not null).
void linear_backward(const float* dy, const float* x, const float* w, float* dx, float* dw,
                     float* db, int64_t n, int64_t in, int64_t out);
// dx = dy · w, or += when `accumulate`.
void linear_input_grad_to_fp32(const float* dy, const float* w, float* dx, bool accumulate,
                               int64_t n, int64_t in, int64_t out);

void layernorm_forward(const float* x, const float* weight, const float* bias, float* y,
                       float* mean, float* rstd, int64_t rows, int64_t cols, float eps);
void layernorm_backward(const float* dy, const float* x, const float* weight, const float* mean,
                        const float* rstd, float* dx, float* dweight, float* dbias, int64_t rows,
                        int64_t cols);

void rms_norm_forward(const float* x, const float* weight, float* y, float* rstd, int64_t rows,
                      int64_t cols, float eps);
void rms_norm_backward(const float* dy, const float* x, const float* weight, const float* rstd,
                       float* dx, float* dweight, int64_t rows, int64_t cols);

void embedding_forward(const int32_t* ids, const float* table, float* out, int64_t n, int64_t dim,
                       int64_t vocab, float scale);
void add_position_embeddings(float* x, const float* positions, int64_t batch, int64_t len,
                             int64_t dim, int64_t first_row);
void embedding_backward(const float* dout, const int32_t* ids, float* dtable, int64_t n,
                        int64_t dim, float scale, int64_t padding_idx);
void position_embeddings_backward(const float* dx, float* dpositions, int64_t batch, int64_t len,
                                  int64_t dim, int64_t first_row);

void activation_forward(Activation kind, const float* x, float* y, int64_t n);
void activation_backward(Activation kind, const float* x, const float* dy, float* dx, int64_t n);

void add(const float* a, const float* b, float* out, int64_t n);
void add_into(const float* x, float* out, int64_t n);
void scale_in_place(float* x, float s, int64_t n);
void multiply(const float* a, const float* b, float* out, int64_t n);

// Inverted dropout of n elements whose flat indices start at `first`: y = x·scale where
// random_bits(seed, stream, first + i) >= threshold, else 0. Serial (callers parallelise);
// y may alias x. threshold = 2^32 drops everything.
void dropout_range(const float* x, float* y, int64_t n, uint64_t first, uint64_t threshold,
                   float scale, uint64_t seed, uint64_t stream);
// The same over n elements from index 0, in parallel.
void dropout(const float* x, float* y, int64_t n, uint64_t threshold, float scale, uint64_t seed,
             uint64_t stream, uint64_t first);

// bias: (H, Tq, Tk) added to the scaled scores, or null. d_scores: (B, H, Tq, Tk) gradient of
// the scores written there when not null.
// AttentionMask's pointers: key padding (B, Tk) or null, causality, position bias (H, Tq, Tk)
// or null.
struct AttentionMaskView {
  const int32_t* key_mask;
  bool causal;
  int64_t past;
  const float* bias;
  const int32_t* key_rows = nullptr;  // AttentionMask::key_rows, or null
  int64_t key_capacity = 0;           // positions per row of k and v with key_rows
};
// Saved state: probs (B, H, Tq, Tk) or log_sum_exp (B, H, Tq), either may be null.
void attention_forward(const AttentionShape& s, const float* q, const float* k, const float* v,
                       const AttentionMaskView& mask, float scale, float* out, float* probs,
                       float* log_sum_exp, const DropoutRange& dropout);
// From probs when given, else P is recomputed from log_sum_exp and the mask.
void attention_backward(const AttentionShape& s, const float* dout, const float* q, const float* k,
                        const float* v, const float* probs, const float* log_sum_exp,
                        const AttentionMaskView& mask, float scale, const DropoutRange& dropout,
                        float* dq, float* dk, float* dv, float* d_scores);

double cross_entropy_forward(const float* logits, const int32_t* labels, float* losses, int64_t n,
                             int64_t vocab, float label_smoothing, int64_t* counted);
void cross_entropy_backward(const float* logits, const int32_t* labels, float* dlogits, int64_t n,
                            int64_t vocab, float label_smoothing, float loss_scale);

void adamw_update(float* params, const float* grads, float* exp_avg, float* exp_avg_sq, int64_t n,
                  const AdamWScalars& scalars);
// zero_grads: each chunk's gradient set to zero once the chunk is updated (still in cache).
void adamw_update_masked(float* params, float* grads, float* exp_avg, float* exp_avg_sq,
                         const uint32_t* decay_mask, int64_t n, const AdamWScalars& scalars,
                         bool zero_grads);

double sum_of_squares(const float* x, int64_t n);

// decoding.h's ops; history rows hold history_capacity ids each.
void next_token_scores(float* scores, int64_t rows, int64_t vocab, const int32_t* history,
                       int64_t history_capacity, int64_t length, const LogitsProcessing& p,
                       const float* beam_scores);
void choose_tokens(float* scores, int64_t rows, int64_t vocab, const LogitsWarping* sampling,
                   TorchCpuGenerator& generator, int32_t* tokens);
void top_candidates(const float* scores, int64_t inputs, int64_t width, int64_t n, float* values,
                    int32_t* indices);

void relative_position_bias_forward(const float* table, const RelativePositionBuckets& b,
                                    int64_t first_query, float* bias, int64_t heads, int64_t tq,
                                    int64_t tk);
void relative_position_bias_backward(const float* d_scores, const RelativePositionBuckets& b,
                                     int64_t first_query, float* dtable, int64_t batch,
                                     int64_t heads, int64_t tq, int64_t tk);

// The first position of ids outside [0, limit), other than `allowed` when has_allowed; -1: none.
int64_t first_invalid_id(const int32_t* ids, int64_t n, int64_t limit, bool has_allowed,
                         int32_t allowed);

void copy(const void* src, void* dst, size_t bytes);
// convert.h: fp32 to 16 bits (bf16 or fp16, nearest even) and back.
void convert_to_16(const float* src, uint16_t* dst, int64_t n, bool bf16);
void convert_from_16(const uint16_t* src, float* dst, int64_t n, bool bf16);
// dst row r (dst_row_bytes apart) starts with src row rows[r] (src_row_bytes, packed); rows
// null: row r.
void gather_rows(const char* src, const int32_t* rows, char* dst, int64_t dst_rows,
                 size_t src_row_bytes, size_t dst_row_bytes);
// values' rows (row_bytes each) written at offset_bytes into each cache row (cache_row_bytes).
void append_rows(const char* values, char* cache, int64_t rows, size_t row_bytes,
                 size_t cache_row_bytes, size_t offset_bytes);

void zero(void* x, size_t bytes);
void fill(float* x, int64_t n, float value);
// x[first..n) = float(std * N(0,1) draw i of (seed, stream)).
void fill_normal(float* x, int64_t first, int64_t n, double std, uint64_t seed, uint64_t stream);

}  // namespace precis::cpu
