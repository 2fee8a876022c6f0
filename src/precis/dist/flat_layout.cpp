#include "precis/dist/flat_layout.h"

#include <algorithm>

namespace precis::dist {

namespace {

// Sets bits [first, last): whole words at once, single bits at the two ends.
void set_bits(std::vector<uint32_t>& bits, int64_t first, int64_t last) {
  for (; first < last && first % 32; ++first) bits[size_t(first / 32)] |= 1u << (first % 32);
  for (; first + 32 <= last; first += 32) bits[size_t(first / 32)] = ~0u;
  for (; first < last; ++first) bits[size_t(first / 32)] |= 1u << (first % 32);
}

}  // namespace

std::vector<uint32_t> weight_decay_mask(const FlatLayout& layout, int64_t begin, int64_t end) {
  std::vector<uint32_t> bits(size_t((end - begin + 31) / 32), 0u);
  for (const FlatTensor& t : layout.tensors) {
    const int64_t first = std::max(begin, t.offset), last = std::min(end, t.offset + t.numel);
    if (t.decays && first < last) set_bits(bits, first - begin, last - begin);
  }
  return bits;
}

}  // namespace precis::dist
