#include "precis/kernels/attention.h"

#include <string>

#include "precis/kernels/cpu/attention_few_queries.h"
#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/op_dispatch.h"

namespace precis {

namespace {

// The shape, from q, k, v and the forward's out or the backward's dout, which are one dtype:
// F32, or BF16/F16 for the CUDA twin.
AttentionShape attention_shape(const Tensor& q, const Tensor& k, const Tensor& v, int64_t heads,
                               const Tensor& out, const std::string& op, const char* out_name) {
  check(q.rank() == 3 && k.rank() == 3 && v.shape == k.shape && out.shape == q.shape && heads > 0 &&
            q.size(0) == k.size(0) && q.size(2) == k.size(2) && q.size(2) % heads == 0 &&
            k.dtype == q.dtype && v.dtype == q.dtype && out.dtype == q.dtype,
        op + ": q " + q.describe() + ", k " + k.describe() + ", v " + v.describe() + ", " +
            out_name + " " + out.describe() + ", " + std::to_string(heads) + " heads");
  return {q.size(0), heads,     q.size(1), k.size(1),  q.size(2) / heads,
          q.size(2), k.size(2), v.size(2), out.size(2)};
}

// The probabilities (B, H, Tq, Tk) are the dropout's flat index space.
DropoutRange dropout_range(const DropoutSpec& d, const AttentionShape& s) {
  check(d.p >= 0 && d.p <= 1,
        "attention dropout probability " + std::to_string(d.p) + " is outside [0, 1]");
  if (!d.active()) return {};
  return {true,
          dropout_threshold(d.p),
          d.p >= 1 ? 0.0f : 1.0f / float(1.0 - double(d.p)),
          d.seed,
          d.stream,
          d.rows ? d.first_row * (uint64_t(s.batch * s.heads * s.q_len * s.k_len) / d.rows) : 0};
}

float* f32_or_null(const Tensor& t) { return t.ptr ? t.f32() : nullptr; }
int32_t* i32_or_null(const Tensor& t) { return t.ptr ? t.i32() : nullptr; }

// The tensors that are fp32 whatever the activations' dtype: the position bias, the saved
// probs and log-sum-exps, d_scores (mixed precision's statistics and parameter gradients).
void check_f32(const Tensor& t, const std::string& op, const char* name) {
  if (t.ptr)
    check(t.dtype == DType::F32,
          op + ": " + name + " " + t.describe() + " must be F32, as with 16-bit activations");
}

cpu::AttentionMaskView mask_view(const AttentionMask& m, int64_t capacity) {
  return {i32_or_null(m.key_padding), m.causal, m.past, f32_or_null(m.position_bias),
          i32_or_null(m.key_rows),    capacity};
}

// A cache read in place (AttentionMask::key_rows): checks it, and returns the shape with its
// live keys. Only the CPU's decoding kernel reads one.
AttentionShape with_live_keys(AttentionShape s, const AttentionMask& m, const Tensor& k,
                              Device device, bool saves, bool dropout) {
  const Tensor& rows = m.key_rows;
  check(rows.dtype == DType::I32 && rows.device.is_cpu() &&
            rows.shape == Shape({s.batch, s.k_len}) && m.live_keys >= 1 && m.live_keys <= s.k_len,
        "attention: key rows " + rows.describe() + " with " + std::to_string(m.live_keys) +
            " live keys for keys " + k.describe() +
            " (expected I32 [batch, capacity] on the host)");
  // Every step reads the whole table: the message is made only for an entry that fails.
  const int32_t* row = rows.i32();
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t j = 0; j < m.live_keys; ++j)
      if (row[b * s.k_len + j] < 0 || row[b * s.k_len + j] >= s.batch)
        throw Error("attention: key row " + std::to_string(row[b * s.k_len + j]) +
                    " of batch row " + std::to_string(b) + ", position " + std::to_string(j) +
                    " outside " + k.describe());
  check(device.is_cpu() && cpu::attention_few_queries_usable(s, saves, dropout),
        "attention: a cache read in place (key_rows) needs the CPU's decoding kernel "
        "(attention_reads_in_place), at most " +
            std::to_string(cpu::kFewQueriesMax) + " queries, nothing saved and no dropout");
  s.k_len = m.live_keys;
  return s;
}

void check_mask(const AttentionMask& mask, const AttentionShape& s, const Tensor& q,
                const Tensor& k, const std::string& op) {
  check_f32(mask.position_bias, op, "position bias");
  if (mask.key_padding.ptr)
    check(
        mask.key_padding.shape == Shape({s.batch, s.k_len}),
        "attention: key padding mask " + mask.key_padding.describe() + " for keys " + k.describe());
  if (mask.position_bias.ptr)
    check(mask.position_bias.shape == Shape({s.heads, s.q_len, s.k_len}),
          "attention: position bias " + mask.position_bias.describe() + " for " +
              std::to_string(s.heads) + " heads, queries " + q.describe() + ", keys " +
              k.describe());
}

void check_saved(const AttentionSaved& saved, const AttentionShape& s, const char* op) {
  check_f32(saved.probs, op, "probs");
  check_f32(saved.log_sum_exp, op, "log_sum_exp");
  if (saved.probs.ptr)
    check(saved.probs.shape == Shape({s.batch, s.heads, s.q_len, s.k_len}),
          std::string(op) + ": probs " + saved.probs.describe());
  if (saved.log_sum_exp.ptr)
    check(saved.log_sum_exp.shape == Shape({s.batch, s.heads, s.q_len}),
          std::string(op) + ": log_sum_exp " + saved.log_sum_exp.describe());
}

}  // namespace

