// PRECIS_HOST_DEVICE marks inline math that both backends run: the CPU kernels call it, and
// nvcc compiles the same function for the GPU (__host__ __device__). Empty elsewhere.
#pragma once

#if defined(__CUDACC__)
#define PRECIS_HOST_DEVICE __host__ __device__
#else
#define PRECIS_HOST_DEVICE
#endif
