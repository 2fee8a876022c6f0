// Which CUDA backend the GPU benches run on: the GPU's own (cuda/twins.h), or, in their counted
// build (PRECIS_COUNTED_GPU: the same sources linked with bench/gpu/counting/), the cost
// model's counting backend, which records one measured step or run instead of running it
// (scripts/gpu-model.sh).
#pragma once

#include <cstdlib>
#include <string>

#if defined(PRECIS_COUNTED_GPU)
#include "counting/counting.h"
#else
#include "precis/kernels/cuda/twins.h"
#endif

namespace precis::bench {

#if defined(PRECIS_COUNTED_GPU)
inline constexpr bool kCounted = true;
inline bool install_gpu() {
  counting::install();
  return true;
}
inline void measurement_starts() { counting::start_recording(); }
// Writes the records to $PRECIS_COUNT_OUT (launches.jsonl unless set), under `label`.
inline void measurement_ends(const std::string& label) {
  counting::stop_recording();
  const char* out = std::getenv("PRECIS_COUNT_OUT");
  counting::write_records(out && *out ? out : "launches.jsonl", label);
}
#else
inline constexpr bool kCounted = false;
inline bool install_gpu() { return cuda::install_if_gpu_present() > 0; }
inline void measurement_starts() {}
inline void measurement_ends(const std::string&) {}
#endif

}  // namespace precis::bench
