// A test hook, not a feature: PRECIS_TEST_STOP_AT names one point of a training run at which
// the process stops itself with SIGSTOP, so that an oracle test can act on the run exactly
// there (kill -9 it, queue a SIGTERM, then SIGCONT) instead of sleeping and hoping to land
// inside a window. The test waits for the stop (waitpid with WUNTRACED, or the process state
// in /proc). Unset, which it always is outside tests, nothing happens.
//
//   micro:<S>:<M>  after the backward of micro-batch M (from 0) of the step after step S
//                  (S steps done): the middle of a step, gradients half accumulated
//   save:<S>       while checkpoint-S is written: weights and optimizer in the staging
//                  folder, trainer_state.json not yet, nothing committed
//   evaluate:<R>   rank R of a data-parallel evaluation with generation, after its loss
//                  evaluation and before it generates
//
// Each point stops the process once (the first time it is reached).
#pragma once

#include <cstdint>

namespace precis::train {

// Stops the process when PRECIS_TEST_STOP_AT is `<point>:<a>` (b < 0) or `<point>:<a>:<b>`.
void stop_here_for_test(const char* point, int64_t a, int64_t b = -1);

}  // namespace precis::train
