// --fp16's dynamic loss scaling, as HF's Trainer gets it from accelerate and
// torch.cuda.amp.GradScaler (defaults: init_scale 2^16, growth_factor 2, backoff_factor 0.5,
// growth_interval 2000). The loss's gradient is multiplied by scale() so fp16 gradients do not
// underflow; the step's gradients are divided by it again before clipping. A step whose
// gradients hold an inf or a NaN is skipped (no update, the learning-rate schedule does not
// advance) and the scale halves; after growth_interval finite steps in a row it doubles.
#pragma once

#include <cstdint>

namespace precis::train {

class LossScaler {
 public:
  static constexpr double kInitialScale = 65536.0;
  static constexpr int64_t kGrowthInterval = 2000;

  double scale() const { return scale_; }
  // What unscaling multiplies the gradients by: 1/scale in double, rounded to float, as
  // GradScaler's inv_scale = scale.double().reciprocal().float().
  float inverse_scale() const { return float(1.0 / scale_); }

  // After a step, whether its (unscaled) gradients were all finite.
  void update(bool finite);

  int64_t growth_tracker() const { return growth_tracker_; }
  int64_t skipped_steps() const { return skipped_steps_; }
  // A checkpoint's state (scaler.json).
  void restore(double scale, int64_t growth_tracker, int64_t skipped_steps);

 private:
  double scale_ = kInitialScale;
  int64_t growth_tracker_ = 0;
  int64_t skipped_steps_ = 0;
};

}  // namespace precis::train
