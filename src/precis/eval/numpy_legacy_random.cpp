#include "precis/eval/numpy_legacy_random.h"

namespace precis::eval {

int64_t NumpyLegacyRandom::randint(int64_t high) {
  const auto range = static_cast<uint64_t>(high - 1);  // the largest value that may come out
  if (range == 0) return 0;
  uint64_t mask = range;  // smallest 2^k - 1 covering range
  for (int shift = 1; shift < 64; shift <<= 1) mask |= mask >> shift;
  if (range <= 0xFFFFFFFFull) {
    if (range == 0xFFFFFFFFull) return static_cast<int64_t>(mt_());
    uint64_t value;
    do value = mt_() & mask;
    while (value > range);
    return static_cast<int64_t>(value);
  }
  uint64_t value;
  do {
    const uint64_t high_word = mt_();
    value = ((high_word << 32) | static_cast<uint64_t>(mt_())) & mask;
  } while (value > range);
  return static_cast<int64_t>(value);
}

}  // namespace precis::eval
