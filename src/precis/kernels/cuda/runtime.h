// What the launchers ask of the CUDA runtime, in the few calls they use: device memory, copies
// and fills in stream order, a scratch buffer, and waiting for a stream. runtime.cu
// implements them with the CUDA runtime; the kernel emulator of the tests with host memory
// (tests/emulator/runtime_emulated.cpp), so every launcher runs unchanged in both.
#pragma once

#include <cstddef>

#include "precis/core/device.h"

namespace precis::cuda {

// Device memory of GPU `device` (throws Error naming the size when out of memory); free.
void* device_malloc(int device, size_t bytes);
void device_free(int device, void* p);

// bytes from src to dst (host or device memory, either way) in the stream's order.
void copy_async(void* dst, const void* src, size_t bytes, Stream s);
void memset_async(void* p, int value, size_t bytes, Stream s);
// Returns when the stream's work so far is done (and its host-bound copies have landed).
void synchronize(Stream s);

// A device buffer of at least `bytes` for a launch's partial results (reductions), one per
// device, grown on first need and reused: work on one stream uses it in order. Not for
// results that outlive the launch's synchronize.
void* scratch(Stream s, size_t bytes);

}  // namespace precis::cuda
