// The GPU cost model's counting backend: the CUDA twins' launchers (kernels/cuda/*.cu, compiled
// as host C++ with PRECIS_CUDA_COUNTING) record every kernel launch with its grid, block and
// declared cost (launch_cost.h), every GEMM with its shape and types, every copy, fill and
// host synchronisation, and run nothing. Device memory is address space only (reserved, never
// touched), so bart-large trains a step at batch 32 here in about a second; what the host
// reads back from the device is zeros.
//
// The records are aggregated (identical launches counted once with their number) and written
// as JSON lines for bench/gpu/cost_model.py, which prices them (scripts/gpu-model.sh).
#pragma once

#include <string>

namespace precis::counting {

// Installs this backend as the CUDA backend of the process (one device, cuda:0).
void install();

// Records from now on (nothing before: a bench's set-up and warm-up are not its step), until
// stop_recording.
void start_recording();
void stop_recording();

// Writes the records (and the peak of reserved device memory) to `path` as JSON lines, each
// with `label`.
void write_records(const std::string& path, const std::string& label);

}  // namespace precis::counting
