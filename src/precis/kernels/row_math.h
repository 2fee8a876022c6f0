// Reductions over a row that vectorise and still sum in one order: element j goes to lane
// j % kRowLanes, and the lanes combine in one fixed tree at the end, so the bits do not depend on
// the vector width or -march, and the loops vectorise (a single running max or sum cannot: each
// step would wait for the one before). The softmax rows of attention and of beam search's
// log-probabilities, and cross-entropy's rows over the vocabulary, take their sums here.
#pragma once

#include <algorithm>
#include <cstdint>

#include "precis/core/host_device.h"
#include "precis/kernels/exp_math.h"

namespace precis::row_math {

constexpr int kRowLanes = 8;

// max of row[0..n) (n >= 1); exact in any order.
PRECIS_HOST_DEVICE inline float row_max(const float* row, int64_t n) {
  float lane[kRowLanes];
  for (int l = 0; l < kRowLanes; ++l) lane[l] = row[0];
  int64_t j = 0;
  for (; j + kRowLanes <= n; j += kRowLanes)
    for (int l = 0; l < kRowLanes; ++l) lane[l] = row[j + l] > lane[l] ? row[j + l] : lane[l];
  for (int l = 0; j + l < n; ++l) lane[l] = row[j + l] > lane[l] ? row[j + l] : lane[l];
  float max = lane[0];
  for (int l = 1; l < kRowLanes; ++l) max = lane[l] > max ? lane[l] : max;
  return max;
}

// Σ row[0..n) in double, lane by lane.
PRECIS_HOST_DEVICE inline double row_sum(const float* row, int64_t n) {
  double lane[kRowLanes] = {};
  int64_t j = 0;
  for (; j + kRowLanes <= n; j += kRowLanes)
    for (int l = 0; l < kRowLanes; ++l) lane[l] += double(row[j + l]);
  for (int l = 0; j + l < n; ++l) lane[l] += double(row[j + l]);
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

// Σ a[j]·b[j] over [0, n) in double, lane by lane: the softmax backward's row dot P·dP.
PRECIS_HOST_DEVICE inline double row_dot(const float* a, const float* b, int64_t n) {
  double lane[kRowLanes] = {};
  int64_t j = 0;
  for (; j + kRowLanes <= n; j += kRowLanes)
    for (int l = 0; l < kRowLanes; ++l) lane[l] += double(a[j + l]) * double(b[j + l]);
  for (int l = 0; j + l < n; ++l) lane[l] += double(a[j + l]) * double(b[j + l]);
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

// Σ_j exp(row[j] - max) over [0, n) in double, each exponential exp_math's in float, a chunk at
// a time (a buffer on the stack, vectorised), the chunks' terms in row_sum's lanes; the
// exponentials are written to `out` when given (`out` may be `row`). CPU loops only.
inline double row_exp_sum(const float* row, int64_t n, float max, float* out) {
  constexpr int64_t kChunk = 512;  // a multiple of kRowLanes
  double lane[kRowLanes] = {};
  float buffer[kChunk];
  for (int64_t start = 0; start < n; start += kChunk) {
    const int64_t count = std::min(kChunk, n - start);
    float* e = out ? out + start : buffer;
    for (int64_t j = 0; j < count; ++j) e[j] = exp_math::exp(row[start + j] - max);
    int64_t j = 0;
    for (; j + kRowLanes <= count; j += kRowLanes)
      for (int l = 0; l < kRowLanes; ++l) lane[l] += double(e[j + l]);
    for (int l = 0; j + l < count; ++l) lane[l] += double(e[j + l]);
  }
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

}  // namespace precis::row_math
