// Which of OpenBLAS's kernels ("cores") runs precis's sgemm, and whether the CPU could run a
// better one.
//
// OpenBLAS built with DYNAMIC_ARCH (Debian's) picks its kernels at load by CPU model. A CPU
// newer than the library (Debian 12's 0.3.21 on Emerald Rapids, family 6 model 207) gets its
// oldest x86-64 kernel, Prescott (SSE3), silently: 2.5-2.9x slower than the AVX-512 ones, with
// nothing said. The core is fixed when the library loads, so the only remedy from inside the
// process is to set OPENBLAS_CORETYPE and start again: choose_blas_core does that once, before
// any work, and the restarted process says what was done (blas_report).
#pragma once

#include <string>
#include <vector>

namespace precis::cpu {

// What CPUID (and the kernel's saved-state mask, XCR0) say this CPU can run.
struct CpuIsa {
  std::string model;  // "Intel(R) Xeon(R) Platinum 8581C CPU @ 2.10GHz (family 6 model 207)"
  bool avx2_fma = false;
  bool avx512 = false;       // F, BW, VL and DQ: what OpenBLAS's SkylakeX kernels use
  bool avx512_bf16 = false;  // Cooperlake's
  bool amx_bf16 = false;     // SapphireRapids'
};
CpuIsa detect_cpu_isa();

// OpenBLAS core names for a CPU with these flags, best first: the ones to try, in order.
std::vector<std::string> blas_cores_for(const CpuIsa& isa);
// How much of the x86-64 ISA an OpenBLAS core's kernels use: 0 SSE only (Prescott, Core2,
// Nehalem, Atom, Barcelona, unknown), 1 AVX, 2 AVX2 (Haswell, Zen), 3 AVX-512 (SkylakeX),
// 4 AVX512-BF16 (Cooperlake), 5 AMX (SapphireRapids).
int blas_core_level(const std::string& core);

// The BLAS library this process runs, as the job log and `precis info` name it.
struct BlasReport {
  std::string library;   // "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ... (openblas_get_config)"
  std::string core;      // the core in use (openblas_get_corename)
  std::string chose;     // who chose it: "OpenBLAS", "OPENBLAS_CORETYPE (yours)", "precis"
  std::string note;      // a line for the log, empty when OpenBLAS chose well by itself
  CpuIsa cpu;
  std::string text() const;  // one line: library, core, who chose it, CPU
};
BlasReport blas_report();

// At a program's start: when OpenBLAS chose a core below what the CPU can run and neither the
// user (OPENBLAS_CORETYPE) nor PRECIS_BLAS_CHECK=off says otherwise, sets OPENBLAS_CORETYPE to
// the next candidate of blas_cores_for and re-executes the program (execv of the file
// /proc/self/exe names, with argv), at most once per candidate; returns when there is nothing better to do.
// PRECIS_BLAS_CHECK=force treats a given OPENBLAS_CORETYPE as if OpenBLAS had chosen it (tests
// fake an old library on any CPU with OPENBLAS_CORETYPE=Prescott).
void choose_blas_core(char** argv);

}  // namespace precis::cpu
