#include "precis/train/results_files.h"

#include <cmath>

#include "precis/core/atomic_file.h"

namespace precis::train {

void write_results_file(const std::filesystem::path& file, const nlohmann::json& results) {
  write_file_atomic(file, results.dump(4) + "\n");
}

double round_to(double v, int digits) {
  double s = std::pow(10.0, digits);
  return std::round(v * s) / s;
}

}  // namespace precis::train
