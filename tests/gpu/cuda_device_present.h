// How the GPU check programs (tests/gpu/*_on_device.cu) start: without a CUDA device they say so
// and exit 2 (nothing was checked), not 1 (a check failed).
#pragma once

#include <cuda_runtime.h>

#include <cstdio>

// Whether a CUDA device is present; if not, "<program>: no CUDA device present" on stderr.
inline bool cuda_device_present(const char* program) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) return true;
  std::fprintf(stderr, "%s: no CUDA device present\n", program);
  return false;
}
