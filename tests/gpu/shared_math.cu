// The shared math headers (kernels/*_math.h, core/philox.h) compiled as device code: a kernel
// calls every function, so a header that stops compiling for the GPU fails here, before a CUDA
// twin meets it. Compiled only (ctest cuda.shared_math_compiles), never run.
#include "precis/core/philox.h"
#include "precis/kernels/activation_math.h"
#include "precis/kernels/attention_math.h"
#include "precis/kernels/cross_entropy_math.h"
#include "precis/kernels/decoding_math.h"
#include "precis/kernels/dropout_math.h"
#include "precis/kernels/layernorm_math.h"
#include "precis/kernels/optimizer_math.h"
#include "precis/kernels/rms_norm_math.h"

using namespace precis;

__global__ void every_shared_function(float* x, int32_t* mask, int64_t n, AdamWScalars s) {
  int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  using namespace activation_math;
  v = gelu_exact(v) + gelu_exact_derivative(v) + gelu_tanh(v) + gelu_fast(v) +
      tanh_gelu_derivative(v, kSqrt2OverPi, kGeluCubic) + sigmoid_gate(v, kQuickGeluA) +
      sigmoid_gate_derivative(v, 1.0f) + relu(v) + relu_derivative(v) + tanh_derivative(v);
  v += layernorm_math::output(v, 0.5f, layernorm_math::rstd(2.0, 8.0, 1e-5f), 1.0f, 0.0f) +
       layernorm_math::input_gradient(v, 1.0f, v, 2.0f, 0.1f, 0.2f);
  v += rms_norm_math::output(v, rms_norm_math::rstd(2.0, 8.0, 1e-6f), 1.0f) +
       rms_norm_math::input_gradient(v, 1.0f, v, 2.0f, 0.1f);
  v += float(cross_entropy_math::smoothed_loss(3.0, v, 10.0, 32.0, 0.1f)) +
       cross_entropy_math::logit_gradient(v, 0.5f, 0.01f) +
       cross_entropy_math::label_gradient(1.0f, 0.1f);
  uint32_t bits = philox::random_bits(42, 7, uint64_t(i));
  v = dropout_math::apply(v, bits, 429496730u, 1.1111112f);
  float m = 0.0f, sq = 0.0f;
  optimizer_math::adamw_step(v, 0.1f, m, sq, s);
  uint32_t words[1] = {bits};
  optimizer_math::adamw_step(v, 0.1f, m, sq, s, optimizer_math::decays(words, i % 32) ? 0.5f : 1.0f);
  v += float(decoding_math::uniform(42, uint64_t(i), 7));
  x[i] = v;
  if (i == 0) attention_math::masked_softmax_row(x, n, mask, n - 1);
  if (i == 1) attention_math::softmax_row_from_lse(x, n, mask, n - 2, attention_math::masked_softmax_row_lse(x, n, mask, n - 1));
}
