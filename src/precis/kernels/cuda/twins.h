// The CUDA backend's table (kernels_cuda.h) and who fills it: each launcher file
// (cuda/<op>_cuda.cu) adds its op's twins. The same launchers are built by nvcc for the GPU
// and as host C++ for the kernel emulator of the tests.
#pragma once

#include "precis/kernels/cuda/kernels_cuda.h"

namespace precis::cuda {

// Every twin this build has, and device memory and copies (memory_cuda.cu).
const Kernels& twins();

void add_memory_twins(Kernels& k);
void add_fill_twins(Kernels& k);
void add_elementwise_twins(Kernels& k);
void add_linear_twins(Kernels& k);
void add_optimizer_twins(Kernels& k);
void add_grad_norm_twins(Kernels& k);
void add_layernorm_twins(Kernels& k);
void add_rms_norm_twins(Kernels& k);
void add_activation_twins(Kernels& k);
void add_dropout_twins(Kernels& k);
void add_convert_twins(Kernels& k);

}  // namespace precis::cuda
