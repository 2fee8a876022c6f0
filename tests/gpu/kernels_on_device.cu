// The CUDA twins' first kernels (src/precis/kernels/cuda/*.cuh) on a GPU, against the CPU
// kernels' arithmetic run here on the host (the same optimizer_math.h step, without
// contraction): the fused, masked AdamW must be bit-identical, and the sum of squares within
// n·2^-53 of a long-double sum. And the tensor-core product's register layout (kernels/cuda/
// mma.cuh), which the emulator implements as documented: D of one m16n8k16 by the documented
// layout, against the host's product. The kernel emulator runs the same bodies in CI
// (tests/unit/emulator/, over tests/emulator/); this is the GPU's confirmation. Built by scripts/gpu-check.sh
// with --fmad=false. Exits 2 with a message when no GPU is present.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "precis/kernels/convert_math.h"
#include "precis/kernels/cuda/grad_norm_kernels.cuh"
#include "precis/kernels/cuda/optimizer_kernels.cuh"

#include "cuda_device_present.h"
#include "mma_tile_kernel.cuh"

using namespace precis;

namespace {

bool ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "kernels_on_device: %s: %s\n", what, cudaGetErrorString(e));
  return false;
}

template <class T>
T* upload(const std::vector<T>& host) {
  T* device = nullptr;
  if (!ok(cudaMalloc(&device, host.size() * sizeof(T)), "cudaMalloc") ||
      !ok(cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "upload"))
    return nullptr;
  return device;
}

template <class T>
bool download(std::vector<T>& host, const T* device) {
  return ok(cudaMemcpy(host.data(), device, host.size() * sizeof(T), cudaMemcpyDeviceToHost), "download");
}

AdamWScalars scalars_at(int64_t t) {
  const double lr = 1e-3, b1 = 0.9, b2 = 0.999, wd = 0.1;
  return {float(1.0 - lr * wd), float(b1), float(1.0 - b1), float(b2), float(1.0 - b2),
          float(-(lr / (1.0 - std::pow(b1, double(t))))),
          float(std::sqrt(1.0 - std::pow(b2, double(t)))), float(1e-8)};
}

// 5 steps of the masked AdamW over n elements (a mask with runs and single bits), on the GPU
// with 4 blocks of 128 threads (a grid-stride loop), and on the host element by element.
bool adamw_matches(int64_t n) {
  const size_t count = static_cast<size_t>(n);
  std::vector<float> p(count), g(count), m(count, 0.0f), v(count, 0.0f);
  std::vector<uint32_t> mask(static_cast<size_t>((n + 31) / 32));
  uint32_t state = 12345;
  auto next = [&] { state = state * 1664525u + 1013904223u; return state; };
  for (auto& x : p) x = float(int32_t(next())) * 0x1p-31f;
  for (auto& w : mask) w = next() | 0x0000FFFFu;
  float *dp = upload(p), *dg = nullptr, *dm = upload(m), *dv = upload(v);
  uint32_t* dmask = upload(mask);
  std::vector<float> hp = p, hm = m, hv = v;
  for (int64_t t = 1; t <= 5; ++t) {
    for (auto& x : g) x = float(int32_t(next())) * 0x1p-34f;
    if (dg) cudaFree(dg);
    dg = upload(g);
    const AdamWScalars s = scalars_at(t);
    cuda::adamw_kernel<<<4, 128>>>(dp, dg, dm, dv, dmask, n, s);
    if (!ok(cudaGetLastError(), "adamw launch")) return false;
    for (int64_t i = 0; i < n; ++i) {
      const float decay = optimizer_math::decays(mask.data(), i) ? s.decay_factor : 1.0f;
      optimizer_math::adamw_step(hp[size_t(i)], g[size_t(i)], hm[size_t(i)], hv[size_t(i)], s, decay);
    }
  }
  std::vector<float> gp(count), gm(count), gv(count);
  if (!download(gp, dp) || !download(gm, dm) || !download(gv, dv)) return false;
  int64_t differing = 0;
  for (int64_t i = 0; i < n; ++i)
    differing += gp[size_t(i)] != hp[size_t(i)] || gm[size_t(i)] != hm[size_t(i)] ||
                 gv[size_t(i)] != hv[size_t(i)];
  std::printf("adamw_kernel (masked, 5 steps, %lld elements): %lld differ from the host\n",
              (long long)n, (long long)differing);
  cudaFree(dp), cudaFree(dg), cudaFree(dm), cudaFree(dv), cudaFree(dmask);
  return differing == 0;
}

