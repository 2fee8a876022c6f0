// The precision of the CPU's matrix products (linear layers, attention), as torch's
// set_float32_matmul_precision: fp32 (the default, exact against transformers), or bf16
// operands with fp32 sums, for `--bf16` on the CPU. Process-wide, set by the trainer for a
// bf16 job; a scope restores the previous precision.
#pragma once

#include <string>

namespace precis {

enum class MatmulPrecision { kFp32, kBf16 };

void set_cpu_matmul_precision(MatmulPrecision precision);
MatmulPrecision cpu_matmul_precision();

// What bf16 products run on here, for the job's log: AMX tiles, or emulation where the CPU has
// no AMX-BF16 (then slower than fp32, with bf16's rounding).
std::string cpu_bf16_matmul_description();

class ScopedCpuMatmulPrecision {
 public:
  explicit ScopedCpuMatmulPrecision(MatmulPrecision precision)
      : previous_(cpu_matmul_precision()) {
    set_cpu_matmul_precision(precision);
  }
  ~ScopedCpuMatmulPrecision() { set_cpu_matmul_precision(previous_); }
  ScopedCpuMatmulPrecision(const ScopedCpuMatmulPrecision&) = delete;
  ScopedCpuMatmulPrecision& operator=(const ScopedCpuMatmulPrecision&) = delete;

 private:
  MatmulPrecision previous_;
};

}  // namespace precis