// The CPU keeps the probabilities; the CUDA kernels are flash-style and keep only the rows'
// log-sum-exp, rebuilding P tile by tile in the backward.
bool attention_saves_probs(Device device) { return device.is_cpu(); }

bool attention_reads_in_place(Device device, int64_t head_dim) {
  return device.is_cpu() && cpu::attention_few_queries_kernel(head_dim);
}

void attention_forward(const Tensor& q, const Tensor& k, const Tensor& v, int64_t heads,
                       float scale, const AttentionMask& mask, const Tensor& out,
                       const AttentionSaved& saved, const DropoutSpec& dropout) {
  AttentionShape s = attention_shape(q, k, v, heads, out, "attention", "out");
  const int64_t capacity = s.k_len;  // positions per row of k and v
  if (mask.key_rows.ptr)
    s = with_live_keys(s, mask, k, q.device, saved.defined(), dropout.active());
  check_saved(saved, s, "attention");
  check_mask(mask, s, q, k, "attention");
  if (q.numel() == 0) return;
  // Q K^T and P V over every (query, key) pair: causal masking skips work the count includes.
  return dispatch_op(
      {"attention",
       4.0 * double(s.batch * s.heads) * double(s.q_len) * double(s.k_len) * double(s.head_dim)},
      {&q, &k, &v, &mask.key_padding, &mask.position_bias, &out, &saved.probs, &saved.log_sum_exp},
      [&] {
        return cpu::attention_forward(s, q.f32(), k.f32(), v.f32(), mask_view(mask, capacity),
                                      scale, out.f32(), f32_or_null(saved.probs),
                                      f32_or_null(saved.log_sum_exp), dropout_range(dropout, s));
      },
      [&](const CudaOp& gpu) {
        return gpu.run(&cuda::Kernels::attention_forward, q.dtype, s, q.ptr, k.ptr, v.ptr,
                       i32_or_null(mask.key_padding), mask.causal, mask.past,
                       f32_or_null(mask.position_bias), scale, out.ptr, f32_or_null(saved.probs),
                       f32_or_null(saved.log_sum_exp), dropout_range(dropout, s));
      });
}

void attention_backward(const Tensor& dout, const Tensor& q, const Tensor& k, const Tensor& v,
                        const AttentionSaved& saved, int64_t heads, float scale,
                        const DropoutSpec& dropout, const Tensor& dq, const Tensor& dk,
                        const Tensor& dv, const Tensor& d_scores, const AttentionMask& mask) {
  AttentionShape s = attention_shape(q, k, v, heads, dout, "attention backward", "dout");
  check(!mask.key_rows.ptr, "attention backward: a cache read in place (key_rows) has no backward");
  check(saved.defined(), "attention backward: the forward kept neither probs nor log_sum_exp");
  check_saved(saved, s, "attention backward");
  check_mask(mask, s, q, k, "attention backward");
  check(dq.shape == q.shape && dk.shape == k.shape && dv.shape == v.shape && dq.dtype == q.dtype &&
            dk.dtype == q.dtype && dv.dtype == q.dtype,
        "attention backward: q " + q.describe() + ", dq " + dq.describe() + ", dk " +
            dk.describe() + ", dv " + dv.describe());
  check_f32(d_scores, "attention backward", "d_scores");
  if (d_scores.ptr)
    check(d_scores.shape == Shape({s.batch, heads, s.q_len, s.k_len}),
          "attention backward: d_scores " + d_scores.describe());
  if (q.numel() == 0) return;
  // dV = P^T dO, dP = dO V^T, dQ = dS K, dK = dS^T Q.
  return dispatch_op(
      {"attention backward",
       8.0 * double(s.batch * s.heads) * double(s.q_len) * double(s.k_len) * double(s.head_dim)},
      {&dout, &q, &k, &v, &saved.probs, &saved.log_sum_exp, &mask.key_padding, &mask.position_bias,
       &dq, &dk, &dv, &d_scores},
      [&] {
        return cpu::attention_backward(s, dout.f32(), q.f32(), k.f32(), v.f32(),
                                       f32_or_null(saved.probs), f32_or_null(saved.log_sum_exp),
                                       mask_view(mask, s.k_len), scale, dropout_range(dropout, s),
                                       dq.f32(), dk.f32(), dv.f32(), f32_or_null(d_scores));
      },
      [&](const CudaOp& gpu) {
        return gpu.run(&cuda::Kernels::attention_backward, q.dtype, s, dout.ptr, q.ptr, k.ptr,
                       v.ptr, f32_or_null(saved.probs), f32_or_null(saved.log_sum_exp),
                       i32_or_null(mask.key_padding), mask.causal, mask.past,
                       f32_or_null(mask.position_bias), scale, dropout_range(dropout, s), dq.ptr,
                       dk.ptr, dv.ptr, f32_or_null(d_scores));
      });
}

}  // namespace precis
