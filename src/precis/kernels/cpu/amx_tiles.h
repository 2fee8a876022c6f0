// The tile configuration both AMX kernels use (cpu/gemm_bf16_amx.cpp, cpu/linear_int8_amx.cpp):
// eight tiles of 16 rows x 64 bytes, which hold four 16 x 16 fp32 or int32 accumulators, two
// strips of A and two of B. Only files built with -mamx-tile include it.
#pragma once

#include <cstdint>

namespace precis::cpu {

// Loads the configuration for this thread (until _tile_release or the next load).
inline void configure_amx_tiles_16x64() {
  struct TileConfig {
    uint8_t palette = 1;
    uint8_t start_row = 0;
    uint8_t reserved[14] = {};
    uint16_t colsb[16] = {};
    uint8_t rows[16] = {};
  } config;
  for (int t = 0; t < 8; ++t) config.rows[t] = 16, config.colsb[t] = 64;
  // GCC 12's _tile_loadconfig tells the compiler that it reads 8 bytes of the configuration, and
  // the compiler then drops the stores to the rest (ldtilecfg faults on what is left there): the
  // instruction with the whole configuration as its operand.
  asm volatile("ldtilecfg %0" ::"m"(config));
}

}  // namespace precis::cpu
