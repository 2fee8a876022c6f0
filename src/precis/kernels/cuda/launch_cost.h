// What a kernel launch costs, declared by its launcher beside the launch: the bytes it moves
// to and from device memory and the arithmetic it does. The GPU cost model
// (scripts/gpu-model.sh) prices these records without running anything; the kernel emulator
// checks them against the pages each launch really touches (tests/unit/emulator/
// test_launch_costs.cpp), so a declaration cannot drift from its kernel.
//
// Bytes are the launch's footprint in device memory: each byte read counted once however
// often the kernel reads it (what caches can make of repeated reads is the model's business,
// not the declaration's), each byte written once. FLOPs count a multiply-add as 2, on the CUDA
// cores (flops) or on the tensor cores (tensor_flops).
#pragma once

#include <cstdint>

namespace precis::cuda {

struct LaunchCost {
  double read_bytes = 0;
  double written_bytes = 0;
  double flops = 0;
  double tensor_flops = 0;
};

// Declares the cost of the next launch (PRECIS_LAUNCH*) on this thread. Nothing on a GPU; the
// counting backend puts it on the launch's record; the emulator keeps it for its check.
void declare_cost(const LaunchCost& cost);

// The common case: n elements read from `reads` arrays and written to `writes` arrays of
// `element` bytes, `flops_per_element` operations each.
inline LaunchCost elementwise_cost(int64_t n, int reads, int writes, size_t element,
                                   double flops_per_element = 1) {
  return {double(n) * reads * double(element), double(n) * writes * double(element),
          double(n) * flops_per_element, 0};
}

}  // namespace precis::cuda
