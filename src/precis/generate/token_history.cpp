#include "precis/generate/token_history.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <utility>

#include "precis/kernels/copy.h"

namespace precis::generate {

TokenHistory::TokenHistory(int64_t rows, int64_t max_length, int32_t start, Device device)
    : arena_(size_t(2 * rows * max_length + rows) * 4 + 3 * Arena::kAlignment, device),
      host_(size_t(rows), std::vector<int32_t>{start}),
      live_(size_t(rows)) {
  std::iota(live_.begin(), live_.end(), 0);
  tokens_ = arena_.zeros(Shape{rows, max_length, 1}, DType::I32);
  spare_ = arena_.zeros(Shape{rows, max_length, 1}, DType::I32);
  step_ = arena_.alloc(Shape{rows, 1}, DType::I32);
  length_ = 0;
  append(std::vector<int32_t>(size_t(rows), start));
}

void TokenHistory::upload_live(std::span<const int32_t> per_row) {
  std::vector<int32_t> live_values(live_.size());
  for (size_t i = 0; i < live_.size(); ++i) live_values[i] = per_row[size_t(live_[i])];
  copy(Tensor{live_values.data(), step_.shape, DType::I32, Device::cpu()}, step_);
}

void TokenHistory::append(std::span<const int32_t> tokens) {
  check(tokens.size() == host_.size() && length_ < tokens_.size(1),
        "token history: " + std::to_string(tokens.size()) + " tokens for " +
            std::to_string(host_.size()) + " rows at length " + std::to_string(length_));
  upload_live(tokens);
  append_rows(step_, length_, tokens_);
  if (length_ > 0)  // the constructor's start token is already on the host
    for (size_t r = 0; r < host_.size(); ++r) host_[r].push_back(tokens[r]);
  ++length_;
}

void TokenHistory::reorder_and_append(std::span<const int32_t> sources,
                                      std::span<const int32_t> tokens) {
  check(sources.size() == host_.size(), "token history: " + std::to_string(sources.size()) +
                                            " sources for " + std::to_string(host_.size()) +
                                            " rows");
  // On the device, each live row takes its source's position among the live rows.
  std::vector<int32_t> device_sources(live_.size());
  for (size_t i = 0; i < live_.size(); ++i) {
    const auto at = std::lower_bound(live_.begin(), live_.end(), sources[size_t(live_[i])]);
    const bool live = at != live_.end() && *at == sources[size_t(live_[i])];
    device_sources[i] = live ? int32_t(at - live_.begin()) : int32_t(i);
  }
  gather_rows(tokens_, device_sources, spare_);
  std::swap(tokens_, spare_);
  std::vector<std::vector<int32_t>> reordered(host_.size());
  for (size_t r = 0; r < host_.size(); ++r) reordered[r] = host_[size_t(sources[r])];
  host_ = std::move(reordered);
  append(tokens);
}

void TokenHistory::keep_rows(std::span<const int32_t> kept) {
  std::vector<int32_t> device_rows(kept.size());
  for (size_t i = 0; i < kept.size(); ++i) {
    const auto at = std::lower_bound(live_.begin(), live_.end(), kept[i]);
    check(at != live_.end() && *at == kept[i] && (i == 0 || kept[i] > kept[i - 1]),
          "token history: row " + std::to_string(kept[i]) + " is not live (ascending live rows)");
    device_rows[i] = int32_t(at - live_.begin());
  }
  const int64_t rows = int64_t(kept.size());
  gather_rows(tokens_, device_rows, spare_.slice(0, rows));
  std::swap(tokens_, spare_);
  tokens_ = tokens_.slice(0, rows);
  spare_ = spare_.slice(0, rows);
  step_ = step_.slice(0, rows);
  live_.assign(kept.begin(), kept.end());
}

}  // namespace precis::generate
