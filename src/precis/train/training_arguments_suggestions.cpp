// Unknown option names: the nearest known one by edit distance, offered in the error
// ("did you mean --learning_rate?") when it is close enough to be a typo.
#include <algorithm>
#include <cstdint>

#include "precis/train/training_arguments_parsing.h"

namespace precis::train::parsing {

namespace {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1] ? 1 : 0)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::vector<std::string_view> all_names() {
  std::vector<std::string_view> names;
  for (const auto& o : options()) names.push_back(o.name);
  for (const auto& o : ignored_options_table()) names.push_back(o.name);
  names.push_back("evaluation_strategy");
  return names;
}

}  // namespace

std::optional<std::string> suggestion(std::string_view unknown) {
  std::string_view best;
  size_t best_distance = SIZE_MAX;
  for (std::string_view name : all_names()) {
    size_t d = edit_distance(unknown, name);
    if (d < best_distance) best_distance = d, best = name;
  }
  // Close enough to be a typo: a third of the name, at least 2 edits.
  if (best_distance <= std::max<size_t>(2, unknown.size() / 3)) return std::string(best);
  return std::nullopt;
}

}  // namespace precis::train::parsing
