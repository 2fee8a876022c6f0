// The second launch of a column sum (column_sums.cuh), shared by the launchers whose parameter
// gradients sum over rows: out[c] += Σ_chunk partials[chunk, c].
#pragma once

#include <cstdint>

#include "precis/core/device.h"

namespace precis::cuda {

void add_column_partials(const double* partials, int64_t chunks, int64_t cols, float* out, Stream s);

}  // namespace precis::cuda
