#include "precis/train/loss_scaler.h"

#include "precis/core/error.h"

namespace precis::train {

void LossScaler::update(bool finite) {
  if (!finite) {  // GradScaler.update: backoff, and the run of good steps starts again
    scale_ *= 0.5;
    growth_tracker_ = 0;
    ++skipped_steps_;
    return;
  }
  if (++growth_tracker_ == kGrowthInterval) {
    scale_ *= 2.0;
    growth_tracker_ = 0;
  }
}

void LossScaler::restore(double scale, int64_t growth_tracker, int64_t skipped_steps) {
  check(scale > 0 && growth_tracker >= 0 && growth_tracker < kGrowthInterval && skipped_steps >= 0,
        "scaler.json: expected a positive scale, a growth tracker in [0, 2000) and skipped "
        "steps >= 0");
  scale_ = scale;
  growth_tracker_ = growth_tracker;
  skipped_steps_ = skipped_steps;
}

}  // namespace precis::train