bool sum_of_squares_matches(int64_t n) {
  std::vector<float> x(static_cast<size_t>(n));
  uint32_t state = 777;
  for (auto& e : x) e = float(int32_t(state = state * 1664525u + 1013904223u)) * 0x1p-30f;
  const int64_t blocks = cuda::sum_of_squares_blocks(n);
  float* dx = upload(x);
  double* dpartials = nullptr;
  if (!dx || !ok(cudaMalloc(&dpartials, size_t(blocks) * sizeof(double)), "cudaMalloc")) return false;
  cuda::sum_of_squares_partials<<<unsigned(blocks), cuda::kSumThreads>>>(dx, n, dpartials);
  std::vector<double> partials(static_cast<size_t>(blocks));
  if (!ok(cudaGetLastError(), "sum launch") || !download(partials, dpartials)) return false;
  double total = 0.0;
  for (double s : partials) total += s;
  long double exact = 0.0L;
  for (float e : x) exact += (long double)e * e;
  const double rel = std::fabs(total - double(exact)) / double(exact), bound = double(n) * 0x1p-53;
  std::printf("sum_of_squares_partials (%lld elements, %lld blocks): %.1e of the long-double sum (bound %.1e)\n",
              (long long)n, (long long)blocks, rel, bound);
  cudaFree(dx), cudaFree(dpartials);
  return rel <= bound;
}

// One warp's m16n8k16 in bf16 or fp16 (mma_tile_kernel.cuh), D against A·B + C on the host:
// each element within the fp32 rounding of its 17 terms. A wrong layout puts whole products in
// the wrong places, far outside that.
template <class T>
bool mma_matches(uint16_t (*to_bits)(float), float (*from_bits)(uint16_t), const char* name) {
  std::vector<uint16_t> a(16 * 16), b(16 * 8);
  std::vector<float> c(16 * 8), d(16 * 8);
  uint32_t state = 4242;
  auto next = [&] { state = state * 1664525u + 1013904223u; return float(int32_t(state)) * 0x1p-30f; };
  for (auto& x : a) x = to_bits(next());
  for (auto& x : b) x = to_bits(next());
  for (auto& x : c) x = next();
  uint16_t *da = upload(a), *db = upload(b);
  float *dc = upload(c), *dd = upload(d);
  cuda::mma_tile_kernel<T><<<1, 32>>>(da, db, dc, dd);
  if (!ok(cudaGetLastError(), "mma launch") || !download(d, dd)) return false;
  int wrong = 0;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      double exact = c[size_t(i * 8 + j)], magnitude = std::fabs(exact);
      for (int k = 0; k < 16; ++k) {
        const double term = double(from_bits(a[size_t(i * 16 + k)])) * double(from_bits(b[size_t(k * 8 + j)]));
        exact += term;
        magnitude += std::fabs(term);
      }
      wrong += std::fabs(d[size_t(i * 8 + j)] - exact) > 17 * 0x1p-24 * magnitude;
    }
  std::printf("mma m16n8k16 %s: %d of 128 elements of D outside the fp32 rounding of A·B + C\n", name, wrong);
  cudaFree(da), cudaFree(db), cudaFree(dc), cudaFree(dd);
  return wrong == 0;
}

}  // namespace

int main() {
  if (!cuda_device_present("kernels_on_device")) return 2;
  bool pass = adamw_matches(1000003) & sum_of_squares_matches(int64_t(1) << 24 | 12345) &
              mma_matches<cuda::bf16>(convert_math::to_bf16, convert_math::from_bf16, "bf16") &
              mma_matches<cuda::f16>(convert_math::to_f16, convert_math::from_f16, "fp16");
  pass = pass && ok(cudaDeviceSynchronize(), "synchronize");
  std::printf("kernels on device: %s\n", pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}
