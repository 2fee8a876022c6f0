// A vector's lanes summed in one fixed tree: the upper half onto the lower, then again, down to
// one lane. The decoding kernels end each dot product with it, so their bits depend on the
// vector width alone (16 lanes reduce to 8 first, then as 8).
#pragma once

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace precis::cpu {

#if defined(__AVX__)
inline float lane_sum(__m256 eight) {
  const __m128 four = _mm_add_ps(_mm256_castps256_ps128(eight), _mm256_extractf128_ps(eight, 1));
  const __m128 two = _mm_add_ps(four, _mm_movehl_ps(four, four));
  return _mm_cvtss_f32(_mm_add_ss(two, _mm_movehdup_ps(two)));
}
#endif

#if defined(__AVX512F__)
// Through memory: GCC 12's 512-bit shuffle and extract intrinsics warn of an uninitialised
// operand.
inline float lane_sum(__m512 sixteen) {
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sixteen);
  return lane_sum(_mm256_add_ps(_mm256_load_ps(lanes), _mm256_load_ps(lanes + 8)));
}
#endif

}  // namespace precis::cpu
