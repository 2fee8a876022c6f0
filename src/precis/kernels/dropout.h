// Inverted dropout (torch.nn.functional.dropout in training mode): keep an element with
// probability 1-p and scale what is kept by 1/(1-p). The keep decision for element i is a
// pure function of (seed, stream, i) (core/rng.h), the same on every device and thread
// count: element i is kept iff random_bits(seed, stream, i) >= dropout_threshold(p).
// The scale is computed as torch does, in float: 1 / float(1 - p). p >= 1 drops everything.
// How callers pick `stream`: see dropout_stream() in core/rng.h.
// x and y one dtype: F32, or on CUDA BF16 or F16 (the same mask; kept values rounded once).
#pragma once

#include <cstdint>

#include "precis/core/rng.h"
#include "precis/core/tensor.h"

namespace precis {

struct DropoutSpec {
  float p = 0;  // drop probability; 0: identity
  uint64_t seed = 0;
  uint64_t stream = 0;
  // A data-parallel shard of a batch numbers its mask as the whole batch would: its `rows`
  // batch rows are rows first_row.. of the global batch, so element i of x draws at
  // first_row * (x.numel() / rows) + i. rows = 0: the tensor is the whole batch.
  uint64_t first_row = 0, rows = 0;
  bool active() const { return p > 0; }
};

// A dropout over a flat index space, resolved to integers by the op before a kernel runs.
struct DropoutRange {
  bool active = false;
  uint64_t threshold = 0;  // drop when random bits < threshold
  float scale = 1.0f;      // 1 / (1 - p), in float
  uint64_t seed = 0, stream = 0;
  uint64_t first = 0;  // index of the first (batch, head) plane's first element
};

// round(p · 2^32), saturated: P(bits < threshold) = p to within 2^-32.
inline uint64_t dropout_threshold(float p) {
  if (p <= 0) return 0;
  if (p >= 1) return uint64_t(1) << 32;
  return uint64_t(double(p) * 4294967296.0 + 0.5);
}

// y = x * keep / (1-p); y may alias x. Flat index i runs over x's elements.
void dropout_forward(const Tensor& x, const DropoutSpec& d, const Tensor& y);

// dx = dy * keep / (1-p), the same mask as the forward; dx may alias dy.
void dropout_backward(const Tensor& dy, const DropoutSpec& d, const Tensor& dx);

}  // namespace precis
