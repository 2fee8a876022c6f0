#include "precis/kernels/attention.h"

#include "precis/kernels/cpu/kernels_cpu.h"

namespace precis {

void attention_forward(const Tensor& q, const Tensor& k, const Tensor& v, int64_t heads,
                       float scale, const AttentionMask& mask, const Tensor& out,
                       const Tensor& probs) {
  check(q.rank() == 3 && k.rank() == 3 && v.shape == k.shape && out.shape == q.shape &&
            q.size(0) == k.size(0) && q.size(2) == k.size(2) && q.size(2) % heads == 0,
        "attention: q " + q.describe() + ", k " + k.describe() + ", v " + v.describe());
  cpu::AttentionShape s{q.size(0), heads, q.size(1), k.size(1), q.size(2) / heads,
                        q.size(2),  k.size(2), v.size(2), out.size(2)};
  if (probs.ptr) check(probs.shape == Shape({s.batch, heads, s.q_len, s.k_len}),
                       "attention: probs " + probs.describe());
  if (mask.key_padding.ptr)
    check(mask.key_padding.shape == Shape({s.batch, s.k_len}),
          "attention: key padding mask " + mask.key_padding.describe() + " for keys " +
              k.describe());
  cpu::attention_forward(s, q.f32(), k.f32(), v.f32(),
                         mask.key_padding.ptr ? mask.key_padding.i32() : nullptr, mask.causal,
                         mask.past, scale, out.f32(), probs.ptr ? probs.f32() : nullptr);
}

}  // namespace precis
