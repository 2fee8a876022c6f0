// The decoding step's linear layer, its two forms (kernels/cpu/linear_few_rows.h: weights read
// in place; kernels/cpu/linear_packed.h: weights packed once, the packing not timed) against
// the sgemm path (the bias copied into every row, then OpenBLAS's sgemm accumulating onto it),
// and `--quantization int8`'s kernel (kernels/cpu/linear_int8.h, on the CPU's best form; its
// quantization of the weight not timed, of the rows timed),
// on the products beam search runs: batch x beams rows of one token each, through the demo
// model's, bart-base's and bart-large's layers, and two encoder products for scale. The three
// run interleaved, best of five rounds each, on OMP_NUM_THREADS threads; prints GFLOP/s and the
// ratios to sgemm (the few-rows form takes 8 to 32 rows: 0 past that; the packed form and int8
// print 0 where the CPU cannot run them). Where the best int8 kernel is AMX-INT8, the
// AVX512-VNNI kernel runs too (interleaved), and the last column is AMX's rate over VNNI's.
//
//   build/bench/linear_rows_bench
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "precis/kernels/cpu/gemm.h"
#include "precis/kernels/cpu/linear_few_rows.h"
#include "precis/kernels/cpu/linear_int8.h"
#include "precis/kernels/cpu/linear_packed.h"

namespace {

struct Product {
  const char* what;
  int64_t rows, in, out;
};

const Product kProducts[] = {
    {"demo LM head, 32 x 8 beams", 256, 128, 8000},
    {"demo LM head, 8 x 8 beams", 64, 128, 8000},
    {"demo FFN up, 32 x 8 beams", 256, 128, 512},
    {"demo attention proj, 32 x 8", 256, 128, 128},
    {"bart-base q/k/v/o, 8 x 4 beams", 32, 768, 768},
    {"bart-base FFN up, 32 x 4 beams", 128, 768, 3072},
    {"bart-base FFN down, 32 x 4", 128, 3072, 768},
    {"bart-base LM head, 32 x 4 beams", 128, 768, 50265},
    {"bart-large FFN up, 8 x 4 beams", 32, 1024, 4096},
    {"bart-large FFN up, 32 x 4 beams", 128, 1024, 4096},
    {"bart-large FFN down, 64 x 4", 256, 4096, 1024},
    {"demo encoder FFN up, 32 x 40", 1280, 128, 512},
    {"bart-base encoder q, 8 x 128", 1024, 768, 768},
};

template <class F>
double seconds(F f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main() {
  using namespace precis::cpu;
  const FewRowsKernel kernel = few_rows_kernel();
  if (kernel == FewRowsKernel::kNone) {
    std::printf("this build or CPU has no AVX-512 or AVX2 form: sgemm runs\n");
    return 0;
  }
  const bool packed_runs = packed_linear_runs();
  std::printf("form: %s; int8: %s\n", kernel == FewRowsKernel::kAvx512 ? "AVX-512" : "AVX2",
              int8_kernel_name(int8_kernel()));
  const bool amx_and_vnni =
      int8_kernel() == Int8Kernel::kAmx && int8_kernel_runs(Int8Kernel::kAvx512Vnni);
  std::printf("%-34s %6s %6s %6s %10s %10s %10s %10s %7s %7s %7s %8s\n", "product", "rows", "in",
              "out", "sgemm", "few rows", "packed", "int8", "few/sg", "pack/sg", "int8/sg",
              amx_and_vnni ? "amx/vnni" : "");
  std::mt19937 gen(1);
  std::normal_distribution<float> normal;
  for (const Product& p : kProducts) {
    std::vector<float> x(size_t(p.rows * p.in)), w(size_t(p.out * p.in)), b(size_t(p.out)),
        y(size_t(p.rows * p.out));
    for (std::vector<float>* v : {&x, &w, &b})
      for (float& e : *v) e = normal(gen);
    const double flops = 2.0 * double(p.rows) * double(p.in) * double(p.out);
    const int reps = std::max(1, int(2e9 / flops));
    const PackedWeight packed = packed_runs ? pack_weight(w.data(), p.in, p.out) : PackedWeight{};
    const Int8Weight quantized =
        int8_linear_runs() ? quantize_weight(w.data(), p.in, p.out) : Int8Weight{};
    double best_sgemm = 1e30, best_kernel = 1e30, best_packed = 1e30, best_int8 = 1e30,
           best_vnni = 1e30;
    for (int round = 0; round < 5; ++round) {
      best_sgemm =
          std::min(best_sgemm, seconds([&] {
                     for (int i = 0; i < reps; ++i) {
                       for (int64_t r = 0; r < p.rows; ++r)
                         std::memcpy(y.data() + r * p.out, b.data(), sizeof(float) * p.out);
                       gemm(false, true, p.rows, p.out, p.in, 1.0f, x.data(), p.in, w.data(), p.in,
                            1.0f, y.data(), p.out);
                     }
                   }));
      if (p.rows <= kFewRowsMax)
        best_kernel = std::min(best_kernel, seconds([&] {
                                 for (int i = 0; i < reps; ++i)
                                   linear_few_rows(kernel, x.data(), w.data(), b.data(), y.data(),
                                                   p.rows, p.in, p.out);
                               }));
      if (packed_runs)
        best_packed = std::min(best_packed, seconds([&] {
                                 for (int i = 0; i < reps; ++i)
                                   linear_packed(packed, x.data(), b.data(), y.data(), p.rows);
                               }));
      if (int8_linear_runs())
        best_int8 = std::min(best_int8, seconds([&] {
                               for (int i = 0; i < reps; ++i)
                                 linear_int8(quantized, x.data(), b.data(), y.data(), p.rows);
                             }));
      if (amx_and_vnni)
        best_vnni = std::min(best_vnni, seconds([&] {
                               for (int i = 0; i < reps; ++i)
                                 linear_int8(Int8Kernel::kAvx512Vnni, quantized, x.data(), b.data(),
                                             y.data(), p.rows);
                             }));
    }
    const double sgemm_rate = flops * reps / best_sgemm / 1e9,
                 kernel_rate = flops * reps / best_kernel / 1e9,
                 packed_rate = flops * reps / best_packed / 1e9,
                 int8_rate = flops * reps / best_int8 / 1e9;
    std::printf("%-34s %6ld %6ld %6ld %10.1f %10.1f %10.1f %10.1f %6.2fx %6.2fx %6.2fx", p.what,
                long(p.rows), long(p.in), long(p.out), sgemm_rate, kernel_rate, packed_rate,
                int8_rate, kernel_rate / sgemm_rate, packed_rate / sgemm_rate,
                int8_rate / sgemm_rate);
    if (amx_and_vnni) std::printf(" %7.2fx", best_vnni / best_int8);
    std::printf("\n");
  }
  return 0;
}
