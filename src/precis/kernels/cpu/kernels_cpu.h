// CPU kernels: fp32, OpenBLAS for matrix products, OpenMP elsewhere. Called only from the
// op dispatchers in kernels/*.cpp, which have already checked shapes.
#pragma once

#include <cstdint>

#include "precis/kernels/activation.h"

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

// A dropout over a flat index space, resolved to integers by the dispatcher.
struct DropoutRange {
  bool active = false;
  uint64_t threshold = 0;  // drop when random bits < threshold
  float scale = 1.0f;      // 1 / (1 - p), in float
  uint64_t seed = 0, stream = 0;
  uint64_t first = 0;  // index of the first (batch, head) plane's first element
};

struct AttentionShape {
  int64_t batch, heads, q_len, k_len, head_dim;
  int64_t q_stride, k_stride, v_stride, out_stride;  // elements between consecutive positions
};
// bias: (H, Tq, Tk) added to the scaled scores, or null. d_scores: (B, H, Tq, Tk) gradient of
// the scores written there when not null.
void attention_forward(const AttentionShape& s, const float* q, const float* k, const float* v,
                       const int32_t* key_mask, bool causal, int64_t past, float scale,
                       const float* bias, float* out, float* probs, const DropoutRange& dropout);
void attention_backward(const AttentionShape& s, const float* dout, const float* q, const float* k,
                        const float* v, const float* probs, float scale,
                        const DropoutRange& dropout, float* dq, float* dk, float* dv,
                        float* d_scores);

double cross_entropy_forward(const float* logits, const int32_t* labels, float* losses, int64_t n,
                             int64_t vocab, float label_smoothing, int64_t* counted);
void cross_entropy_backward(const float* logits, const int32_t* labels, float* dlogits, int64_t n,
                            int64_t vocab, float label_smoothing, float loss_scale);

void adamw_update(float* params, const float* grads, float* exp_avg, float* exp_avg_sq, int64_t n,
                  float decay_factor, float beta1, float one_minus_beta1, float beta2,
                  float one_minus_beta2, float neg_step_size, float bias_correction2_sqrt,
                  float eps);

double sum_of_squares(const float* x, int64_t n);

}  // namespace precis::cpu
