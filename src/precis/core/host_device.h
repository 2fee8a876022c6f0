// PRECIS_HOST_DEVICE marks inline math that both backends run: the CPU kernels call it, and
// nvcc compiles the same function for the GPU (__host__ __device__). Empty elsewhere.
//
// PRECIS_KERNEL marks a CUDA kernel's body in kernels/cuda/*.cuh: __global__ under nvcc; a
// plain function elsewhere, which the kernel emulator of the tests (tests/unit/cuda_emulation/)
// runs with one host thread per CUDA thread.
#pragma once

#if defined(__CUDACC__)
#define PRECIS_HOST_DEVICE __host__ __device__
#define PRECIS_KERNEL __global__
#else
#define PRECIS_HOST_DEVICE
#define PRECIS_KERNEL
#endif
