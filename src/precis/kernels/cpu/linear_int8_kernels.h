// What one instruction set contributes to linear_int8 (linear_int8.h): how a row of activations
// becomes bytes, and a block of rows against one panel of 32 output columns. Every kernel sums
// the same integers exactly and ends with the same float expression, so they give the same bits;
// linear_int8.cpp lays the rows out, splits the work and picks the kernel the CPU can run.
//
// Each kernel is compiled for its instruction set with a target attribute on its own functions,
// not a flag on its file: a file-wide -mavx512f would let the compiler emit the standard
// library's inline templates with AVX-512 in that unit, and the linker may keep that copy for
// the whole library.
#pragma once

#include <cstdint>

#include "precis/kernels/cpu/linear_int8.h"

namespace precis::cpu {

struct Int8RowsKernel {
  // Rows as q + 128 (unsigned, vpdpbusd's first operand; 128 past `in`), else q itself (0 past
  // `in`). The weight's shift_sum comes off the sums of shifted rows.
  bool shifted;
  int block_rows;  // the most rows one block call takes
  // One row's scale t and its `n` bytes (quantize_row's q, shifted or not).
  float (*quantize_row)(const float* x, int64_t n, uint8_t* bytes);
  // y rows 0 .. rows - 1 (of w.out floats), columns n0 .. n0 + width (width <= 32), from `panel`
  // and the rows' bytes (`stride` apart) with their scales t; b may be null.
  void (*block)(int rows, const int8_t* panel, const uint8_t* bytes, int64_t stride, const float* t,
                const Int8Weight& w, const float* b, float* y, int64_t n0, int64_t width);
  // Each thread's set-up before its blocks and clean-up after them (AMX's tile configuration),
  // or null.
  void (*begin_thread)() = nullptr;
  void (*end_thread)() = nullptr;
};

// Null where this compiler cannot build the kernel (not x86-64); the CPU is asked elsewhere.
// AMX's needs the tile state granted first (int8_kernel_runs(kAmx) asks).
const Int8RowsKernel* int8_amx_rows();
const Int8RowsKernel* int8_avx512_vnni_rows();
const Int8RowsKernel* int8_avx2_rows();

}  // namespace precis::cpu
