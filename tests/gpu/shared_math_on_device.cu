// The shared math headers run on a GPU against the same functions run on the host: the first
// thing a CUDA twin relies on. Each function reports its largest difference in units in the last
// place (ulp). What must hold, as first measured on an H200 (BENCHMARKS.md, "GPU: first check"):
// - Philox bits and dropout are identical, so both backends drop the same elements.
// - Built with --fmad=false (as the CUDA twins will be), LayerNorm, RMSNorm and AdamW are
//   bit-identical too: they use only + - * / and sqrt, which IEEE rounds the same everywhere.
// - The GPU's erff/expf/tanhf differ from glibc's by a few ulps, so GELU and friends must agree to
//   1e-5 relative, plus 1e-6 absolute: 1 + erf(v/sqrt 2) and 1 + tanh(..) cancel for v < -4, where
//   one ulp of erf near -1 (6e-8) times |v| <= 8 is up to 5e-7 of absolute error on both sides.
// Built with --fmad=true (PRECIS_FMAD_CONTRACTED) nothing is required to be bit-identical but
// Philox: contracting a*b+c into one rounding moves LayerNorm's and RMSNorm's gradients (which
// cancel) by up to 5e4 ulps; gpu-check.sh prints that table for information.
// Needs a GPU; exits 2 with a message when none is present.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "precis/core/philox.h"
#include "precis/kernels/activation_math.h"
#include "precis/kernels/attention_math.h"
#include "precis/kernels/cross_entropy_math.h"
#include "precis/kernels/decoding_math.h"
#include "precis/kernels/dropout_math.h"
#include "precis/kernels/layernorm_math.h"
#include "precis/kernels/optimizer_math.h"
#include "precis/kernels/rms_norm_math.h"

#include "cuda_device_present.h"

using namespace precis;

namespace {

constexpr int kFunctions = 16;
const char* const kNames[kFunctions] = {
    "gelu_exact",     "gelu_exact_derivative", "gelu_tanh",      "gelu_fast",
    "tanh_gelu_deriv", "quick_gelu",           "quick_gelu_deriv", "layernorm_out_and_dx",
    "rms_norm_out_and_dx", "smoothed_loss_ce_grad", "adamw_param",  "adamw_moments",
    "philox_dropout",  "masked_softmax_row", "sampling_uniform", "adamw_masked_decay"};
#if defined(PRECIS_FMAD_CONTRACTED)
constexpr bool kContracted = true;
#else
constexpr bool kContracted = false;
#endif
// Must be bit-identical: Philox always; the functions of + - * / sqrt without contraction.
constexpr bool kExact[kFunctions] = {false, false, false, false, false, false, false,
                                     !kContracted, !kContracted, false, !kContracted,
                                     !kContracted, true, false, true, !kContracted};
constexpr int kRow = 37;  // softmax row length: odd, so no vector width hides an off-by-one

AdamWScalars adamw_scalars() {
  AdamWScalars s{};
  float lr = 5e-5f, wd = 0.01f, b1 = 0.9f, b2 = 0.999f;
  int step = 7;
  s.decay_factor = 1.0f - lr * wd;
  s.beta1 = b1, s.one_minus_beta1 = 1.0f - b1, s.beta2 = b2, s.one_minus_beta2 = 1.0f - b2;
  s.neg_step_size = -lr / (1.0f - std::pow(b1, float(step)));
  s.bias_correction2_sqrt = std::sqrt(1.0f - std::pow(b2, float(step)));
  s.eps = 1e-8f;
  return s;
}

// Every function of element i, written to out[f * n + i]; the same code runs on the host.
PRECIS_HOST_DEVICE void evaluate(const float* x, float* out, int64_t n, int64_t i, AdamWScalars s) {
  using namespace activation_math;
  float v = x[i], w = x[(i * 7 + 3) % n];
  out[0 * n + i] = gelu_exact(v);
  out[1 * n + i] = gelu_exact_derivative(v);
  out[2 * n + i] = gelu_tanh(v);
  out[3 * n + i] = gelu_fast(v);
  out[4 * n + i] = tanh_gelu_derivative(v, kSqrt2OverPi, kGeluCubic);
  out[5 * n + i] = sigmoid_gate(v, kQuickGeluA);
  out[6 * n + i] = sigmoid_gate_derivative(v, kQuickGeluA);
  float rstd = layernorm_math::rstd(double(v * v) * 3.0 + 1.0, 8.0, 1e-5f);
  out[7 * n + i] = layernorm_math::output(v, 0.25f, rstd, w, 0.5f) +
                   layernorm_math::input_gradient(w, 1.5f, v * rstd, rstd, 0.1f, 0.2f);
  float r = rms_norm_math::rstd(double(w * w) * 5.0 + 0.5, 8.0, 1e-6f);
  out[8 * n + i] = rms_norm_math::output(v, r, w) + rms_norm_math::input_gradient(w, 0.7f, v, r, 0.3f);
  out[9 * n + i] = float(cross_entropy_math::smoothed_loss(4.0 + v, w, 10.0 * v, 32.0, 0.1f)) +
                   cross_entropy_math::logit_gradient(std::exp(-std::fabs(v)), 0.5f, 0.01f);
  float param = v, m = 0.1f * w, sq = 0.01f * w * w;
  optimizer_math::adamw_step(param, 0.5f * w, m, sq, s);
  out[10 * n + i] = param;
  out[11 * n + i] = m + sq;
  uint32_t bits = philox::random_bits(42, 7, uint64_t(i));
  out[12 * n + i] = dropout_math::apply(v, bits, 429496730u, 1.0f / 0.9f) + float(bits >> 8);
  out[14 * n + i] = float(decoding_math::uniform(42, uint64_t(i), 7));
  uint32_t mask[2] = {bits, ~bits};
  float masked = v, m2 = 0.1f * w, sq2 = 0.01f * w * w;
  optimizer_math::adamw_step(masked, 0.5f * w, m2, sq2, s,
                             optimizer_math::decays(mask, i % 64) ? s.decay_factor : 1.0f);
  out[15 * n + i] = masked;
}

__global__ void evaluate_all(const float* x, float* out, int64_t n, AdamWScalars s) {
  int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < n) evaluate(x, out, n, i, s);
}

