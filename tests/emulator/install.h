// The CUDA backend as the tests run it without a GPU: the launchers of
// src/precis/kernels/cuda/*.cu compiled as host C++ over the kernel emulator
// (emulator.h), cuda/runtime.h on host memory and cuda/blas.h on a loop with cuBLAS's
// semantics. After install(), cuda:0 is a device whose ops run the CUDA twins' code.
#pragma once

namespace precis::cuda_emulation {

// Installs the emulated backend (idempotent).
void install();

}  // namespace precis::cuda_emulation
