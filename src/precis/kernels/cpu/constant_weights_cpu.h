// The CPU's side of ConstantWeightsScope (kernels/constant_weights.h): the copies a scope keeps
// of the weights in its memory, made on first use.
#pragma once

#include <cstdint>

#include "precis/kernels/cpu/gemm.h"
#include "precis/kernels/cpu/linear_int8.h"
#include "precis/kernels/cpu/linear_packed.h"

namespace precis::cpu {

// The fp32 panels of w (out, in) when a scope on this thread holds w's memory and quantizes
// nothing (the fp32 path's packs); null otherwise.
const PackedWeight* constant_packed_weight(const float* w, int64_t in, int64_t out);

// The int8 copy of w when a scope on this thread holds w's memory and quantizes to int8 on a
// CPU that runs the int8 kernel; null otherwise.
const Int8Weight* constant_int8_weight(const float* w, int64_t in, int64_t out);

// The AMX-packed bf16 copy of w when a scope on this thread holds w's memory and either
// quantizes to bf16 or quantizes nothing while the matmul precision is bf16, on a CPU whose
// bf16 path is AMX; null otherwise.
const Bf16Weight* constant_bf16_weight(const float* w, int64_t in, int64_t out);

}  // namespace precis::cpu