// Row r of the softmax function: scores from x, a key mask with gaps, causal limit r % kRow.
PRECIS_HOST_DEVICE void softmax_row(const float* x, float* out, int64_t n, int64_t r) {
  int32_t mask[kRow];
  float* row = out + 13 * n + r * kRow;
  for (int j = 0; j < kRow; ++j) {
    row[j] = 4.0f * x[(r * kRow + j) % n];
    mask[j] = (j + r) % 5 != 0;
  }
  attention_math::masked_softmax_row(row, kRow, mask, r % kRow);
}

__global__ void softmax_rows(const float* x, float* out, int64_t n, int64_t rows) {
  int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (r < rows) softmax_row(x, out, n, r);
}

int64_t ulps(float a, float b) {
  if (a == b) return 0;
  if (!std::isfinite(a) || !std::isfinite(b)) return INT64_MAX;
  int32_t ia, ib;
  std::memcpy(&ia, &a, 4), std::memcpy(&ib, &b, 4);
  if (ia < 0) ia = INT32_MIN - ia;
  if (ib < 0) ib = INT32_MIN - ib;
  return std::llabs(int64_t(ia) - int64_t(ib));
}

bool check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "shared_math_on_device: %s: %s\n", what, cudaGetErrorString(e));
  return false;
}

}  // namespace

int main() {
  if (!cuda_device_present("shared_math_on_device")) return 2;
  const int64_t n = 1 << 16, rows = n / kRow;
  std::vector<float> x(n);
  for (int64_t i = 0; i < n; ++i) x[i] = -8.0f + 16.0f * float((i * 2654435761u) % n) / float(n);
  AdamWScalars s = adamw_scalars();
  std::vector<float> host(size_t(kFunctions) * n, 0.0f), device(host.size(), 0.0f);
  for (int64_t i = 0; i < n; ++i) evaluate(x.data(), host.data(), n, i, s);
  for (int64_t r = 0; r < rows; ++r) softmax_row(x.data(), host.data(), n, r);

  float *dx = nullptr, *dout = nullptr;
  size_t out_bytes = host.size() * sizeof(float);
  if (!check(cudaMalloc(&dx, n * sizeof(float)), "cudaMalloc") ||
      !check(cudaMalloc(&dout, out_bytes), "cudaMalloc") ||
      !check(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice), "copy in") ||
      !check(cudaMemset(dout, 0, out_bytes), "memset"))
    return 1;
  evaluate_all<<<(n + 255) / 256, 256>>>(dx, dout, n, s);
  softmax_rows<<<(rows + 127) / 128, 128>>>(dx, dout, n, rows);
  if (!check(cudaGetLastError(), "launch") || !check(cudaDeviceSynchronize(), "kernels") ||
      !check(cudaMemcpy(device.data(), dout, out_bytes, cudaMemcpyDeviceToHost), "copy out"))
    return 1;
  cudaFree(dx), cudaFree(dout);

  bool ok = true;
  std::printf("%-22s %10s %12s %12s  %s\n", "function", "max ulps", "max abs", "max rel", "result");
  for (int f = 0; f < kFunctions; ++f) {
    int64_t count = f == 13 ? rows * kRow : n, worst_ulps = 0, failures = 0;
    double worst_abs = 0, worst_rel = 0;
    for (int64_t i = 0; i < count; ++i) {
      float h = host[f * n + i], d = device[f * n + i];
      double diff = std::fabs(double(h) - double(d));
      worst_ulps = std::max(worst_ulps, ulps(h, d));
      worst_abs = std::max(worst_abs, diff);
      if (std::fabs(h) > 1e-7) worst_rel = std::max(worst_rel, diff / std::fabs(h));
      bool good = kExact[f] ? h == d : diff <= 1e-5 * std::fabs(h) + 1e-6;
      if (!good && failures++ < 3)
        std::fprintf(stderr, "  %s[%lld]: host %.9g device %.9g\n", kNames[f], (long long)i, h, d);
    }
    std::printf("%-22s %10lld %12.3g %12.3g  %s%s\n", kNames[f], (long long)worst_ulps, worst_abs,
                worst_rel, failures ? "FAIL" : "ok", kExact[f] ? " (must be bit-identical)" : "");
    ok = ok && failures == 0;
  }
  std::printf("shared math on device: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
