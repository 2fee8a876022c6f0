// Moving data: whole tensors (also between devices), and the row moves of the decoder's
// key/value cache, which beam search reorders and every step extends.
#pragma once

#include <cstdint>
#include <span>

#include "precis/core/tensor.h"

namespace precis {

// dst = src: the same element count and dtype, on any two devices (a host <-> GPU transfer is
// this op). No-op when both are the same memory.
void copy(const Tensor& src, const Tensor& dst);

// dst[r, :Ts] = src[rows[r]] for src (Rs, Ts, W) and dst (Rd, Td, W), Td >= Ts: each of dst's
// Rd rows takes the positions of the source row the beam search chose (rows[r] in [0, Rs));
// empty `rows` means rows[r] = r. Positions Ts.. of dst are left as they are. src and dst must
// not overlap. The indices are on the host (the backend uploads them).
void gather_rows(const Tensor& src, std::span<const int32_t> rows, const Tensor& dst);

// cache[r, position] = values[r] for cache (R, T, W) and values (R, W): a decoding step's keys
// or values appended at the position it decodes.
void append_rows(const Tensor& values, int64_t position, const Tensor& cache);

}  // namespace precis
