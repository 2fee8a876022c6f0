// The CUDA backend's table (kernels_cuda.h) and who fills it: each launcher file
// (cuda/<op>_cuda.cu) adds its op's twins. The same launchers are built by nvcc for the GPU
// and as host C++ for the kernel emulator of the tests.
#pragma once

#include "precis/kernels/cuda/kernels_cuda.h"

namespace precis::cuda {

// Every twin this build has, and device memory and copies (memory_cuda.cu).
const Kernels& twins();

// The real backend (runtime.cu, nvcc builds only): installs twins() when the CUDA runtime
// sees a GPU; returns how many it sees (0: nothing installed, with no error).
int install_if_gpu_present();

void add_memory_twins(Kernels& k);
void add_fill_twins(Kernels& k);
void add_elementwise_twins(Kernels& k);
void add_linear_twins(Kernels& k);
void add_optimizer_twins(Kernels& k);
void add_grad_norm_twins(Kernels& k);
void add_attention_twins(Kernels& k);
void add_embedding_twins(Kernels& k);
void add_cross_entropy_twins(Kernels& k);
void add_token_ids_twins(Kernels& k);
void add_relative_position_twins(Kernels& k);
void add_layernorm_twins(Kernels& k);
void add_rms_norm_twins(Kernels& k);
void add_activation_twins(Kernels& k);
void add_dropout_twins(Kernels& k);
void add_convert_twins(Kernels& k);
void add_decoding_twins(Kernels& k);

}  // namespace precis::cuda
