// PRECIS_HOST_DEVICE marks inline math that both backends run: the CPU kernels call it, and
// nvcc compiles the same function for the GPU (__host__ __device__). Empty elsewhere.
//
// PRECIS_KERNEL marks a CUDA kernel's body in kernels/cuda/*.cuh: a __global__ function of
// each translation unit that includes it under nvcc (static: the launchers of several .cu
// files include one header); an inline function elsewhere, which the kernel emulator of the
// tests (tests/emulator/) runs with a fiber per CUDA thread.
#pragma once

// PRECIS_DEVICE marks a helper only kernels call (a block reduction with __syncthreads):
// __device__ under nvcc, inline elsewhere (the emulator runs it on the host).
#if defined(__CUDACC__)
#define PRECIS_HOST_DEVICE __host__ __device__
#define PRECIS_DEVICE static __device__
#define PRECIS_KERNEL static __global__
#else
#define PRECIS_HOST_DEVICE
#define PRECIS_DEVICE inline
#define PRECIS_KERNEL inline
#endif

// PRECIS_SHARED(type, name) declares a kernel's shared memory: `__shared__ type name` under nvcc
// (`PRECIS_SHARED(double[256], lanes)` for an array). The kernel emulator of the tests defines
// it first (tests/emulator/emulator.h): a static it counts, so that a block over 48 KiB of
// static shared memory, which ptxas refuses, fails there too.
namespace precis {
template <class T>
using SharedOf = T;
}  // namespace precis
#if defined(__CUDACC__)
#define PRECIS_SHARED(type, name) __shared__ ::precis::SharedOf<type> name
#elif !defined(PRECIS_SHARED)
#define PRECIS_SHARED(type, name) static ::precis::SharedOf<type> name
#endif
