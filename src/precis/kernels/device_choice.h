// Which device a job runs on: HF's choice (CUDA when a GPU is there) under precis's --device
// auto|cpu|cuda, with use_cpu / no_cuda already folded into "cpu" by the arguments' validation.
#pragma once

#include <string>

#include "precis/core/device.h"

namespace precis {

// `option` for a job of `world_size` processes, this one `local_rank` on its host:
// - "cpu": the CPU;
// - "cuda": GPU local_rank (modulo the GPUs visible), or an Error saying why there is none;
// - "auto": that GPU when there is one, else the CPU.
// Several processes on CUDA need the GPU communicator (NCCL, dist/device_collectives.h): in a
// build without it "cuda" with world_size > 1 is an Error, and "auto" then picks the CPU.
Device choose_device(const std::string& option, int local_rank, int world_size);

}  // namespace precis
