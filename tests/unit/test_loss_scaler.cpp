// --fp16's loss scaler (train/loss_scaler.h) against torch.cuda.amp.GradScaler's rules with
// the defaults HF's Trainer uses: 2^16 at first, halved (and the run of good steps restarted)
// on a step with an inf or NaN, doubled after 2000 finite steps in a row.
#include <gtest/gtest.h>

#include "precis/core/error.h"
#include "precis/train/loss_scaler.h"

namespace precis::train {
namespace {

TEST(LossScaler, StartsAt2To16AndGrowsAfter2000FiniteSteps) {
  LossScaler s;
  EXPECT_EQ(s.scale(), 65536.0);
  EXPECT_EQ(s.inverse_scale(), 1.0f / 65536.0f);
  for (int i = 0; i < 1999; ++i) s.update(true);
  EXPECT_EQ(s.scale(), 65536.0);
  EXPECT_EQ(s.growth_tracker(), 1999);
  s.update(true);
  EXPECT_EQ(s.scale(), 131072.0);
  EXPECT_EQ(s.growth_tracker(), 0);
  EXPECT_EQ(s.skipped_steps(), 0);
}

TEST(LossScaler, AnOverflowHalvesTheScaleAndRestartsTheCount) {
  LossScaler s;
  for (int i = 0; i < 1500; ++i) s.update(true);
  s.update(false);
  EXPECT_EQ(s.scale(), 32768.0);
  EXPECT_EQ(s.growth_tracker(), 0);
  EXPECT_EQ(s.skipped_steps(), 1);
  // 1999 more finite steps do not grow it: the count started again at the overflow.
  for (int i = 0; i < 1999; ++i) s.update(true);
  EXPECT_EQ(s.scale(), 32768.0);
  s.update(true);
  EXPECT_EQ(s.scale(), 65536.0);
}

TEST(LossScaler, RestoresACheckpointsStateAndRefusesANonsenseOne) {
  LossScaler s;
  s.restore(1024.0, 1999, 7);
  EXPECT_EQ(s.skipped_steps(), 7);
  s.update(true);
  EXPECT_EQ(s.scale(), 2048.0);
  EXPECT_THROW(s.restore(0.0, 0, 0), Error);
  EXPECT_THROW(s.restore(1.0, 2000, 0), Error);
  EXPECT_THROW(s.restore(1.0, 0, -1), Error);
}

}  // namespace
}  // namespace precis::train
