#include "precis/kernels/attention.h"

#include "precis/kernels/cpu/kernels_cpu.h"
#include "precis/kernels/dispatch.h"

namespace precis {

namespace {

AttentionShape attention_shape(const Tensor& q, const Tensor& k, const Tensor& v, int64_t heads,
                               const Tensor& out) {
  check(q.rank() == 3 && k.rank() == 3 && v.shape == k.shape && out.shape == q.shape && heads > 0 &&
            q.size(0) == k.size(0) && q.size(2) == k.size(2) && q.size(2) % heads == 0,
        "attention: q " + q.describe() + ", k " + k.describe() + ", v " + v.describe() + ", out " +
            out.describe() + ", " + std::to_string(heads) + " heads");
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

}  // namespace

void attention_forward(const Tensor& q, const Tensor& k, const Tensor& v, int64_t heads,
                       float scale, const AttentionMask& mask, const Tensor& out,
                       const Tensor& probs, const DropoutSpec& dropout) {
  AttentionShape s = attention_shape(q, k, v, heads, out);
  if (probs.ptr)
    check(probs.shape == Shape({s.batch, heads, s.q_len, s.k_len}),
          "attention: probs " + probs.describe());
  if (mask.key_padding.ptr)
    check(
        mask.key_padding.shape == Shape({s.batch, s.k_len}),
        "attention: key padding mask " + mask.key_padding.describe() + " for keys " + k.describe());
  if (mask.position_bias.ptr)
    check(mask.position_bias.shape == Shape({heads, s.q_len, s.k_len}),
          "attention: position bias " + mask.position_bias.describe() + " for " +
              std::to_string(heads) + " heads, queries " + q.describe() + ", keys " + k.describe());
  if (q.numel() == 0) return;
  const Device d =
      op_device("attention", {&q, &k, &v, &mask.key_padding, &mask.position_bias, &out, &probs});
  switch (d.kind) {
    case DeviceKind::CPU:
      return cpu::attention_forward(
          s, q.f32(), k.f32(), v.f32(), mask.key_padding.ptr ? mask.key_padding.i32() : nullptr,
          mask.causal, mask.past, scale,
          mask.position_bias.ptr ? mask.position_bias.f32() : nullptr, out.f32(),
          probs.ptr ? probs.f32() : nullptr, dropout_range(dropout, s));
    case DeviceKind::CUDA:
      break;
  }
  no_backend("attention", d);
}

void attention_backward(const Tensor& dout, const Tensor& q, const Tensor& k, const Tensor& v,
                        const Tensor& probs, int64_t heads, float scale, const DropoutSpec& dropout,
                        const Tensor& dq, const Tensor& dk, const Tensor& dv,
                        const Tensor& d_scores) {
  AttentionShape s = attention_shape(q, k, v, heads, dout);
  check(probs.shape == Shape({s.batch, heads, s.q_len, s.k_len}),
        "attention backward: probs " + probs.describe() + " (the forward must keep them)");
  check(dq.shape == q.shape && dk.shape == k.shape && dv.shape == v.shape,
        "attention backward: dq " + dq.describe() + ", dk " + dk.describe() + ", dv " +
            dv.describe());
  if (d_scores.ptr)
    check(d_scores.shape == probs.shape,
          "attention backward: d_scores " + d_scores.describe() + " for probs " + probs.describe());
  if (q.numel() == 0) return;
  const Device d =
      op_device("attention backward", {&dout, &q, &k, &v, &probs, &dq, &dk, &dv, &d_scores});
  switch (d.kind) {
    case DeviceKind::CPU:
      return cpu::attention_backward(s, dout.f32(), q.f32(), k.f32(), v.f32(), probs.f32(), scale,
                                     dropout_range(dropout, s), dq.f32(), dk.f32(), dv.f32(),
                                     d_scores.ptr ? d_scores.f32() : nullptr);
    case DeviceKind::CUDA:
      break;
  }
  no_backend("attention backward", d);
}

}  // namespace precis
