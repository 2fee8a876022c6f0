// Which backend runs an op: the device its tensors are on. Each op.cpp checks shapes, asks
// op_device, and switches on the kind to its twin in cpu/ (and, with the CUDA backend,
// cuda/); a kind with no twin in this build ends in no_backend.
#pragma once

#include <initializer_list>

#include "precis/core/tensor.h"

namespace precis {

// The device of an op's tensors, which must all be on one device (moving data between devices
// is an op of its own: copy, kernels/copy.h). Tensors without memory (not given, or empty) do
// not count; with none at all, the current device.
Device op_device(const char* op, std::initializer_list<const Tensor*> tensors);

// The stream an op on device d launches on: the current one when it is d's, else d's default.
Stream op_stream(Device d);

// Throws the error for `op` on a device this build has no kernels for.
[[noreturn]] void no_backend(const char* op, Device device);

}  // namespace precis
