#include "precis/kernels/matmul_precision.h"

#include <atomic>

#include "precis/kernels/cpu/gemm.h"

namespace precis {

namespace {
std::atomic<MatmulPrecision> cpu_precision{MatmulPrecision::kFp32};
}

void set_cpu_matmul_precision(MatmulPrecision precision) { cpu_precision.store(precision); }

MatmulPrecision cpu_matmul_precision() { return cpu_precision.load(std::memory_order_relaxed); }

std::string cpu_bf16_matmul_description() {
  if (cpu::bf16_path() == cpu::Bf16Path::kAmx)
    return "bf16 matrix products on AMX tiles, fp32 sums";
  if (cpu::amx_bf16_usable())
    return "bf16 matrix products emulated as PRECIS_CPU_BF16=emulate asks (operands rounded to "
           "bf16, fp32 sgemm), slower than fp32";
  return "this CPU has no AMX-BF16 (or the kernel refused its tile state): bf16 matrix products "
         "are emulated (operands rounded to bf16, fp32 sgemm), slower than fp32";
}

}  // namespace precis
