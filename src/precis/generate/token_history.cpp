#include "precis/generate/token_history.h"

#include <string>
#include <utility>

#include "precis/kernels/copy.h"

namespace precis::generate {

TokenHistory::TokenHistory(int64_t rows, int64_t max_length, int32_t start, Device device)
    : arena_(size_t(2 * rows * max_length + rows) * 4 + 3 * Arena::kAlignment, device),
      host_(size_t(rows), std::vector<int32_t>{start}) {
  tokens_ = arena_.zeros(Shape{rows, max_length, 1}, DType::I32);
  spare_ = arena_.zeros(Shape{rows, max_length, 1}, DType::I32);
  step_ = arena_.alloc(Shape{rows, 1}, DType::I32);
  length_ = 0;
  append(std::vector<int32_t>(size_t(rows), start));
}

void TokenHistory::append(std::span<const int32_t> tokens) {
  check(int64_t(tokens.size()) == step_.size(0) && length_ < tokens_.size(1),
        "token history: " + std::to_string(tokens.size()) + " tokens for " +
            std::to_string(step_.size(0)) + " rows at length " + std::to_string(length_));
  copy(Tensor{const_cast<int32_t*>(tokens.data()), step_.shape, DType::I32, Device::cpu()}, step_);
  append_rows(step_, length_, tokens_);
  if (length_ > 0)  // the constructor's start token is already on the host
    for (size_t r = 0; r < host_.size(); ++r) host_[r].push_back(tokens[r]);
  ++length_;
}

void TokenHistory::reorder_and_append(std::span<const int32_t> sources,
                                      std::span<const int32_t> tokens) {
  gather_rows(tokens_, sources, spare_);
  std::swap(tokens_, spare_);
  std::vector<std::vector<int32_t>> reordered(host_.size());
  for (size_t r = 0; r < host_.size(); ++r) reordered[r] = host_[size_t(sources[r])];
  host_ = std::move(reordered);
  append(tokens);
}

}  // namespace precis::generate
